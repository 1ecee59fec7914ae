// Lab 01 graded checks: 1D convolution, one thread per output.
//
// Every case runs the candidate on guarded device buffers (sentinel-filled output, guard zones on
// every array), then checks: no CUDA error, guards intact, output equal to the CPU reference
// (exact for integer-valued data, within the error bound of conv1d_cpu.h for floats), inputs
// unchanged. Performance is timed only after an untimed run of the candidate matched the
// reference's on the performance workload (compared on the device).
// The cases and the runner are shared with labs 02 and 03 (grader/support/conv1d).
#include "conv1d_check.h"
#include "conv1d_cpu.h"
#include "grading.h"
#include "impls.h"

namespace {

using cudalab::grade::base_seed;

const conv1d::Conv1dVariant kCandidate =
    conv1d::global_mask_variant("student", &lab01::candidate::conv1d_basic);
const conv1d::Conv1dVariant kReference =
    conv1d::global_mask_variant("reference", &lab01::reference::conv1d_basic);

}  // namespace

GRADED_CHECK("CPU reference reproduces the course example", "[lab01][correctness][host]", 0,
             Needs::host) {
  const auto y = conv1d::conv1d_cpu({1, 2, 3, 4, 5, 6, 7}, {3, 4, 5, 4, 3});
  REQUIRE(y[2] == 57.0);
  REQUIRE(y[3] == 76.0);
}

GRADED_CHECK("course worked example", "[lab01][correctness]", 10, Needs::gpu) {
  // seed 000: X = 1..7, H = [3,4,5,4,3] gives Y[2] = 57 and Y[3] = 76; Y[1] uses one ghost.
  conv1d::require_all_pass({conv1d::worked_example()}, kCandidate);
}

GRADED_CHECK("edge cases", "[lab01][correctness]", 15, Needs::gpu) {
  conv1d::require_all_pass(conv1d::edge_cases(base_seed(), 101), kCandidate);
}

GRADED_CHECK("random sizes", "[lab01][correctness]", 20, Needs::gpu) {
  conv1d::require_all_pass(conv1d::random_cases(base_seed(), 12), kCandidate);
}

GRADED_CHECK("float inputs within the error bound", "[lab01][correctness]", 10, Needs::gpu) {
  conv1d::require_all_pass(conv1d::float_cases(base_seed()), kCandidate);
}

GRADED_CHECK("largest size", "[lab01][correctness][large]", 10, Needs::gpu) {
  conv1d::require_all_pass({conv1d::largest_case(base_seed())}, kCandidate);
}

GRADED_CHECK("performance vs reference", "[lab01][perf][profile]", 25, Needs::gpu) {
  conv1d::grade_conv1d_performance("01", kCandidate, kReference);
}

GRADED_CHECK("timing harness self-check", "[lab01][selfcheck]", 0, Needs::gpu) {
  conv1d::PerfCase perf(base_seed());
  cudalab::grade::check_timing_harness(perf.launch(kReference), conv1d::PerfCase::workload());
}
