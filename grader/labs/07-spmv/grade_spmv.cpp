// Lab 07 graded checks: sparse matrix-vector multiply in CSR (scalar and vector), ELL, COO, HYB.
//
// Correctness: every format on every matrix class (spmv_check.h: the worked example, 2D and 3D
// Poisson, power-law rows, one very long row, empty rows, random, 1 x 1, wide and tall
// matrices), compared row by row with the double CPU reference within the per-row error bound
// gamma(len) * sum |a_ij x_j| (cudalab/sparse/formats.h); the real r-cran-matrix matrices when
// installed (skipped, never passed, otherwise). Performance: each format against the reference's
// same format on the 2D Poisson matrix of a 2048 x 2048 grid, and on power-law rows (not ELL).
// The technique checks read the candidate's PTX: the CSR vector kernel must reduce with warp
// shuffles, the COO kernel must add into y with atomics. The sanitize label runs memcheck and
// racecheck.
#include <functional>

#include "grading.h"
#include "impls.h"
#include "launch_trace.h"
#include "technique.h"

using cudalab::grade::base_seed;
using lab07::Format;
using lab07::PerfMatrix;

namespace {

// FAILs unless every kernel named `kernel` that the candidate's `format` launched (its PTX alone
// without a GPU) has, with its helpers, an instruction starting with one of `opcodes`; `what` and
// `why` word the failure.
// On a GPU, `signature` (when set) judges what the kernels executed on `signature_case` instead
// of the worked example.
void require_instructions(
    Format format, const std::string& kernel, const std::vector<std::string>& opcodes,
    const std::string& what, const std::string& why,
    const std::function<std::string(const cudalab::grade::ExecutedWork&, std::string*)>& signature =
        nullptr,
    const lab07::MatrixCase* signature_case = nullptr) {
  using namespace cudalab::grade;
  std::string names;
  for (const std::string& op : opcodes) names += (names.empty() ? "" : " or ") + op;
  TechniqueRule rule =
      ptx_rule(kernel, [=](const KernelAnalysis& k, const std::string& label) -> std::string {
        if (!k.problem.empty()) return label + " (" + k.name + "): " + k.problem;
        for (const std::string& op : opcodes)
          if (k.count(op) > 0) return "";
        return what + " in " + label + ":\nits PTX (" + k.name + ") has no " + names +
               " instruction; " + why;
      });
  rule.executed = signature;
  const LaunchTrace trace = trace_launches(
      [format, signature_case] {
        lab07::run_case(signature_case != nullptr ? *signature_case : lab07::worked_example(),
                        format, lab07::kCandidate);
      },
      signature ? Counting::on : Counting::off);
  require_candidate_technique(rule, trace);
}

// Correctness of one format on every generated matrix class.
void require_every_class(Format format) {
  lab07::require_all_pass(lab07::generated_cases(base_seed()), format, lab07::kCandidate);
}

// Performance of one format against the reference's same format.
void grade_performance(PerfMatrix matrix, Format format) {
  lab07::grade_spmv_performance(matrix, format, lab07::kCandidate, lab07::kReference);
}

}  // namespace

GRADED_CHECK("CSR vector kernel reduces with warp shuffles", "[lab07][technique]", 5, Needs::host) {
  // On a GPU, what ran on the 2D Poisson matrix of a 256 x 256 grid (65 536 rows of up to 5
  // entries): L lanes per row reduce with log2(L) shuffles each, L log2(L) per row (160 for a
  // warp per row, 8 for 4 lanes); a thread per row has nothing to shuffle.
  const lab07::MatrixCase c = lab07::perf_matrix(PerfMatrix::poisson_2d, base_seed(), 256);
  const double rows = static_cast<double>(c.a.rows);
  require_instructions(
      Format::csr_vector, "spmv_csr_vector_kernel", {"shfl.sync"}, "no warp shuffle",
      "the lanes of a row must combine their partial sums with __shfl_down_sync (registers), not "
      "through shared or global memory",
      [rows](const cudalab::grade::ExecutedWork& w, std::string* summary) -> std::string {
        using namespace cudalab::grade;
        *summary = executed_summary(w.all, rows, "row");
        // Where the GPU counts no shuffles: a row's loads come from one warp's few lanes (about
        // one warp load per row and array: 32 on this scale), where a thread per row shares
        // each warp load among 32 rows (about 17 for rows of 5).
        const bool shuffles = w.named.count("shfl") > 0;
        const std::string p =
            shuffles
                ? per_unit_problem(lanes_per_unit(ExecutedWork::of(w.named, "shfl"), rows), 3, 1e9,
                                   "shuffles", "row")
                : per_unit_problem(lanes_per_unit(ExecutedWork::of(w.named, "global_ld"), rows), 24,
                                   1e9, "global loads", "row");
        return p.empty() ? p : p + ": several lanes must share each row and reduce with shuffles";
      },
      &c);
}

