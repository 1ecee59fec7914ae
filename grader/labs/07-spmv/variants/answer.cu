// A plain correct answer, as a student who follows the course would write it: CSR scalar with a
// thread per row, CSR vector with a whole warp per row and a shuffle reduction, ELL with a thread
// per row, COO with a thread per element and atomicAdd (no segmented reduction), HYB as ELL then
// COO. No tuning: no __ldg, no grid-stride loops, 32 lanes per row whatever the row lengths. The
// grader must give it full marks: it keeps the performance thresholds in policy.h honest.
#include "cudalab/check.h"
#include "spmv.h"

namespace lab07 {
namespace CUDALAB_IMPL {

constexpr int BLOCK_SIZE = 256;
constexpr int WARP_SIZE = 32;

__global__ void spmv_csr_scalar_kernel(CsrView a, const float* x, float* y) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= a.rows) return;
  float sum = 0.0f;
  for (int k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) sum += a.val[k] * x[a.col_idx[k]];
  y[row] = sum;
}

__global__ void spmv_csr_vector_kernel(CsrView a, const float* x, float* y) {
  const long long thread = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long row = thread / WARP_SIZE;  // the same for the whole warp
  const int lane = threadIdx.x % WARP_SIZE;
  if (row >= a.rows) return;  // whole warps leave together
  float sum = 0.0f;
  for (int k = a.row_ptr[row] + lane; k < a.row_ptr[row + 1]; k += WARP_SIZE)
    sum += a.val[k] * x[a.col_idx[k]];
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2)
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  if (lane == 0) y[row] = sum;
}

__global__ void spmv_ell_kernel(EllView a, const float* x, float* y) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= a.rows) return;
  float sum = 0.0f;
  for (int k = 0; k < a.width; ++k) {
    const std::size_t slot = static_cast<std::size_t>(k) * a.rows + row;
    const int col = a.col_idx[slot];
    if (col >= 0) sum += a.val[slot] * x[col];
  }
  y[row] = sum;
}

__global__ void spmv_coo_kernel(CooView a, const float* x, float* y) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= a.nnz) return;
  atomicAdd(&y[a.row[k]], a.val[k] * x[a.col[k]]);
}

int blocks_for(long long threads) {
  return static_cast<int>((threads + BLOCK_SIZE - 1) / BLOCK_SIZE);
}

void spmv_csr_scalar(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  spmv_csr_scalar_kernel<<<blocks_for(a.rows), BLOCK_SIZE, 0, stream>>>(a, x, y);
  CUDA_CHECK(cudaGetLastError());
}

void spmv_csr_vector(const CsrView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  const long long threads = static_cast<long long>(a.rows) * WARP_SIZE;
  spmv_csr_vector_kernel<<<blocks_for(threads), BLOCK_SIZE, 0, stream>>>(a, x, y);
  CUDA_CHECK(cudaGetLastError());
}

void spmv_ell(const EllView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  spmv_ell_kernel<<<blocks_for(a.rows), BLOCK_SIZE, 0, stream>>>(a, x, y);
  CUDA_CHECK(cudaGetLastError());
}

void add_coo(const CooView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.nnz == 0) return;
  spmv_coo_kernel<<<blocks_for(a.nnz), BLOCK_SIZE, 0, stream>>>(a, x, y);
  CUDA_CHECK(cudaGetLastError());
}

void spmv_coo(const CooView& a, const float* x, float* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  CUDA_CHECK(cudaMemsetAsync(y, 0, sizeof(float) * a.rows, stream));
  add_coo(a, x, y, stream);
}

void spmv_hyb(const HybView& a, const float* x, float* y, cudaStream_t stream) {
  spmv_ell(a.ell, x, y, stream);
  add_coo(a.coo, x, y, stream);
}

}  // namespace CUDALAB_IMPL
}  // namespace lab07
