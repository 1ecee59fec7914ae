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
  // On a GPU, what ran: 2^16 outputs with a mask of 9. A tiled kernel reads each input from
  // global memory once per block (tile + halo: about 1/8 of a 32-byte sector per output) plus the
  // mask's 9 uniform loads (1 sector per warp each); an untiled one reads 9 inputs per output
  // (about 4.5 sectors per warp and tap). The taps read the tile: shared loads, fewer than one
  // per tap when a thread keeps several outputs and loads 16 bytes at once (the reference: 0.75
  // per output on an H200). Global loads, the bound the judge's own count reads: the mask's 9 per
  // output (where the kernel reads it from global memory in its loop) and the tile's about 1, an
  // untiled kernel 9 more; at most 1.5 per tap.
  const conv1d::Conv1dCase c = conv1d::integer_case("technique", 1 << 16, 9, base_seed());
  const double outputs = static_cast<double>(c.x.size()), taps = 9;
  TechniqueRule rule = shared_tile_rule("conv1d_tiled_kernel", "the input tile");
  rule.executed = shared_tile_signature(outputs, 1.5 * taps, 0.5 + taps / 32);
  const LaunchTrace trace =
      trace_launches([&c] { conv1d::run_case(c, lab02::kCandidate); }, Counting::on);
  require_candidate_technique(rule, trace);
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

GRADED_CHECK("performance vs reference", "[lab02][perf][profile]", 20, Needs::gpu) {
  // The kernel timed must be the lesson's too (perf.h, TimedRunChecks::executed): where the grade
  // command counts a few timed calls on the GPU, the technique check's bound on global loads per
  // output at 2^26 outputs and a mask of 9, and the taps read from shared memory. A kernel
  // chosen by size, tiled only at the technique check's, fails here.
  using conv1d::PerfCase;
  constexpr double taps = PerfCase::kMaskWidth;
  conv1d::grade_conv1d_performance(
      "02", lab02::kCandidate, lab02::kReference,
      cudalab::grade::shared_tile_signature(PerfCase::kWidth, 1.5 * taps, 0.5 + taps / 32));
}

GRADED_CHECK("timing harness self-check", "[lab02][selfcheck]", 0, Needs::gpu) {
  conv1d::PerfCase perf(base_seed());
  cudalab::grade::check_timing_harness(perf.launch(lab02::kReference),
                                       conv1d::PerfCase::workload());
}