GRADED_CHECK("COO kernel adds into y with atomics", "[lab07][technique]", 5, Needs::host) {
  require_instructions(Format::coo, "spmv_coo_kernel", {"atom", "red"}, "no atomic add",
                       "threads of the same row add into y[row] at the same time: use atomicAdd "
                       "(after a segmented reduction if you like)");
}

GRADED_CHECK("CSR scalar: every matrix class", "[lab07][correctness]", 9, Needs::gpu) {
  require_every_class(Format::csr_scalar);
}

GRADED_CHECK("CSR vector: every matrix class", "[lab07][correctness]", 9, Needs::gpu) {
  require_every_class(Format::csr_vector);
}

GRADED_CHECK("ELL: every matrix class", "[lab07][correctness]", 9, Needs::gpu) {
  require_every_class(Format::ell);
}

GRADED_CHECK("COO: every matrix class", "[lab07][correctness]", 9, Needs::gpu) {
  require_every_class(Format::coo);
}

GRADED_CHECK("HYB: every matrix class", "[lab07][correctness]", 9, Needs::gpu) {
  require_every_class(Format::hyb);
}

GRADED_CHECK("real matrices (r-cran-matrix): every format", "[lab07][correctness]", 5, Needs::gpu) {
  std::vector<std::string> missing;
  const auto cases = lab07::real_cases(&missing);
  if (!missing.empty()) {
    cudalab::grade::skip_check(
        "matrices not found (scripts/fetch-data matrices installs them; or set "
        "CUDALAB_DATA_DIR): " +
        missing.front() +
        (missing.size() > 1 ? " and " + std::to_string(missing.size() - 1) + " more" : ""));
    return;
  }
  for (const Format f : lab07::all_formats()) lab07::require_all_pass(cases, f, lab07::kCandidate);
}

// Performance: 4 points per format on 2D Poisson, 10 more on power-law rows.
GRADED_CHECK("performance vs reference: CSR scalar on 2D Poisson", "[lab07][perf]", 4, Needs::gpu) {
  grade_performance(PerfMatrix::poisson_2d, Format::csr_scalar);
}

GRADED_CHECK("performance vs reference: CSR vector on 2D Poisson", "[lab07][perf][profile]", 4,
             Needs::gpu) {
  grade_performance(PerfMatrix::poisson_2d, Format::csr_vector);
}

GRADED_CHECK("performance vs reference: ELL on 2D Poisson", "[lab07][perf]", 4, Needs::gpu) {
  grade_performance(PerfMatrix::poisson_2d, Format::ell);
}

GRADED_CHECK("performance vs reference: COO on 2D Poisson", "[lab07][perf]", 4, Needs::gpu) {
  grade_performance(PerfMatrix::poisson_2d, Format::coo);
}

GRADED_CHECK("performance vs reference: HYB on 2D Poisson", "[lab07][perf]", 4, Needs::gpu) {
  grade_performance(PerfMatrix::poisson_2d, Format::hyb);
}

GRADED_CHECK("performance vs reference: CSR scalar on power-law rows", "[lab07][perf]", 2,
             Needs::gpu) {
  grade_performance(PerfMatrix::power_law, Format::csr_scalar);
}

GRADED_CHECK("performance vs reference: CSR vector on power-law rows", "[lab07][perf]", 3,
             Needs::gpu) {
  grade_performance(PerfMatrix::power_law, Format::csr_vector);
}

GRADED_CHECK("performance vs reference: COO on power-law rows", "[lab07][perf]", 2, Needs::gpu) {
  grade_performance(PerfMatrix::power_law, Format::coo);
}

GRADED_CHECK("performance vs reference: HYB on power-law rows", "[lab07][perf]", 3, Needs::gpu) {
  grade_performance(PerfMatrix::power_law, Format::hyb);
}

GRADED_CHECK("timing harness self-check", "[lab07][selfcheck]", 0, Needs::gpu) {
  lab07::check_spmv_timing_harness(lab07::kReference);
}
