// The one entry point between cudalab-serve (the candidate process's loader,
// grader/serve/serve_main.cpp) and a candidate library (the student's file, the solution or a
// variant, with the lab's dispatch: grader/labs/NN-name/remote.cpp compiled with CUDALAB_SERVE).
// The loader decodes a call's arguments (device pointers mapped into its context, host bytes
// where the judge copied them, in the host-argument area: wire.h) and hands them here; the
// dispatch calls the lab's function with them.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

extern "C" {

struct cudalab_value {
  char tag;  // 'i' integer, 'f' real, 'p' device pointer (null allowed), 'h' host bytes
  std::int64_t i;
  double f;
  void* ptr;          // 'p': the device address here; 'h': the host copy, in the area
  std::size_t bytes;  // 'h': its size
};

struct cudalab_call {
  std::uint32_t function;
  const cudalab_value* args;
  std::uint32_t nargs;
  cudaStream_t stream;        // the candidate process's stream for the lab's functions
  unsigned char result[512];  // a return value, copied back to the judge
  std::uint32_t result_bytes;
  char error[512];  // set when the dispatch itself fails (bad arguments)
};

// 0, a CUDA error code the runtime reported for the call (cudaGetLastError after it), or one of
// the negative codes below (then `error` says what).
enum { kBadArguments = -1, kThrewInvalidArgument = -2, kThrew = -3 };
typedef int (*cudalab_dispatch_fn)(cudalab_call* call);
int cudalab_serve_dispatch(cudalab_call* call);
}

namespace cudalab::serve {

// A call whose arguments are not what the function takes: a grader problem, never the candidate's.
struct BadArgument : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

// Typed access to a call's arguments for a lab's dispatch; a wrong kind throws (the dispatch turns
// it into -1 and the message).
class Args {
 public:
  explicit Args(const cudalab_call& c) : c_(c) {}
  template <typename T>
  T* device(std::uint32_t i) const {
    return static_cast<T*>(at(i, 'p').ptr);
  }
  template <typename T>
  T* host(std::uint32_t i, std::size_t count) const {
    const cudalab_value& v = at(i, 'h');
    if (v.bytes != count * sizeof(T))
      throw BadArgument("argument " + std::to_string(i) + ": " + std::to_string(v.bytes) +
                        " host bytes, expected " + std::to_string(count * sizeof(T)));
    return static_cast<T*>(v.ptr);
  }
  int i32(std::uint32_t i) const { return static_cast<int>(at(i, 'i').i); }
  std::int64_t i64(std::uint32_t i) const { return at(i, 'i').i; }
  float f32(std::uint32_t i) const { return static_cast<float>(at(i, 'f').f); }
  cudaStream_t stream() const { return c_.stream; }

 private:
  const cudalab_value& at(std::uint32_t i, char tag) const {
    if (i >= c_.nargs) throw BadArgument("missing argument " + std::to_string(i));
    if (c_.args[i].tag != tag)
      throw BadArgument("argument " + std::to_string(i) + " is of kind '" +
                        std::string(1, c_.args[i].tag) + "', not '" + std::string(1, tag) + "'");
    return c_.args[i];
  }
  const cudalab_call& c_;
};

// Copies a return value into the call's result.
template <typename T>
void set_result(cudalab_call* call, const T& value) {
  static_assert(sizeof(T) <= sizeof(call->result), "return value too large");
  std::memcpy(call->result, &value, sizeof(T));
  call->result_bytes = sizeof(T);
}

// The body of every lab's cudalab_serve_dispatch: runs `body` (a switch over the function ids
// that returns false for an unknown one) and turns what can go wrong into the return code.
template <typename Body>
int dispatch(cudalab_call* call, Body body) {
  call->result_bytes = 0;
  call->error[0] = '\0';
  try {
    if (!body(Args(*call))) {
      std::snprintf(call->error, sizeof call->error, "unknown function %u", call->function);
      return kBadArguments;
    }
  } catch (const BadArgument& e) {
    std::snprintf(call->error, sizeof call->error, "%s", e.what());
    return kBadArguments;
  } catch (const std::invalid_argument& e) {
    // The function refused its arguments, as the interface says it must (e.g. a mask too wide):
    // the judge's stub throws the same.
    std::snprintf(call->error, sizeof call->error, "%s", e.what());
    return kThrewInvalidArgument;
  } catch (const std::exception& e) {
    std::snprintf(call->error, sizeof call->error, "%s", e.what());
    return kThrew;
  } catch (...) {
    std::snprintf(call->error, sizeof call->error, "an exception of an unknown type");
    return kThrew;
  }
  const cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess)
    std::snprintf(call->error, sizeof call->error, "CUDA error %s: %s", cudaGetErrorName(e),
                  cudaGetErrorString(e));
  return static_cast<int>(e);
}

}  // namespace cudalab::serve
