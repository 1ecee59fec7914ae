// Lab 07 grading support: the formats, an implementation as an SpmvVariant, the matrix classes,
// running one case on guarded device buffers against the double CPU reference with its per-row
// error bound, and the performance workloads.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudalab/device_buffer.h"
#include "cudalab/sparse/formats.h"
#include "cudalab/timing.h"
#include "harness.h"
#include "perf.h"
#include "spmv.h"

namespace lab07 {

using cudalab::sparse::CsrMatrix;

enum class Format { csr_scalar, csr_vector, ell, coo, hyb };

// "csr-scalar", "csr-vector", "ell", "coo", "hyb" (the runner's --format names).
const char* format_name(Format f);
const std::vector<Format>& all_formats();
// Throws std::invalid_argument for an unknown name.
Format parse_format(const std::string& name);

// One implementation of spmv.h (the student's, the reference).
struct SpmvVariant {
  std::string name;
  void (*csr_scalar)(const CsrView&, const float*, float*, cudaStream_t);
  void (*csr_vector)(const CsrView&, const float*, float*, cudaStream_t);
  void (*ell)(const EllView&, const float*, float*, cudaStream_t);
  void (*coo)(const CooView&, const float*, float*, cudaStream_t);
  void (*hyb)(const HybView&, const float*, float*, cudaStream_t);
};

// A matrix and the x it is multiplied by.
struct MatrixCase {
  std::string name;
  CsrMatrix a;
  std::vector<float> x;
  std::uint64_t seed = 0;  // 0: fixed data
};

// The worked example of docs/labs/07-spmv.md: 4 x 4, 7 entries, an empty row, ELL width 3,
// HYB width 2 with one entry in COO; x = (1, 2, 3, 4) gives y = (6, 0, 20, 5) exactly.
MatrixCase worked_example();
// Every generated matrix class: 2D and 3D Poisson, power-law rows, one very long row, empty rows
// (the first and last among them), random (uniform and small-integer values), 1 x 1, more columns
// than rows and more rows than columns; sizes no multiple of a warp or a block.
std::vector<MatrixCase> generated_cases(std::uint64_t seed);
// The real matrices (r-cran-matrix: pores_1, lund_a, jgl009) found in the data folder
// (CUDALAB_DATA_DIR, default <source>/data, as matrices/NAME) or where the package installs them;
// `missing` gets the names not found.
std::vector<MatrixCase> real_cases(std::vector<std::string>* missing);
std::string data_dir();

// Per-row comparison: row i passes iff got[i] is a number and |got[i] - expected[i]| <= bound[i]
// (cudalab::sparse::spmv_error_bound, derived there). "" when every row passes; otherwise
// "N of M rows of y differ ..." and the first 10 rows "row i: expected E, got G (bound B)".
std::string compare_rows(const std::vector<float>& got, const std::vector<double>& expected,
                         const std::vector<double>& bound);

// Effective bytes of one CSR SpMV, the minimum DRAM traffic of y = A x, used for every format so
// that their GB/s compare the same work:
//   nnz * (4 + 4)      values and column indices, read once
//   + (rows + 1) * 4   row_ptr
//   + rows * 4         y written once
//   + cols * 4         x read once (every later read of x hits the caches)
double spmv_effective_bytes(long long rows, long long cols, long long nnz);
// Operations: a multiply and an add per entry.
inline double spmv_flops(long long nnz) {
  return 2.0 * static_cast<double>(nnz);
}

// One format of a matrix on the device, each array in a GuardedBuffer, with the view to pass.
class DeviceFormat {
 public:
  // The correctness checks' build: the format made on the host (cudalab::sparse::csr_to_ell, ...),
  // uploaded, and a host copy of every array kept for check_unchanged. `timed` (the performance
  // checks, matrices of tens of millions of entries): only the CSR is uploaded and the other
  // formats derived from it on the device (device_formats.h; the same arrays), no host copies
  // (the timed runs compare the arrays on the device instead: regions()).
  DeviceFormat(const CsrMatrix& a, Format format, bool timed = false);
  ~DeviceFormat();
  DeviceFormat(const DeviceFormat&) = delete;
  DeviceFormat& operator=(const DeviceFormat&) = delete;
  Format format() const { return format_; }
  // Launches variant v's function for this format, handing it a private copy of the view (a
  // host struct it gets by const reference): "" or, when the function wrote to that copy, the
  // problem ("spmv_ell wrote to its const view argument ...").
  std::string run(const SpmvVariant& v, const float* x, float* y, cudaStream_t stream) const;
  // "" when every array is unchanged and its guards intact; otherwise which one. Needs the host
  // copies (not `timed`; throws std::logic_error without them).
  std::string check_unchanged() const;
  // Every array of the matrix on the device, for TimedRunChecks::unchanged.
  std::vector<cudalab::grade::TimedRunChecks::Region> regions() const;
  std::string describe() const;  // "ELL width 5", "HYB: ELL width 2 + 31 COO entries", ...
  const CsrView& csr() const { return csr_; }  // the CSR arrays (CSR formats only)

 private:
  struct Arrays;
  void derive_on_device(const CsrMatrix& a);  // the `timed` ELL, COO and HYB
  Format format_;
  bool keep_copies_;
  std::unique_ptr<Arrays> arrays_;
  CsrView csr_{};
  EllView ell_{};
  CooView coo_{};
  HybView hyb_{};
};

// "" when variant v computes the case right in `format`; otherwise the problem, naming the
// format, the case, its seed and sizes. The first line is "<format>: wrong y (...)",
// "<format>: CUDA error ...", "<format>: wrote outside y ..." or "<format>: modified ...".
std::string run_case(const MatrixCase& c, Format format, const SpmvVariant& v);
// Runs every case in `format` and FAILs the current check with the first three problems.
void require_all_pass(const std::vector<MatrixCase>& cases, Format format, const SpmvVariant& v);

using cudalab::grade::ContextWarmup;  // harness.h

// The performance workloads: the 2D Poisson matrix of a 2048 x 2048 grid (4.19 M rows, 20.96 M
// entries), and power-law rows (2^21 rows and columns, lengths 1 to 4096, about 19 M entries;
// no ELL: its longest row would pad every row to 4096 slots).
enum class PerfMatrix { poisson_2d, power_law };
const char* perf_matrix_name(PerfMatrix m);
// size 0: the default. `with_x` false leaves x empty: PerfCase then fills its x on the device
// (the grader's timed runs write a fresh x before every run anyway).
MatrixCase perf_matrix(PerfMatrix m, std::uint64_t seed, int size = 0, bool with_x = true);

struct PerfCase {
  // `c` is moved in when given as a temporary. The format is built `timed` (DeviceFormat): on
  // the device, without host copies; the timed runs check the arrays there.
  PerfCase(MatrixCase c, Format format);
  MatrixCase matrix;
  DeviceFormat device;
  cudalab::DeviceBuffer<float> x, y;
  // The variant's launch on x, writing `output` (`y` by default); throws std::runtime_error when
  // the function wrote to its const view argument.
  cudalab::Launch launch(const SpmvVariant& v);
  cudalab::Launch launch(const SpmvVariant& v, float* output);
  cudalab::grade::Workload workload() const;
  // The candidate's y on this matrix checked row by row against the CPU reference: "" or why
  // (the runner's check; needs matrix.x).
  std::string validate(const SpmvVariant& v);
};

void grade_spmv_performance(PerfMatrix m, Format format, const SpmvVariant& candidate,
                            const SpmvVariant& reference);
void check_spmv_timing_harness(const SpmvVariant& reference);

}  // namespace lab07
