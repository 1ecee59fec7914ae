#include "conv1d_check.h"

#include <algorithm>
#include <cmath>

#include "conv1d_cpu.h"
#include "cudalab/device_data.h"
#include "cudalab/random.h"
#include "grading.h"
#include "harness.h"

namespace conv1d {

using cudalab::derive_seed;
using namespace cudalab::grade;

namespace {
double max_abs(const std::vector<float>& v) {
  double m = 0.0;
  for (float f : v) m = std::max(m, static_cast<double>(std::fabs(f)));
  return m;
}
}  // namespace

Conv1dCase integer_case(const std::string& name, int width, int mask_width, std::uint64_t seed) {
  return {name, cudalab::random_small_ints(width, seed, -8, 8),
          cudalab::random_small_ints(mask_width, derive_seed(seed, 1), -4, 4), seed, true};
}

Conv1dCase float_case(const std::string& name, int width, int mask_width, std::uint64_t seed) {
  return {name, cudalab::random_floats(width, seed, -1.0f, 1.0f),
          cudalab::random_floats(mask_width, derive_seed(seed, 1), -1.0f, 1.0f), seed, false};
}

Conv1dCase worked_example() {
  return {"X = 1..7, H = [3,4,5,4,3]", {1, 2, 3, 4, 5, 6, 7}, {3, 4, 5, 4, 3}};
}

std::vector<Conv1dCase> edge_cases(std::uint64_t s, int max_mask_width, int widest_mask_input) {
  return {
      integer_case("width 1, mask 1", 1, 1, derive_seed(s, 100)),
      integer_case("width 1, mask 5", 1, 5, derive_seed(s, 101)),
      integer_case("width 2, mask 3", 2, 3, derive_seed(s, 102)),
      integer_case("width 3 < mask 7", 3, 7, derive_seed(s, 103)),
      integer_case("width 5 < mask 31", 5, 31, derive_seed(s, 104)),
      integer_case("mask 1 (a scaling)", 1000, 1, derive_seed(s, 105)),
      integer_case("width 255", 255, 5, derive_seed(s, 106)),
      integer_case("width 257", 257, 5, derive_seed(s, 107)),
      integer_case("width 1023", 1023, 9, derive_seed(s, 108)),
      integer_case("width 1025", 1025, 9, derive_seed(s, 109)),
      integer_case("width 4099 (prime)", 4099, 33, derive_seed(s, 110)),
      integer_case("widest mask", widest_mask_input, max_mask_width, derive_seed(s, 111)),
  };
}

std::vector<Conv1dCase> random_cases(std::uint64_t s, int count, int max_width) {
  std::vector<Conv1dCase> cases;
  for (int k = 0; k < count; ++k) {
    const std::uint64_t seed = derive_seed(s, 200 + k);
    const auto width = static_cast<int>(cudalab::random_int(seed, 1, max_width));
    const auto mask_width = static_cast<int>(2 * cudalab::random_int(seed + 1, 0, 15) + 1);
    cases.push_back(integer_case("random #" + std::to_string(k), width, mask_width, seed));
  }
  return cases;
}

std::vector<Conv1dCase> float_cases(std::uint64_t s, int width) {
  return {
      float_case("floats, mask 3", width, 3, derive_seed(s, 300)),
      float_case("floats, mask 9", width, 9, derive_seed(s, 301)),
      float_case("floats, mask 31", width, 31, derive_seed(s, 302)),
  };
}

Conv1dCase largest_case(std::uint64_t s) {
  return integer_case("width 2^26 + 3, mask 9", (1 << 26) + 3, 9, derive_seed(s, 400));
}

std::string run_case(const Conv1dCase& c, const Conv1dVariant& v) {
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
    if (v.prepare) v.prepare(c.mask);
    CUDA_CHECK(cudaDeviceSynchronize());  // a mask copied from pageable memory has landed
    v.run({x.data(), mask.data(), y.data(), width, mask_width}, stream.get());
  } catch (const std::exception& e) {
    return info.header() + ": " + e.what();
  }
  if (std::string p = check_cuda_errors(info); !p.empty()) return p;
  const cudalab::Tolerance tol = c.integer_valued
                                     ? cudalab::Tolerance{0.0, 0.0}
                                     : conv1d_tolerance(mask_width, max_abs(c.mask), max_abs(c.x));
  if (std::string p = check_output(info, y, conv1d_cpu(c.x, c.mask), tol); !p.empty()) return p;
  if (std::string p = check_unchanged(info, x, c.x); !p.empty()) return p;
  return check_unchanged(info, mask, c.mask);
}

