// The candidate in a process of its own (docs/design.md, section 8).
//
// A lab's grader is the judge: it makes the inputs, keeps the expected values and the reference's
// outputs, times and compares, and runs no code of the student's file. The student's file runs in
// the candidate process: cudalab-serve (grader/serve/serve_main.cpp), which creates its CUDA
// context, confines itself (no threads, no processes, no signal handlers, no new executable
// memory: a seccomp filter), and only then loads the candidate library (the student's file and the
// lab's dispatch) and answers calls. A call carries the lab function's arguments: device pointers
// as CUDA IPC handles of the judge's allocations (the candidate maps only what it is handed; the
// judge's other memory is in another context, out of its kernels' reach), integers, reals and host
// bytes (copied into a shared area of that process's own, wire.h's HostArea, and back after the
// call so that a const input changed is seen). The candidate process synchronises its whole
// context before it answers, so a call's time on the judge's clock covers all the work it
// started, on any stream.
//
// A lab goes through this when grader/labs/NN-name/remote.cpp exists: its judge half defines the
// lab's functions in labNN::candidate as stubs that call(); its serve half (CUDALAB_SERVE) is the
// dispatch linked into the candidate library.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cudalab::remote {

// Which process a call goes to: the candidate's (the student's file, a variant or the solution),
// or the reference's (the solution, the same way, so that both are timed alike).
enum class Endpoint { candidate, reference };

struct Value {
  char kind;  // 'i', 'f', 'p', 'h' (wire::Arg)
  std::int64_t integer = 0;
  double real = 0.0;
  const void* pointer = nullptr;  // 'p': a device pointer of this process; 'h': host bytes
  std::size_t bytes = 0;          // 'h'
};

inline Value integer(long long v) {
  Value x{'i'};
  x.integer = v;
  return x;
}
inline Value real(double v) {
  Value x{'f'};
  x.real = v;
  return x;
}
inline Value device(const void* p) {
  Value x{'p'};
  x.pointer = p;
  return x;
}
// Host bytes: sent, and what the candidate's function left in them written back over them.
inline Value host(const void* p, std::size_t bytes) {
  Value x{'h'};
  x.pointer = p;
  x.bytes = bytes;
  return x;
}

// True in a grader whose candidate and reference run in processes of their own.
bool active();

// Calls function `id` of the lab's interface (the numbering of the lab's remote.cpp) with `args`
// in the candidate process and returns its return value's bytes (empty for void). A CUDA error,
// an exception, a crash or a time-out of the call is kept for take_error(); the call then returns
// empty bytes. `name` is the function's name for messages.
// A problem of the reference's process is the grader's: it throws.
std::string call(Endpoint to, const char* name, std::uint32_t id,
                 std::initializer_list<Value> args);

template <typename T>
T call_returning(Endpoint to, const char* name, std::uint32_t id,
                 std::initializer_list<Value> args) {
  const std::string bytes = call(to, name, id, args);
  T value{};
  if (bytes.size() == sizeof(T)) std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

// The first problem of the candidate's calls since the last take_error(), "" when none: what
// cudaGetLastError() after a cudaDeviceSynchronize() is for a candidate in this process.
std::string take_error();

// Median round trip of `n` empty calls, in ms: the overhead a call's time on the judge's clock
// carries. An empty call runs no code of the student's file: the candidate process launches an
// empty kernel of its own (so that the device turns to its context, as for a call's kernels),
// synchronises its context and answers. `before`, when set, runs before each (untimed): the
// judge's own work before a timed call, such as its L2 flush.
double ping_ms(Endpoint to, int n, const std::function<void()>& before);

// A kernel the candidate process ran, as CUPTI recorded it there.
struct Kernel {
  std::string name;
  long long launches = 0, static_shared = 0, dynamic_shared = 0, threads = 0;
  // What it executed, summed over its launches (the performance counters: keys of
  // grader/serve/counters.h; "launches" is how many were counted); empty when not counted.
  std::map<std::string, double> counters;
};
// The kernels run since the last collect_kernels(); `error` set when they could not be recorded
// (under compute-sanitizer, or a CUPTI failure); `counters_error`, when given, set to why the
// counters could not be read ("not counted" unless count_kernels() came first).
std::vector<Kernel> collect_kernels(std::string* error, std::string* counters_error = nullptr);
// The same, from the process of `from`.
std::vector<Kernel> collect_kernels(Endpoint from, std::string* error, std::string* counters_error);

// From now on the candidate process reads the performance counters of every kernel its calls
// launch (a process already started without them is stopped: the next call starts one with them).
void count_kernels();

// Whether candidate processes keep CUPTI's kernel records (on unless said otherwise: the technique
// checks read them). Off, the candidate's process does no GPU work of CUPTI's besides its calls'
// own: the judge's count of the device (device_counts.h) sees the calls alone. A running process
// of the other kind is stopped: the next call starts one of this kind.
void record_kernels(bool on);

// The profile of a performance case (the grade command's CUDALAB_PROFILE=candidate or
// =reference, read once): the side this grader run counts, or none. The GPU's counters serve one
// process at a time, so the candidate and the reference are profiled in runs of their own, each
// process with its counters enabled from its start, before its seccomp filter (as a technique
// check's), and every call of it counted; `std::nullopt` in every other run.
std::optional<Endpoint> profiled();

// Starts the process of `to` without waiting for it, so that its CUDA context is made while the
// judge makes its inputs; its first call waits until it is ready. Does nothing when it runs, or
// when this grader has no candidate process; a start that fails is reported by the first call.
void prestart(Endpoint to);

// While set, runs around each call to the candidate's process: `window(true)` once the judge's
// own work is done and the arguments are in place, just before the request, and `window(false)`
// once the answer is back (the candidate's context synchronised), whatever the call's outcome.
// The judge's count of what the GPU executed (device_counts.h) opens and closes its samples there.
void set_candidate_window(std::function<void(bool open)> window);

// Ends both processes (the next call starts a new one).
void stop();
// Ends the process of `e` (its context, and the counters it held, gone when this returns).
void stop(Endpoint e);

}  // namespace cudalab::remote
