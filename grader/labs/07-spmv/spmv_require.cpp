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
  // Row i of each y is within spmv_error_bound of the exact sum, so the two within twice that,
  // row by row: each row's bound with |x_j| <= 1 (x all ones), which holds for every sample's x.
  // One tolerance for every row (the longest row's, ~1 on the power-law matrix) let a file skip
  // an entry of every row, about 11% of the work, and pass (test_spmv.cpp shows both).
  std::vector<float> row_atol = cudalab::sparse::spmv_row_error_bounds(perf.matrix.a);
  for (float& t : row_atol) t *= 2.0f;  // exact in float: a power of two
  const cudalab::DeviceBuffer<float> atol_each(row_atol);
  TimedOutput y{"y", perf.y.data(), y_reference.data(), perf.y.size(),
                cudalab::Tolerance{0.0, 0.0}};
  y.atol_each = atol_each.data();
  checks.outputs = {y};
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
