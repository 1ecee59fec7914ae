// Lab 07 - sparse matrix-vector multiply (SpMV): the interface the grader and the runner call.
//
// Every function computes y = A x for a sparse rows x cols matrix A, a dense x of cols floats and
// a dense y of rows floats:
//
//   y[i] = sum over the entries (i, j, a_ij) of row i of a_ij * x[j]     (0 for an empty row)
//
// The same matrix comes in five layouts, one function each (docs/labs/07-spmv.md draws them):
//   CSR  row_ptr[rows + 1], col_idx[nnz], val[nnz]: row i is k in [row_ptr[i], row_ptr[i+1]),
//        columns increasing within a row;
//        spmv_csr_scalar (thread per row) and spmv_csr_vector (a warp, or part of one, per row);
//   ELL  col_idx[rows * width], val[rows * width], COLUMN-MAJOR: slot k of row i is at
//        k * rows + i; rows shorter than width are padded with column -1 and value 0;
//   COO  row[nnz], col[nnz], val[nnz], sorted by row, then column (thread per element);
//   HYB  an ELL part and a COO part of the same matrix: y = ELL x + COO x.
// Indices are int32, values float. Every pointer is a DEVICE pointer; the matrix and x are
// read-only. y holds garbage (NaN) on entry: every function must write all rows of y. The
// functions only launch work on `stream` (kernels, or cudaMemsetAsync on that stream): no
// allocation, copy or synchronization. Sizes may be 0 (an empty COO part, a zero-width ELL).
//
// No include guard on purpose (see common/include/cudalab/impl.h); the views have their own.
#include <cuda_runtime.h>

#include "cudalab/impl.h"

#ifndef LAB07_SPMV_VIEWS
#define LAB07_SPMV_VIEWS
namespace lab07 {

// Device arrays of a matrix in each format, as the harness uploads them.
struct CsrView {
  int rows = 0, cols = 0, nnz = 0;
  const int* row_ptr = nullptr;  // rows + 1
  const int* col_idx = nullptr;  // nnz
  const float* val = nullptr;    // nnz
};

struct EllView {
  int rows = 0, cols = 0, width = 0;  // width: slots per row
  const int* col_idx = nullptr;       // rows * width, column-major, -1 in padding slots
  const float* val = nullptr;         // rows * width, column-major, 0 in padding slots
};

struct CooView {
  int rows = 0, cols = 0, nnz = 0;
  const int* row = nullptr;    // nnz, sorted
  const int* col = nullptr;    // nnz
  const float* val = nullptr;  // nnz
};

struct HybView {
  EllView ell;  // the first ell.width entries of every row
  CooView coo;  // the rest, sorted by row (same rows and cols as ell)
};

}  // namespace lab07
#endif

namespace lab07 {
namespace CUDALAB_IMPL {

void spmv_csr_scalar(const CsrView& a, const float* x, float* y, cudaStream_t stream);
void spmv_csr_vector(const CsrView& a, const float* x, float* y, cudaStream_t stream);
void spmv_ell(const EllView& a, const float* x, float* y, cudaStream_t stream);
void spmv_coo(const CooView& a, const float* x, float* y, cudaStream_t stream);
void spmv_hyb(const HybView& a, const float* x, float* y, cudaStream_t stream);

}  // namespace CUDALAB_IMPL
}  // namespace lab07
