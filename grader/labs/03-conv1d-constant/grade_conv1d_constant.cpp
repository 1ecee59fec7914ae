// Lab 03 graded checks: the mask in constant memory.
//
// The cases are lab 01's (grader/support/conv1d); each uploads its mask with upload_mask()
// (untimed) before the run. Besides them: a second mask must replace the first, a mask wider than
// the constant buffer must be refused, and the technique check reads the PTX of the candidate's
// file: conv1d_constant_kernel must read the mask with ld.const (constant memory).
#include <stdexcept>

#include "conv1d_check.h"
#include "cudalab/random.h"
#include "grading.h"
#include "impls.h"
#include "launch_trace.h"
#include "technique.h"

using cudalab::grade::base_seed;

namespace {

// What a kernel that reads the mask from constant memory executes over `outputs` outputs of
// `taps` taps: global plus shared loads (each as if every lane did one) at most 1.5 x taps.
cudalab::grade::ExecutionSignature constant_mask_signature(double outputs, double taps) {
  using namespace cudalab::grade;
  return [=](const ExecutedWork& w, std::string* summary) {
    *summary = executed_summary(w.all, outputs, "output");
    const double loads = lanes_per_unit(
        ExecutedWork::of(w.all, "global_ld") + ExecutedWork::of(w.all, "shared_ld"), outputs);
    const std::string p =
        per_unit_problem(loads, 0, 1.5 * taps, "loads from global and shared memory", "output");
    return p.empty() ? p
                     : p + ": the mask must be read from constant memory, not from global or "
                           "shared memory";
  };
}

}  // namespace

GRADED_CHECK("kernel reads the mask from constant memory", "[lab03][technique]", 10, Needs::host) {
  using namespace cudalab::grade;
  const TechniqueRule rule = ptx_rule(
      "conv1d_constant_kernel",
      [](const KernelAnalysis& k, const std::string& label) -> std::string {
        if (k.problem.empty() && k.count("ld.const") == 0)
          return label + " (" + k.name +
                 ") has no ld.const in its PTX: the mask must be read from a __constant__ buffer";
        return accumulation_problem(k, label, kConstSpace, "the mask");
      });
  // On a GPU, what ran: 2^16 outputs with a mask of 9. The mask comes from the constant cache,
  // so the loads from memory per output are the inputs' alone: 9 global loads, or as many
  // floats from a shared tile plus its share of the tile's global loads (about 10), or fewer
  // from wider loads (the reference makes 0.8 global loads and no shared one). A mask read from
  // global memory, or staged in shared memory, adds 9 more: global plus shared loads (each as if
  // every lane did one), at most 1.5 x taps. (Shared-memory bytes would not do: a mask element
  // every lane reads at once is a broadcast, 4 bytes for the warp.)
  const conv1d::Conv1dCase c = conv1d::integer_case("technique", 1 << 16, 9, base_seed());
  const double outputs = static_cast<double>(c.x.size()), taps = 9;
  TechniqueRule counted = rule;
  counted.executed = constant_mask_signature(outputs, taps);
  const LaunchTrace trace =
      trace_launches([&c] { conv1d::run_case(c, lab03::kCandidate); }, Counting::on);
  require_candidate_technique(counted, trace);
}

GRADED_CHECK("course worked example", "[lab03][correctness]", 10, Needs::gpu) {
  conv1d::require_all_pass({conv1d::worked_example()}, lab03::kCandidate);
}

GRADED_CHECK("edge cases", "[lab03][correctness]", 10, Needs::gpu) {
  conv1d::require_all_pass(conv1d::edge_cases(base_seed(), lab03::kMaxMaskWidth),
                           lab03::kCandidate);
}

GRADED_CHECK("random sizes", "[lab03][correctness]", 15, Needs::gpu) {
  conv1d::require_all_pass(conv1d::random_cases(base_seed(), 12), lab03::kCandidate);
}

GRADED_CHECK("float inputs within the error bound", "[lab03][correctness]", 5, Needs::gpu) {
  conv1d::require_all_pass(conv1d::float_cases(base_seed()), lab03::kCandidate);
}

GRADED_CHECK("largest size", "[lab03][correctness][large]", 5, Needs::gpu) {
  conv1d::require_all_pass({conv1d::largest_case(base_seed())}, lab03::kCandidate);
}

GRADED_CHECK("a new mask replaces the old one", "[lab03][correctness]", 10, Needs::gpu) {
  // Three uploads in a row (new inputs each, the last mask narrower): a stale or partly copied
  // mask shows from the second on.
  const std::uint64_t s = cudalab::derive_seed(base_seed(), 600);
  conv1d::require_all_pass({conv1d::integer_case("first mask", 5000, 9, s),
                            conv1d::integer_case("second mask", 5000, 9, s + 1),
                            conv1d::integer_case("third mask, narrower", 5000, 3, s + 2)},
                           lab03::kCandidate);
}

GRADED_CHECK("a mask wider than the constant buffer is refused", "[lab03][correctness]", 5,
             Needs::gpu) {
  const std::vector<float> too_wide(lab03::kMaxMaskWidth + 2, 1.0f);
  try {
    lab03::candidate::upload_mask(too_wide.data(), static_cast<int>(too_wide.size()));
  } catch (const std::invalid_argument& e) {
    INFO("refused with: " << e.what());
    SUCCEED();
    return;
  } catch (const std::exception& e) {
    FAIL("upload_mask(" << too_wide.size()
                        << " floats) threw, but not std::invalid_argument: " << e.what());
  }
  FAIL("upload_mask accepted a mask of " << too_wide.size() << " floats; the constant buffer holds "
                                         << lab03::kMaxMaskWidth
                                         << ": it must throw std::invalid_argument");
}

GRADED_CHECK("performance vs reference", "[lab03][perf][profile]", 20, Needs::gpu) {
  // The kernel timed must read the mask from constant memory too (perf.h,
  // TimedRunChecks::executed): the technique check's bound at 2^26 outputs and a mask of 9.
  conv1d::grade_conv1d_performance(
      "03", lab03::kCandidate, lab03::kReference,
      constant_mask_signature(conv1d::PerfCase::kWidth, conv1d::PerfCase::kMaskWidth));
}

GRADED_CHECK("timing harness self-check", "[lab03][selfcheck]", 0, Needs::gpu) {
  conv1d::PerfCase perf(base_seed());
  cudalab::grade::check_timing_harness(perf.launch(lab03::kReference),
                                       conv1d::PerfCase::workload());
}
