// Lab 02 graded checks: tiled 1D convolution in shared memory.
//
// The cases are lab 01's (grader/support/conv1d), with widths that are rarely a multiple of any
// tile size and masks up to kMaxMaskWidth. The technique check reads the PTX of the candidate's
// file: conv1d_tiled_kernel must store the input tile to shared memory and read it back. The
// sanitize label runs racecheck and synccheck besides memcheck: a missing __syncthreads() is a
// race even when the output happens to come out right.
#include "conv1d_check.h"
#include "grading.h"
#include "impls.h"
#include "technique.h"

using cudalab::grade::base_seed;

GRADED_CHECK("kernel reads its input tile from shared memory", "[lab02][technique]", 10,
             Needs::host) {
  using namespace cudalab::grade;
  const std::string problem = technique_problem(
      candidate_ptx(), "conv1d_tiled_kernel", {kSharedStores, kSharedLoads, kBarriers},
      [](const KernelInstructions& k) -> std::string {
        if (has_shared_tile(k)) return "";
        return "conv1d_tiled_kernel (" + k.kernel + ") has " + std::to_string(k["st.shared"]) +
               " st.shared, " + std::to_string(k["ld.shared"]) + " ld.shared and " +
               std::to_string(k["barrier"]) +
               " barrier instruction(s) in its PTX: the input tile must be stored to shared "
               "memory, synchronized, and read back from there";
      });
  if (!problem.empty()) FAIL(problem);
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
