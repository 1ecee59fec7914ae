// Lab 01 graded checks: 1D convolution, one thread per output.
//
// Every case runs the candidate on guarded device buffers (sentinel-filled output, guard zones on
// every array), then checks: no CUDA error, guards intact, output equal to the CPU reference
// (exact for integer-valued data, within the error bound of conv1d_cpu.h for floats), inputs
// unchanged. Performance is timed only on data the candidate has just computed correctly.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "conv1d_cpu.h"
#include "cudalab/random.h"
#include "grading.h"
#include "harness.h"
#include "impls.h"
#include "perf.h"

namespace {

using cudalab::Tolerance;
using namespace cudalab::grade;

struct Conv1dCase {
  std::string name;
  std::vector<float> x, mask;
  std::uint64_t seed = 0;  // 0: fixed data
  bool integer_valued = true;
};

using Conv1dFn = void (*)(const float*, const float*, float*, int, int, cudaStream_t);

double max_abs(const std::vector<float>& v) {
  double m = 0.0;
  for (float f : v) m = std::max(m, static_cast<double>(std::fabs(f)));
  return m;
}

// Small integers: every sum is exact in float, so any wrong index shows, whatever the order.
Conv1dCase integer_case(const std::string& name, int width, int mask_width, std::uint64_t seed) {
  return {name, cudalab::random_small_ints(width, seed, -8, 8),
          cudalab::random_small_ints(mask_width, cudalab::derive_seed(seed, 1), -4, 4), seed, true};
}

Conv1dCase float_case(const std::string& name, int width, int mask_width, std::uint64_t seed) {
  return {name, cudalab::random_floats(width, seed, -1.0f, 1.0f),
          cudalab::random_floats(mask_width, cudalab::derive_seed(seed, 1), -1.0f, 1.0f), seed,
          false};
}

// Runs one case; "" when everything holds, otherwise the first problem found.
std::string run_case(const Conv1dCase& c, Conv1dFn fn) {
  const int width = static_cast<int>(c.x.size());
  const int mask_width = static_cast<int>(c.mask.size());
  const CaseInfo info{
      c.name, c.seed,
      "width=" + std::to_string(width) + " mask_width=" + std::to_string(mask_width)};
  GuardedBuffer<float> x("x", c.x.size()), mask("mask", c.mask.size()), y("y", c.x.size());
  x.upload(c.x);
  mask.upload(c.mask);
  cudalab::Stream stream;
  try {
    fn(x.data(), mask.data(), y.data(), width, mask_width, stream.get());
  } catch (const cudalab::CudaError& e) {
    return info.header() + ": " + e.what();
  }
  if (std::string p = check_cuda_errors(info); !p.empty()) return p;
  const Tolerance tol = c.integer_valued
                            ? Tolerance{0.0, 0.0}
                            : lab01::conv1d_tolerance(mask_width, max_abs(c.mask), max_abs(c.x));
  if (std::string p = check_output(info, y, lab01::conv1d_cpu(c.x, c.mask), tol); !p.empty())
    return p;
  if (std::string p = check_unchanged(info, x, c.x); !p.empty()) return p;
  return check_unchanged(info, mask, c.mask);
}

// Runs every case and fails the check with the first three problems.
void require_all_pass(const std::vector<Conv1dCase>& cases) {
  std::vector<std::string> problems;
  for (const auto& c : cases)
    if (std::string p = run_case(c, lab01::candidate::conv1d_basic); !p.empty())
      problems.push_back(p);
  if (problems.empty()) return;
  std::string message =
      std::to_string(problems.size()) + " of " + std::to_string(cases.size()) + " case(s) failed";
  for (std::size_t i = 0; i < problems.size() && i < 3; ++i) message += "\n" + problems[i];
  FAIL(message);
}

}  // namespace

GRADED_CHECK("CPU reference reproduces the course example", "[lab01][correctness]", 0,
             Needs::host) {
  const auto y = lab01::conv1d_cpu({1, 2, 3, 4, 5, 6, 7}, {3, 4, 5, 4, 3});
  REQUIRE(y[2] == 57.0);
  REQUIRE(y[3] == 76.0);
}

GRADED_CHECK("course worked example", "[lab01][correctness]", 10, Needs::gpu) {
  // seed 000: X = 1..7, H = [3,4,5,4,3] gives Y[2] = 57 and Y[3] = 76; Y[1] uses one ghost.
  require_all_pass({{"X = 1..7, H = [3,4,5,4,3]", {1, 2, 3, 4, 5, 6, 7}, {3, 4, 5, 4, 3}}});
}

