// The parts of lab 04's grading support that FAIL the current Catch2 check; in a file of their
// own so that the runner, which links the rest of the support library, needs no Catch2.
#include "conv2d_check.h"
#include "grading.h"

namespace lab04 {

using cudalab::grade::base_seed;

void require_all_pass(const std::vector<FloatCase>& cases, const Conv2dVariant& v) {
  cudalab::grade::require_all_cases(cases, [&](const FloatCase& c) { return run_case(c, v); });
}
void require_all_pass(const std::vector<ByteCase>& cases, const Conv2dVariant& v) {
  cudalab::grade::require_all_cases(cases, [&](const ByteCase& c) { return run_case(c, v); });
}

void grade_conv2d_performance(const Conv2dVariant& candidate, const Conv2dVariant& reference) {
  PerfCase perf(base_seed());
  if (std::string p = perf.validate(candidate); !p.empty()) FAIL(p);
  grade_performance("04", perf.launch(candidate), perf.launch(reference), perf.workload());
}

}  // namespace lab04
