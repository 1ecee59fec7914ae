// The parts of lab 04's grading support that FAIL the current Catch2 check; in a file of their
// own so that the runner, which links the rest of the support library, needs no Catch2.
#include "conv2d_check.h"
#include "grading.h"

namespace lab04 {

using cudalab::grade::base_seed;

namespace {

// Reports at most this many problems per check.
constexpr int kMaxReported = 3;

template <typename Case>
void require_all(const std::vector<Case>& cases, const Conv2dVariant& v) {
  std::string message;
  int failed = 0;
  for (const Case& c : cases) {
    const std::string problem = run_case(c, v);
    if (problem.empty()) continue;
    if (++failed <= kMaxReported) message += (message.empty() ? "" : "\n") + problem;
  }
  if (failed > kMaxReported)
    message += "\n(" + std::to_string(failed - kMaxReported) + " more of " +
               std::to_string(cases.size()) + " cases failed)";
  if (failed > 0) FAIL(message);
}

}  // namespace

void require_all_pass(const std::vector<FloatCase>& cases, const Conv2dVariant& v) {
  require_all(cases, v);
}
void require_all_pass(const std::vector<ByteCase>& cases, const Conv2dVariant& v) {
  require_all(cases, v);
}

void grade_conv2d_performance(const Conv2dVariant& candidate, const Conv2dVariant& reference) {
  PerfCase perf(base_seed());
  if (std::string p = perf.validate(candidate); !p.empty()) FAIL(p);
  grade_performance("04", perf.launch(candidate), perf.launch(reference), perf.workload());
}

}  // namespace lab04