void require_all_pass(const std::vector<Conv1dCase>& cases, const Conv1dVariant& v) {
  require_cases_pass(cases, [&](const Conv1dCase& c) { return run_case(c, v); });
}

PerfCase::PerfCase(std::uint64_t seed)
    // The mask float_case would give; x from the device's generator (the same distribution).
    : host_mask(
          cudalab::random_floats(kMaskWidth, derive_seed(derive_seed(seed, 500), 1), -1.0f, 1.0f)),
      x(kWidth),
      mask(host_mask),
      y(kWidth) {
  cudalab::fill_uniform_async(x.data(), x.size(), derive_seed(seed, 500), -1.0f, 1.0f, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());  // non-blocking streams do not wait for the default one
}

cudalab::Launch PerfCase::launch(const Conv1dVariant& v) {
  if (v.prepare) v.prepare(host_mask);
  CUDA_CHECK(cudaDeviceSynchronize());
  return [this, run = v.run](cudaStream_t stream) {
    run({x.data(), mask.data(), y.data(), kWidth, kMaskWidth}, stream);
  };
}

Workload PerfCase::workload() {
  // Minimum DRAM traffic: read x once, write y once (the mask is 36 bytes); 2 flops per tap.
  return {"width 2^26, mask 9", 2.0 * sizeof(float) * kWidth, 2.0 * kMaskWidth * kWidth, true};
}

void grade_conv1d_performance(const std::string& lab, const Conv1dVariant& candidate,
                              const Conv1dVariant& reference, const ExecutionSignature& executed) {
  PerfCase perf(base_seed());
  // Every sample reads a fresh x (the same for the candidate's sample and the reference's after
  // it); each writes its own y, and every y (the untimed run's first, then every timed one) is
  // compared with the reference's.
  cudalab::DeviceBuffer<float> y_reference(PerfCase::kWidth);
  const std::uint64_t seed = derive_seed(base_seed(), 501);
  TimedRunChecks checks;
  checks.fresh_inputs = [&](std::uint64_t sample, cudaStream_t s) {
    cudalab::fill_uniform_async(perf.x.data(), PerfCase::kWidth, derive_seed(seed, sample), -1.0f,
                                1.0f, s);
  };
  // Each of the two is within the error bound of the exact result (|x| < 1).
  checks.outputs = {
      {"y", perf.y.data(), y_reference.data(), PerfCase::kWidth,
       between_results(conv1d_tolerance(PerfCase::kMaskWidth, max_abs(perf.host_mask), 1.0))}};
  checks.unchanged = {{"mask", perf.mask.data(), PerfCase::kMaskWidth * sizeof(float)}};
  checks.executed = executed;
  // launch() prepares each variant once; candidate and reference keep separate state (their
  // __constant__ symbols live in different namespaces), so interleaving their runs is safe.
  const cudalab::Launch reference_launch = [&, run = reference.run](cudaStream_t stream) {
    run({perf.x.data(), perf.mask.data(), y_reference.data(), PerfCase::kWidth,
         PerfCase::kMaskWidth},
        stream);
  };
  const cudalab::Launch candidate_launch = perf.launch(candidate);
  if (reference.prepare) reference.prepare(perf.host_mask);
  CUDA_CHECK(cudaDeviceSynchronize());
  grade_performance(lab, candidate_launch, reference_launch, PerfCase::workload(), checks);
}

}  // namespace conv1d
