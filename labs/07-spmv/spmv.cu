// Lab 07 - sparse matrix-vector multiply, y = A x, in the course's formats.
//
// One matrix, five kernels (spmv.h has the layouts, docs/labs/07-spmv.md draws them):
//   1. CSR scalar   thread per row: thread i walks row i and writes y[i]. Simple, but a warp
//                   runs as long as its LONGEST row, and its 32 threads read 32 different rows
//                   (scattered loads).
//   2. CSR vector   a warp per row: the 32 lanes read consecutive entries of one row (coalesced)
//                   and add up their partial sums with warp shuffles (__shfl_down_sync).
//   3. ELL          thread per row over the padded, COLUMN-MAJOR slots: slot k of the 32 rows of
//                   a warp are 32 consecutive values (coalesced), every row has `width` slots.
//   4. COO          thread per element: each thread multiplies one entry and adds it into
//                   y[row] with atomicAdd, so y must be zeroed first. Insensitive to row lengths.
//   5. HYB          ELL for the regular part of every row, COO for what is left (the course's
//                   one-third rule chose the split): y = ELL x, then y += COO x.
//
// Read docs/labs/07-spmv.md, then complete TODO(1) to TODO(9), top to bottom: the four kernels
// (TODO(1) to TODO(4)), then the host functions that launch them (TODO(5) to TODO(9)). Grade with:
//     ./cudalab grade --lab 07
// Keep the kernel names and the signatures: the grader reads the built code and requires
// spmv_csr_vector_kernel to use warp shuffles and spmv_coo_kernel to use atomics.
// Until you write them, the kernels write nothing and y keeps its NaN fill: every check fails.
#include "cudalab/check.h"
#include "spmv.h"

namespace lab07 {
namespace CUDALAB_IMPL {

constexpr int BLOCK_SIZE = 256;  // threads per block; change it if you like
constexpr int WARP_SIZE = 32;

// ---------------------------------------------------------------------------------------------
// 1. CSR scalar: thread per row.
__global__ void spmv_csr_scalar_kernel(CsrView a, const float* x, float* y) {
  // TODO(1): one thread per row i: store row i of A times x in y[i] (0 for an empty row).
  //          Threads past the last row do nothing.
  (void)a, (void)x, (void)y;
}

// ---------------------------------------------------------------------------------------------
// 2. CSR vector: a warp per row.
__global__ void spmv_csr_vector_kernel(CsrView a, const float* x, float* y) {
  // TODO(2): one warp per row: the 32 lanes share the row's entries, neighbouring lanes reading
  //          neighbouring entries (coalesced), then combine their 32 partial sums with warp
  //          shuffles, and one lane stores y[row] (0 for an empty row). Every lane of the warp
  //          must take part in each shuffle, even on an empty row.
  (void)a, (void)x, (void)y;
}

// ---------------------------------------------------------------------------------------------
// 3. ELL: thread per row over column-major slots.
__global__ void spmv_ell_kernel(EllView a, const float* x, float* y) {
  // TODO(3): one thread per row i over its width slots in the column-major layout of spmv.h;
  //          padding (column -1) adds nothing. Store the sum in y[i], also when width is 0.
  (void)a, (void)x, (void)y;
}

// ---------------------------------------------------------------------------------------------
// 4. COO: thread per element.
__global__ void spmv_coo_kernel(CooView a, const float* x, float* y) {
  // TODO(4): one thread per entry: add the entry's product with x into y at the entry's row.
  //          Several threads add into the same element of y at once: use atomicAdd.
  (void)a, (void)x, (void)y;
}

// ---------------------------------------------------------------------------------------------
// Host launch functions.

void spmv_csr_scalar(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  // TODO(5): enough blocks of BLOCK_SIZE threads for one thread per row.
  const int blocks = 1;
  spmv_csr_scalar_kernel<<<blocks, BLOCK_SIZE, 0, stream>>>(a, x, y);
  CUDA_CHECK(cudaGetLastError());
}

void spmv_csr_vector(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  // TODO(6): enough blocks of BLOCK_SIZE threads for one WARP per row; count the threads in a
  //          long long: for large matrices their number does not fit in an int.
  const long long threads = WARP_SIZE;
  const int blocks = static_cast<int>((threads + BLOCK_SIZE - 1) / BLOCK_SIZE);
  spmv_csr_vector_kernel<<<blocks, BLOCK_SIZE, 0, stream>>>(a, x, y);
  CUDA_CHECK(cudaGetLastError());
}

void spmv_ell(const EllView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  const int blocks = 1;  // TODO(7): one thread per row, as for CSR scalar
  spmv_ell_kernel<<<blocks, BLOCK_SIZE, 0, stream>>>(a, x, y);
  CUDA_CHECK(cudaGetLastError());
}

void spmv_coo(const CooView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  // TODO(8): first set y to zero on `stream`, then launch one thread per entry (no launch when
  //          nnz is 0: a grid of 0 blocks is an error).
  const int blocks = 1;
  spmv_coo_kernel<<<blocks, BLOCK_SIZE, 0, stream>>>(a, x, y);
  CUDA_CHECK(cudaGetLastError());
}

void spmv_hyb(const HybView& a, const float* x, float* y, cudaStream_t stream) {
  // TODO(9): y = ELL part times x (spmv_ell writes every row, even with width 0), then ADD the
  //          COO part: launch spmv_coo_kernel on a.coo WITHOUT zeroing y again.
  (void)a, (void)x, (void)y, (void)stream;
}

}  // namespace CUDALAB_IMPL
}  // namespace lab07
