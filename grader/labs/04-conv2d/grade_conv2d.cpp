// Lab 04 graded checks: 2D convolution on images.
//
// Correctness against the double CPU reference (conv2d_cpu.h): the course's worked example
// (sharpen gives 89), every filter of the course's table on grayscale and RGB images, shapes
// that are no multiple of any tile (1 x 1, 1 x N, N x 1, non-square, narrower than the mask),
// random masks 1 x 1 to 9 x 9, the 8-bit rule (clamping and rounding ties), the real photos, a
// new mask replacing the old, and a large RGB image. Float cases with integer values are compared
// exactly; the others within the error bound of conv2d_tolerance; 8-bit outputs exactly. (Under
// a sanitizer the photos are cropped.)
// The technique check reads the candidate's PTX: conv2d_tiled_kernel must stage its input tile
// in shared memory. The sanitize label runs memcheck, racecheck and synccheck.
#include "conv2d_cpu.h"
#include "grading.h"
#include "impls.h"
#include "launch_trace.h"
#include "technique.h"

using cudalab::grade::base_seed;

GRADED_CHECK("kernel stages its input tile in shared memory", "[lab04][technique]", 10,
             Needs::host) {
  using namespace cudalab::grade;
  // On a GPU, what ran on a 256 x 256 float image with a 5 x 5 mask: a tiled kernel reads each
  // input from global memory once per tile (tile + halo: well under a 32-byte sector per output),
  // where reading 25 taps per output costs about 4.5 sectors per warp and tap; the taps read the
  // tile (shared loads: fewer than the taps when a thread keeps several outputs). Global loads,
  // the bound the judge's own count reads: the mask is in constant memory, so a tiled kernel
  // makes (tile + halo)^2 / tile^2 per output (4 for tiles of 4 x 4), an untiled one 25; at most
  // half the taps.
  lab04::FloatCase c;
  c.name = "technique, 256 x 256, 5 x 5";
  c.width = c.height = 256;
  c.mask_width = 5;
  c.image.resize(static_cast<std::size_t>(c.width) * c.height);
  for (std::size_t i = 0; i < c.image.size(); ++i) c.image[i] = static_cast<float>(i % 7) / 7.0f;
  c.mask.assign(25, 1.0f / 25);
  const double outputs = static_cast<double>(c.width) * c.height;
  TechniqueRule rule = shared_tile_rule("conv2d_tiled_kernel", "the input tile (with its halo)");
  const double taps = static_cast<double>(c.mask_width) * c.mask_width;
  rule.executed = shared_tile_signature(outputs, taps / 2, 1.0);
  const LaunchTrace trace = trace_launches(
      [&c] {
        lab04::run_case(lab04::worked_example_float(), lab04::kCandidate);
        lab04::run_case(lab04::worked_example_8bit(), lab04::kCandidate);
        lab04::run_case(c, lab04::kCandidate);
      },
      Counting::on);
  require_candidate_technique(rule, trace);
}

GRADED_CHECK("course worked example: sharpen gives 89", "[lab04][correctness]", 8, Needs::gpu) {
  lab04::require_all_pass({lab04::worked_example_float()}, lab04::kCandidate);
  lab04::require_all_pass({lab04::worked_example_8bit()}, lab04::kCandidate);
}

GRADED_CHECK("every course filter, grayscale and RGB", "[lab04][correctness]", 12, Needs::gpu) {
  lab04::require_all_pass(lab04::filter_float_cases(base_seed()), lab04::kCandidate);
  lab04::require_all_pass(lab04::filter_8bit_cases(base_seed()), lab04::kCandidate);
}

GRADED_CHECK("image shapes: 1 x 1, 1 x N, N x 1, non-square, partial tiles", "[lab04][correctness]",
             12, Needs::gpu) {
  lab04::require_all_pass(lab04::shape_cases(base_seed()), lab04::kCandidate);
}

GRADED_CHECK("random masks 1 x 1 to 9 x 9", "[lab04][correctness]", 8, Needs::gpu) {
  lab04::require_all_pass(lab04::random_mask_cases(base_seed()), lab04::kCandidate);
}

GRADED_CHECK("8-bit output: clamping to [0, 255] and rounding half up", "[lab04][correctness]", 10,
             Needs::gpu) {
  lab04::require_all_pass(lab04::clamp_and_rounding_cases(), lab04::kCandidate);
}

GRADED_CHECK("real photos, 8-bit", "[lab04][correctness]", 5, Needs::gpu) {
  std::vector<std::string> missing;
  const auto cases = lab04::photo_cases(&missing);
  if (!missing.empty()) {
    cudalab::grade::skip_check(
        "photos not found (scripts/fetch-data installs them; or set CUDALAB_DATA_DIR): " +
        missing.front() +
        (missing.size() > 1 ? " and " + std::to_string(missing.size() - 1) + " more" : ""));
    return;
  }
  // Under a sanitizer, which slows a kernel that uses shared memory down a hundredfold, the centre
  // 150 x 100 of each photo: grayscale and RGB, both filters, several blocks, partial tiles.
  lab04::require_all_pass(
      cudalab::grade::under_sanitizer() ? lab04::center_crops(cases, 150, 100) : cases,
      lab04::kCandidate);
}

GRADED_CHECK("a new mask replaces the old one", "[lab04][correctness]", 3, Needs::gpu) {
  lab04::require_all_pass(lab04::new_mask_cases(base_seed()), lab04::kCandidate);
}

GRADED_CHECK("masks of the wrong width are refused", "[lab04][correctness]", 0, Needs::gpu) {
  // Not graded (the skeleton provides the check), but it keeps the solution honest.
  for (const int bad : {0, 2, lab04::kMaxMaskWidth + 2}) {
    const std::vector<float> mask(static_cast<std::size_t>(bad) * bad + 1, 1.0f);
    CHECK_THROWS_AS(lab04::kCandidate.set_mask(mask.data(), bad), std::invalid_argument);
  }
}

GRADED_CHECK("large RGB image", "[lab04][correctness][large]", 4, Needs::gpu) {
  lab04::require_all_pass(lab04::large_cases(base_seed()), lab04::kCandidate);
}

GRADED_CHECK("performance vs reference", "[lab04][perf][profile]", 16, Needs::gpu) {
  // The kernel timed must be the lesson's too (perf.h, TimedRunChecks::executed): where the grade
  // command counts a few timed calls on the GPU, the technique check's bound on global loads per
  // output at 8192 x 8192 outputs and a 5 x 5 mask, and the taps read from shared memory.
  using lab04::PerfCase;
  constexpr double outputs = static_cast<double>(PerfCase::kSide) * PerfCase::kSide;
  constexpr double taps = PerfCase::kMaskWidth * PerfCase::kMaskWidth;
  lab04::grade_conv2d_performance(lab04::kCandidate, lab04::kReference,
                                  cudalab::grade::shared_tile_signature(outputs, taps / 2, 1.0));
}

GRADED_CHECK("timing harness self-check", "[lab04][selfcheck]", 0, Needs::gpu) {
  lab04::PerfCase perf(base_seed());
  cudalab::grade::check_timing_harness(perf.launch(lab04::kReference), perf.workload());
}
