// Lab 02 graded checks: tiled 1D convolution in shared memory.
//
// The cases are lab 01's (grader/support/conv1d), with widths that are rarely a multiple of any
// tile size and masks up to kMaxMaskWidth. The technique check reads the PTX of the candidate's
// file: conv1d_tiled_kernel must store the input tile to shared memory and compute from it; on a
// GPU, the kernels that conv1d_tiled launches are the ones judged. The
// sanitize label runs racecheck and synccheck besides memcheck: a missing __syncthreads() is a
// race even when the output happens to come out right.
#include "conv1d_check.h"
#include "grading.h"
#include "impls.h"
#include "launch_trace.h"
#include "technique.h"

using cudalab::grade::base_seed;

GRADED_CHECK("kernel reads its input tile from shared memory", "[lab02][technique]", 10,
             Needs::host) {
  using namespace cudalab::grade;
  const LaunchTrace trace =
      trace_launches([] { conv1d::run_case(conv1d::worked_example(), lab02::kCandidate); });
  require_candidate_technique(shared_tile_rule("conv1d_tiled_kernel", "the input tile"), trace);
}

GRADED_CHECK("course worked example", "[lab02][correctness]", 10, Needs::gpu) {
  conv1d::require_all_pass({conv1d::worked_example()}, lab02::kCandidate);
}

GRADED_CHECK("edge cases", "[lab02][correctness]", 15, Needs::gpu) {
  conv1d::require_all_pass(conv1d::edge_cases(base_seed(), lab02::kMaxMaskWidth),
                           lab02::kCandidate);
}

GRADED_CHECK("random sizes", "[lab02][correctness]", 15, Needs::gpu) {
  conv1d::require_all_pass(conv1d::random_cases(base_seed(), 12), lab02::kCandidate);
}

GRADED_CHECK("float inputs within the error bound", "[lab02][correctness]", 10, Needs::gpu) {
  conv1d::require_all_pass(conv1d::float_cases(base_seed()), lab02::kCandidate);
}

GRADED_CHECK("largest size", "[lab02][correctness][large]", 5, Needs::gpu) {
  conv1d::require_all_pass({conv1d::largest_case(base_seed())}, lab02::kCandidate);
}

GRADED_CHECK("performance vs reference", "[lab02][perf]", 20, Needs::gpu) {
  conv1d::grade_conv1d_performance("02", lab02::kCandidate, lab02::kReference);
}

GRADED_CHECK("timing harness self-check", "[lab02][selfcheck]", 0, Needs::gpu) {
  conv1d::PerfCase perf(base_seed());
  cudalab::grade::check_timing_harness(perf.launch(lab02::kReference),
                                       conv1d::PerfCase::workload());
}