GRADED_CHECK("edge cases", "[lab01][correctness]", 15, Needs::gpu) {
  const std::uint64_t s = base_seed();
  require_all_pass({
      integer_case("width 1, mask 1", 1, 1, cudalab::derive_seed(s, 100)),
      integer_case("width 1, mask 5", 1, 5, cudalab::derive_seed(s, 101)),
      integer_case("width 2, mask 3", 2, 3, cudalab::derive_seed(s, 102)),
      integer_case("width 3 < mask 7", 3, 7, cudalab::derive_seed(s, 103)),
      integer_case("width 5 < mask 31", 5, 31, cudalab::derive_seed(s, 104)),
      integer_case("mask 1 (a scaling)", 1000, 1, cudalab::derive_seed(s, 105)),
      integer_case("width 255", 255, 5, cudalab::derive_seed(s, 106)),
      integer_case("width 257", 257, 5, cudalab::derive_seed(s, 107)),
      integer_case("width 1023", 1023, 9, cudalab::derive_seed(s, 108)),
      integer_case("width 1025", 1025, 9, cudalab::derive_seed(s, 109)),
      integer_case("mask 33", 4099, 33, cudalab::derive_seed(s, 110)),
  });
}

GRADED_CHECK("random sizes", "[lab01][correctness]", 20, Needs::gpu) {
  const std::uint64_t s = base_seed();
  std::vector<Conv1dCase> cases;
  for (std::uint64_t k = 0; k < 12; ++k) {
    const std::uint64_t seed = cudalab::derive_seed(s, 200 + k);
    const auto width = static_cast<int>(cudalab::random_int(seed, 1, 300000));
    const auto mask_width = static_cast<int>(2 * cudalab::random_int(seed + 1, 0, 15) + 1);
    cases.push_back(integer_case("random #" + std::to_string(k), width, mask_width, seed));
  }
  require_all_pass(cases);
}

GRADED_CHECK("float inputs within the error bound", "[lab01][correctness]", 10, Needs::gpu) {
  const std::uint64_t s = base_seed();
  require_all_pass({
      float_case("floats, mask 3", (1 << 20) + 7, 3, cudalab::derive_seed(s, 300)),
      float_case("floats, mask 9", (1 << 20) + 7, 9, cudalab::derive_seed(s, 301)),
      float_case("floats, mask 31", (1 << 20) + 7, 31, cudalab::derive_seed(s, 302)),
  });
}

GRADED_CHECK("largest size", "[lab01][correctness]", 10, Needs::gpu) {
  require_all_pass({integer_case("width 2^26 + 3, mask 9", (1 << 26) + 3, 9,
                                 cudalab::derive_seed(base_seed(), 400))});
}

namespace {

// The performance case: 2^26 floats (256 MiB in, 256 MiB out), mask 9.
constexpr int kPerfWidth = 1 << 26;
constexpr int kPerfMask = 9;

Workload perf_workload() {
  // Minimum DRAM traffic: read x once, write y once (the mask is 36 bytes).
  return {"width 2^26, mask 9", 2.0 * sizeof(float) * kPerfWidth, 2.0 * kPerfMask * kPerfWidth,
          true};
}

struct PerfData {
  Conv1dCase data =
      float_case("performance case", kPerfWidth, kPerfMask, cudalab::derive_seed(base_seed(), 500));
  cudalab::DeviceBuffer<float> x{data.x}, mask{data.mask}, y{data.x.size()};
  cudalab::Launch launch(Conv1dFn fn) {
    return [this, fn](cudaStream_t stream) {
      fn(x.data(), mask.data(), y.data(), kPerfWidth, kPerfMask, stream);
    };
  }
};

}  // namespace

GRADED_CHECK("performance vs reference", "[lab01][perf]", 25, Needs::gpu) {
  PerfData perf;
  // Correctness first, on this very workload (it also warms up the candidate).
  if (const std::string p = run_case(perf.data, lab01::candidate::conv1d_basic); !p.empty())
    FAIL("not timed: the output must be correct first\n" + p);
  grade_performance("01", perf.launch(lab01::candidate::conv1d_basic),
                    perf.launch(lab01::reference::conv1d_basic), perf_workload());
}

GRADED_CHECK("timing harness self-check", "[lab01][selfcheck]", 0, Needs::gpu) {
  PerfData perf;
  check_timing_harness(perf.launch(lab01::reference::conv1d_basic), perf_workload());
}
