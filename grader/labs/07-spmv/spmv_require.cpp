// The parts of lab 07's grading support that FAIL the current Catch2 check; in a file of their
// own so that the runner, which links the rest of the support library, needs no Catch2.
#include "cudalab/device_data.h"
#include "cudalab/random.h"
#include "grading.h"
#include "spmv_check.h"

namespace lab07 {

using cudalab::derive_seed;
using namespace cudalab::grade;

void require_all_pass(const std::vector<MatrixCase>& cases, Format format, const SpmvVariant& v) {
  cudalab::grade::require_all_cases(cases,
                                    [&](const MatrixCase& c) { return run_case(c, format, v); });
}

void grade_spmv_performance(PerfMatrix m, Format format, const SpmvVariant& candidate,
                            const SpmvVariant& reference) {
  // Only this format goes to the device, and no CPU result is computed: grade_performance runs
  // the candidate and the reference once on the same x first and compares their y (the
  // correctness checks compared the same code with the CPU's y, row by row).
  const ContextWarmup context;  // while the matrix is generated
  PerfCase perf(perf_matrix(m, base_seed(), 0, /*with_x=*/false), format);
  // The matrix is built once, in this format, before timing (building it is not the timed
  // call's work), so it stays, and must stay (compared on the device after the last run); x does
  // not: every sample reads a fresh x in [-1, 1) (the same for the candidate's sample and the
  // reference's after it), and each writes its own y, compared with the other's after every
  // sample.
  cudalab::DeviceBuffer<float> y_reference(perf.y.size());
  const std::uint64_t seed = derive_seed(base_seed(), 7910);
  TimedRunChecks checks;
  checks.fresh_inputs = [&](std::uint64_t sample, cudaStream_t s) {
    cudalab::fill_uniform_async(perf.x.data(), perf.x.size(), derive_seed(seed, sample), -1.0f,
                                1.0f, s);
  };
  // Row i of each y is within spmv_error_bound of the exact sum, so the two within twice that;
  // one tolerance serves every row: the largest bound with |x_j| <= 1, i.e. x all ones. On 2D
  // Poisson that is ~5e-6; on power-law rows the longest rows make it ~1, loose for short rows,
  // but a y that was cached, left unwritten or computed from part of the entries still differs.
  const double atol = 2.0 * cudalab::sparse::spmv_max_error_bound(perf.matrix.a);
  checks.outputs = {
      {"y", perf.y.data(), y_reference.data(), perf.y.size(), cudalab::Tolerance{atol, 0.0}}};
  checks.unchanged = perf.device.regions();
  grade_performance("07", perf.launch(candidate), perf.launch(reference, y_reference.data()),
                    perf.workload(), checks);
}

void check_spmv_timing_harness(const SpmvVariant& reference) {
  const ContextWarmup context;  // while the matrix is generated
  PerfCase perf(perf_matrix(PerfMatrix::poisson_2d, base_seed(), 0, /*with_x=*/false),
                Format::csr_vector);
  cudalab::grade::check_timing_harness(perf.launch(reference), perf.workload());
}

}  // namespace lab07
