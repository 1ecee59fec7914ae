// The parts of lab 07's grading support that FAIL the current Catch2 check; in a file of their
// own so that the runner, which links the rest of the support library, needs no Catch2.
#include "grading.h"
#include "spmv_check.h"

namespace lab07 {

using cudalab::grade::base_seed;

namespace {

// Reports at most this many problems per check.
constexpr int kMaxReported = 3;

}  // namespace

void require_all_pass(const std::vector<MatrixCase>& cases, Format format, const SpmvVariant& v) {
  std::string message;
  int failed = 0;
  for (const MatrixCase& c : cases) {
    const std::string problem = run_case(c, format, v);
    if (problem.empty()) continue;
    if (++failed <= kMaxReported) message += (message.empty() ? "" : "\n") + problem;
  }
  if (failed > kMaxReported)
    message += "\n(" + std::to_string(failed - kMaxReported) + " more of " +
               std::to_string(cases.size()) + " cases failed)";
  if (failed > 0) FAIL(message);
}

void grade_spmv_performance(PerfMatrix m, Format format, const SpmvVariant& candidate,
                            const SpmvVariant& reference) {
  PerfCase perf(perf_matrix(m, base_seed()), format);
  if (std::string p = perf.validate(candidate); !p.empty())
    FAIL("not timed: the output must be correct first\n" + p);
  grade_performance("07", perf.launch(candidate), perf.launch(reference), perf.workload());
}

void check_spmv_timing_harness(const SpmvVariant& reference) {
  PerfCase perf(perf_matrix(PerfMatrix::poisson_2d, base_seed()), Format::csr_vector);
  cudalab::grade::check_timing_harness(perf.launch(reference), perf.workload());
}

}  // namespace lab07
