// Device-side checking tools for graders:
//   - GuardedBuffer: a device array with guard zones before and after it, filled with a known
//     byte pattern, so out-of-bounds writes are caught without any tool; outputs start filled
//     with a sentinel (all-ones bytes: NaN for floats, -1 for integers), so unwritten elements
//     fail the comparison;
//   - checks that return "" when all is well and a message naming the case otherwise.
//
// Every fill and upload here ends with cudaDeviceSynchronize(): the kernels under test run on
// streams created with cudaStreamNonBlocking (cudalab::Stream), which do not wait for work on
// the legacy default stream, and cudaMemset, like cudaMemcpy from pageable host memory, may
// return before the device has finished it. Without the synchronization a kernel could read an
// input before it lands, or have its output overwritten by a late sentinel fill.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "cudalab/compare.h"
#include "cudalab/device_buffer.h"

namespace cudalab::grade {

// Guard bytes read as the float 3.39e38: a kernel that reads a guard instead of a ghost element
// produces inf or a huge value, which no tolerance hides.
constexpr unsigned char kGuardByte = 0x7F;
constexpr unsigned char kSentinelByte = 0xFF;  // float NaN, integer -1

// Creates the CUDA context on a thread of its own (cudaFree(nullptr)) while this thread builds a
// check's inputs on the host: on an H100 host the context takes ~0.2 s. A CUDA call here meanwhile
// waits for it (the runtime's primary context is one per process). Joined when destroyed.
class ContextWarmup {
 public:
  ContextWarmup() : thread_([] { (void)cudaFree(nullptr); }) {}
  ~ContextWarmup() { thread_.join(); }
  ContextWarmup(const ContextWarmup&) = delete;
  ContextWarmup& operator=(const ContextWarmup&) = delete;

 private:
  std::thread thread_;
};

// Bytes of guard zone on each side: 64 KiB (more than any block writes past an array's end), or
// CUDALAB_GUARD_BYTES. The sanitize tests set it to 0: exact-size allocations let memcheck see
// every out-of-bounds access, which guard zones would otherwise absorb.
std::size_t guard_bytes();

template <typename T>
class GuardedBuffer {
 public:
  GuardedBuffer(std::string name, std::size_t count)
      : name_(std::move(name)),
        count_(count),
        guard_(guard_bytes()),
        storage_(2 * guard_ + count * sizeof(T)) {
    CUDA_CHECK(cudaMemset(storage_.data(), kGuardByte, storage_.bytes()));
    fill_sentinel();  // synchronizes
  }
  T* data() { return reinterpret_cast<T*>(storage_.data() + guard_); }
  const T* data() const { return reinterpret_cast<const T*>(storage_.data() + guard_); }
  std::size_t size() const { return count_; }
  const std::string& name() const { return name_; }

  void fill_sentinel() {
    if (count_ > 0) CUDA_CHECK(cudaMemset(data(), kSentinelByte, count_ * sizeof(T)));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  void upload(const std::vector<T>& host) {
    if (host.size() != count_) throw std::invalid_argument("GuardedBuffer::upload: size mismatch");
    if (count_ > 0)
      CUDA_CHECK(cudaMemcpy(data(), host.data(), count_ * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    if (count_ > 0)
      CUDA_CHECK(cudaMemcpy(host.data(), data(), count_ * sizeof(T), cudaMemcpyDeviceToHost));
    return host;
  }
  // "" when both guard zones still hold the pattern; otherwise which side was written, how many
  // elements and the nearest one, e.g. "wrote 3 element(s) past the end of y (first at y[1000])".
  std::string check_guards() const;

 private:
  std::string name_;
  std::size_t count_;
  std::size_t guard_;
  DeviceBuffer<unsigned char> storage_;
};

// Describes writes into the guard zones; the bytes are [before | after] the array of `elem` bytes.
std::string describe_guard_damage(const std::string& name, const std::vector<unsigned char>& before,
                                  const std::vector<unsigned char>& after, std::size_t count,
                                  std::size_t elem);

template <typename T>
std::string GuardedBuffer<T>::check_guards() const {
  if (guard_ == 0) return "";
  std::vector<unsigned char> before(guard_), after(guard_);
  CUDA_CHECK(cudaMemcpy(before.data(), storage_.data(), guard_, cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(after.data(), storage_.data() + guard_ + count_ * sizeof(T), guard_,
                        cudaMemcpyDeviceToHost));
  return describe_guard_damage(name_, before, after, count_, sizeof(T));
}

// What every correctness case says about itself in a failure message.
struct CaseInfo {
  std::string name;            // "random, width 1000, mask 7"
  std::uint64_t seed;          // 0 when the case is fixed data
  std::string sizes;           // "width=1000 mask_width=7"
  std::string header() const;  // "case 'name' (seed S, width=1000 mask_width=7)"
};

// Synchronizes and reports any CUDA error (launch, asynchronous or sticky) with its string.
std::string check_cuda_errors(const CaseInfo& c);

// Output checks: guards intact, then every element within tolerance of the CPU reference.
std::string check_output(const CaseInfo& c, const GuardedBuffer<float>& out,
                         const std::vector<double>& expected, Tolerance tol);

// A host input handed to the candidate (`handed`, a copy of `original`) must come back unchanged:
// "" or "<case>: <function> wrote to its const input (N of M elements changed, first at [i])".
std::string check_host_input_unchanged(const CaseInfo& c, const std::string& function,
                                       const std::vector<float>& handed,
                                       const std::vector<float>& original);

// Input checks: guards intact and contents identical to what was uploaded.
std::string check_unchanged(const CaseInfo& c, const GuardedBuffer<float>& in,
                            const std::vector<float>& original);

}  // namespace cudalab::grade
