// Grading support for part 1 of lab 06, the reverse: exact comparison of integer outputs on
// guarded buffers, the cases and the performance workload.
// The 1D convolution of part 2 uses grader/support/conv1d.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/device_buffer.h"
#include "cudalab/timing.h"
#include "harness.h"
#include "perf.h"
#include "reverse_data.h"

namespace lab06 {

struct ReverseCase {
  std::string name;
  std::vector<int> in;
  int block_size = 0;      // 0: the implementation's choice
  std::uint64_t seed = 0;  // 0: fixed data
};

ReverseCase reverse_case(int n, int block_size, std::uint64_t seed);

// Guards intact and every element exact / guards intact and contents as uploaded.
std::string check_int_output(const cudalab::grade::CaseInfo& c,
                             const cudalab::grade::GuardedBuffer<int>& out,
                             const std::vector<int>& expected);
std::string check_int_unchanged(const cudalab::grade::CaseInfo& c,
                                const cudalab::grade::GuardedBuffer<int>& in,
                                const std::vector<int>& original);

// Runs one case on guarded buffers (out pre-filled with -1): "" when right, otherwise the first
// problem, naming the case.
std::string run_reverse_case(const ReverseCase& c, const ReverseVariant& v);
// Runs every case and FAILs the current check with the first three problems.
void require_all_reverse(const std::vector<ReverseCase>& cases, const ReverseVariant& v);

// The block sizes the cases use (0: the implementation's choice) and, for each, sizes around
// one and two blocks, primes and a few seeded random (n, block size) pairs.
std::vector<ReverseCase> reverse_size_cases(std::uint64_t seed);
ReverseCase reverse_largest_case(std::uint64_t seed);

// The performance workload: n = 2^26 ints (256 MiB in, 256 MiB out), block_size 0. `in` is made
// on the device (seeded float bit patterns, see grade_reverse_performance): no host copy of it.
struct ReversePerfCase {
  static constexpr int kN = 1 << 26;
  explicit ReversePerfCase(std::uint64_t seed);
  cudalab::DeviceBuffer<int> in, out;
  // The variant's launch on `in`, writing `output` (`out` by default).
  cudalab::Launch launch(const ReverseVariant& v);
  cudalab::Launch launch(const ReverseVariant& v, int* output);
  static cudalab::grade::Workload workload();
};

// Times the candidate against the reference (grade_performance, which first compares one untimed
// run of each on the same inputs; the correctness checks compared the same code with the CPU).
// `executed`, when set: the lab's technique at the timed size (perf.h, TimedRunChecks::executed),
// over ReversePerfCase::kN elements.
void grade_reverse_performance(const std::string& lab, const ReverseVariant& candidate,
                               const ReverseVariant& reference,
                               const cudalab::grade::ExecutionSignature& executed = nullptr);

}  // namespace lab06
