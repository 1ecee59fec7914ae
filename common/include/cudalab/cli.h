// Shared command-line plumbing for runners and the grade command. Bad input gets one line on
// stderr ("<program>: error: ...") and exit code 2; a CUDA failure exit code 1.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace cudalab {

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown when --help was asked for; guarded_main prints the text and returns 0.
class HelpRequested : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs `body`, mapping exceptions to one-line errors and exit codes (UsageError -> 2,
// anything else -> 1; HelpRequested prints the help, 0). `body` returns the exit code on success.
// It first takes the GPU ctest gave the program, if any (use_ctest_gpu).
int guarded_main(const char* program, const std::function<int()>& body);

// Under ctest with several GPUs (cmake/CudaLabs.cmake, _cudalab_gpu_properties), CTest names the
// test's GPU in CTEST_RESOURCE_GROUP_0_GPUS ("id:<n>,slots:<k>"; <n> counts the GPUs visible at
// configure time). This makes it the only one CUDA sees (CUDA_VISIBLE_DEVICES: <n>, or the n-th
// entry of a CUDA_VISIBLE_DEVICES already set) and removes CTest's variables, so that the
// processes this one starts keep that GPU. Call it before the first CUDA call; without CTest's
// variables (or with ones it cannot read) it changes nothing. Returns the GPU taken, or "".
std::string use_ctest_gpu();

// Parses a decimal integer in [lo, hi]; throws UsageError naming `what` otherwise.
std::int64_t parse_int_in_range(const std::string& text, const std::string& what, std::int64_t lo,
                                std::int64_t hi);

// Throws UsageError unless `value` is odd and positive.
void require_odd_positive(std::int64_t value, const std::string& what);

// Throws UsageError ("<what>: cannot write '<path>'") unless `path` can be opened for writing.
// Runners check their output files while parsing, before any GPU work. The file is opened for
// appending, so an existing file keeps its contents; a missing one is created (empty).
void require_writable(const std::string& path, const std::string& what);

// `text` if it is one of `choices`; otherwise UsageError naming `what` and the choices.
std::string parse_choice(const std::string& text, const std::string& what,
                         const std::vector<std::string>& choices);

// `text` if it is `a` or `b`; otherwise UsageError ("<what> must be 'a' or 'b', got '<text>'").
std::string parse_either(const std::string& text, const std::string& what, const std::string& a,
                         const std::string& b);

// Throws std::runtime_error ("no CUDA device (...)") when no CUDA device can be used: guarded_main
// turns it into one line and exit code 1. Runners call it after parsing, so bad input is still 2.
void require_cuda_device();

// Throws UsageError ("<what> needs X GiB of device memory, Y GiB are free") when the current
// device has less than `bytes` free. Needs a CUDA device.
void require_device_memory(std::size_t bytes, const std::string& what);

}  // namespace cudalab
