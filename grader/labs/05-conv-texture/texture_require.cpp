// The parts of lab 05's grading support that FAIL the current Catch2 check; in a file of their
// own so that the runner, which links the rest of the support library, needs no Catch2.
#include "grading.h"
#include "texture_check.h"

namespace lab05 {

using namespace cudalab::grade;

namespace {

template <typename Case, typename Variant, typename Run>
void require_all(const std::vector<Case>& cases, const Variant& v, Run run) {
  std::vector<std::string> problems;
  for (const auto& c : cases)
    if (std::string p = run(c, v); !p.empty()) problems.push_back(p);
  if (problems.empty()) return;
  std::string message =
      std::to_string(problems.size()) + " of " + std::to_string(cases.size()) + " case(s) failed";
  for (std::size_t i = 0; i < problems.size() && i < 3; ++i) message += "\n" + problems[i];
  FAIL(message);
}

}  // namespace

void require_all_conv(const std::vector<ConvCase>& cases, const ConvVariant& v) {
  require_all(cases, v, run_conv_case);
}

void require_all_rotation(const std::vector<RotationCase>& cases, const RotationVariant& v) {
  require_all(cases, v, run_rotation_case);
}

void grade_conv_performance(const std::string& lab, const ConvVariant& candidate,
                            const ConvVariant& reference) {
  ConvPerfCase perf;
  // Correctness first, on this very workload (it also warms the candidate up).
  if (const std::string p = run_conv_case(perf.data, candidate); !p.empty())
    FAIL("not timed: the output must be correct first\n" + p);
  // Each variant loads its own texture before it is timed (the candidate's run_conv_case above
  // already did; the reference's is loaded here).
  const cudalab::Launch c = perf.launch(candidate);
  const cudalab::Launch r = perf.launch(reference);
  grade_performance(lab, c, r, perf.workload());
}

}  // namespace lab05
