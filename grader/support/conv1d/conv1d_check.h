// Grading support shared by the 1D convolution labs (01 basic, 02 tiled, 03 constant memory):
// the standard cases, running one case on guarded buffers, and the performance workload.
// A lab plugs in its implementations as Conv1dVariants: an optional untimed `prepare` step
// (lab 03 uploads the mask to constant memory there) and the timed `run`.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cudalab/device_buffer.h"
#include "cudalab/timing.h"
#include "perf.h"

namespace conv1d {

struct Conv1dArgs {
  const float* x;     // device
  const float* mask;  // device
  float* y;           // device
  int width;
  int mask_width;
};

struct Conv1dVariant {
  std::string name;
  // Untimed step before runs with a new mask (host copy of the mask); may be empty.
  std::function<void(const std::vector<float>& mask)> prepare;
  std::function<void(const Conv1dArgs&, cudaStream_t)> run;
};

// A kernel function that reads the mask from global memory: (x, mask, y, width, mask_width,
// stream).
using GlobalMaskFn = void (*)(const float* x, const float* mask, float* y, int width,
                              int mask_width, cudaStream_t stream);

// The variant that runs `f`, with no prepare step.
inline Conv1dVariant global_mask_variant(const std::string& name, GlobalMaskFn f) {
  return {name, nullptr, [f](const Conv1dArgs& a, cudaStream_t s) {
            f(a.x, a.mask, a.y, a.width, a.mask_width, s);
          }};
}

struct Conv1dCase {
  std::string name;
  std::vector<float> x, mask;
  std::uint64_t seed = 0;  // 0: fixed data
  bool integer_valued = true;
};

// Small integers: every sum is exact in float, so any wrong index shows, whatever the order.
Conv1dCase integer_case(const std::string& name, int width, int mask_width, std::uint64_t seed);
// Floats in [-1, 1], compared within the error bound of conv1d_cpu.h.
Conv1dCase float_case(const std::string& name, int width, int mask_width, std::uint64_t seed);

// The course's worked example: X = 1..7, H = [3,4,5,4,3] gives Y[2] = 57 and Y[3] = 76.
Conv1dCase worked_example();
// Width 1, widths smaller than the mask, mask 1, widths around powers of two, masks up to
// `max_mask_width` (the widest over `widest_mask_input` inputs); seeded from `seed`.
std::vector<Conv1dCase> edge_cases(std::uint64_t seed, int max_mask_width,
                                   int widest_mask_input = 10007);
// `count` random widths up to `max_width` (rarely a multiple of any tile) and odd masks up to 31.
std::vector<Conv1dCase> random_cases(std::uint64_t seed, int count, int max_width = 300000);
// Masks 3, 9 and 31 over `width` floats.
std::vector<Conv1dCase> float_cases(std::uint64_t seed, int width = (1 << 20) + 7);
Conv1dCase largest_case(std::uint64_t seed);

// Runs one case on guarded buffers: "" when the output is right, the inputs unchanged and no
// CUDA error occurred; otherwise the first problem, naming the case.
std::string run_case(const Conv1dCase& c, const Conv1dVariant& v);
// Runs every case and FAILs the current check with the first three problems.
void require_all_pass(const std::vector<Conv1dCase>& cases, const Conv1dVariant& v);

// The performance workload: 2^26 floats (256 MiB in, 256 MiB out), mask 9. x is made on the
// device (uniform in [-1, 1), seeded): no host copy of it, no CPU result (grade_performance
// compares the candidate's output with the reference's on the device).
struct PerfCase {
  static constexpr int kWidth = 1 << 26;
  static constexpr int kMaskWidth = 9;
  explicit PerfCase(std::uint64_t seed);
  std::vector<float> host_mask;  // values in [-1, 1], for the prepare steps and the tolerance
  cudalab::DeviceBuffer<float> x, mask, y;
  cudalab::Launch launch(const Conv1dVariant& v);  // calls v.prepare once, untimed
  static cudalab::grade::Workload workload();
};

// The performance check: times the candidate against the reference (grade_performance, which
// first compares one untimed run of each on the same inputs; the correctness checks compared
// the same code with the CPU).
// `executed`, when set: the lab's technique at the timed size (perf.h, TimedRunChecks::executed),
// over PerfCase::kWidth outputs and a mask of PerfCase::kMaskWidth.
void grade_conv1d_performance(const std::string& lab, const Conv1dVariant& candidate,
                              const Conv1dVariant& reference,
                              const cudalab::grade::ExecutionSignature& executed = nullptr);

}  // namespace conv1d
