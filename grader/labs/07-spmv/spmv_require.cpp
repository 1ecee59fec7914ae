// The parts of lab 07's grading support that FAIL the current Catch2 check; in a file of their
// own so that the runner, which links the rest of the support library, needs no Catch2.
#include "grading.h"
#include "spmv_check.h"

namespace lab07 {

using cudalab::grade::base_seed;

void require_all_pass(const std::vector<MatrixCase>& cases, Format format, const SpmvVariant& v) {
  cudalab::grade::require_all_cases(cases,
                                    [&](const MatrixCase& c) { return run_case(c, format, v); });
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
