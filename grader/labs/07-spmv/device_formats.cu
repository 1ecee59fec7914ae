#include "device_formats.h"

#include <cuda_runtime.h>

#include <cstddef>

#include "cudalab/check.h"

namespace lab07::device_formats {

namespace {

constexpr int kBlock = 256;

int blocks_for(int rows) {
  const int blocks = (rows + kBlock - 1) / kBlock;
  return blocks < 1 ? 1 : (blocks > 8192 ? 8192 : blocks);
}

void finish() {
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
}

__global__ void coo_rows_kernel(const int* row_ptr, int rows, int* row) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x)
    for (int k = row_ptr[i]; k < row_ptr[i + 1]; ++k) row[k] = i;
}

__global__ void ell_kernel(const int* row_ptr, const int* col_idx, const float* val, int rows,
                           int width, int* ell_col, float* ell_val) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x) {
    const int first = row_ptr[i], length = row_ptr[i + 1] - first;
    for (int k = 0; k < width; ++k) {
      const std::size_t slot = static_cast<std::size_t>(k) * static_cast<std::size_t>(rows) +
                               static_cast<std::size_t>(i);
      ell_col[slot] = k < length ? col_idx[first + k] : -1;
      ell_val[slot] = k < length ? val[first + k] : 0.0f;
    }
  }
}

__global__ void hyb_tail_kernel(const int* row_ptr, const int* col_idx, const float* val, int rows,
                                int width, const long long* coo_start, int* row, int* col,
                                float* coo_val) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < rows; i += gridDim.x * blockDim.x) {
    long long e = coo_start[i];
    for (int k = row_ptr[i] + width; k < row_ptr[i + 1]; ++k, ++e) {
      row[e] = i;
      col[e] = col_idx[k];
      coo_val[e] = val[k];
    }
  }
}

}  // namespace

void coo_rows(const int* row_ptr, int rows, int* row) {
  if (rows > 0) coo_rows_kernel<<<blocks_for(rows), kBlock>>>(row_ptr, rows, row);
  finish();
}

void ell(const int* row_ptr, const int* col_idx, const float* val, int rows, int width,
         int* ell_col, float* ell_val) {
  if (rows > 0 && width > 0)
    ell_kernel<<<blocks_for(rows), kBlock>>>(row_ptr, col_idx, val, rows, width, ell_col, ell_val);
  finish();
}

void hyb_tail(const int* row_ptr, const int* col_idx, const float* val, int rows, int width,
              const long long* coo_start, int* row, int* col, float* coo_val) {
  if (rows > 0)
    hyb_tail_kernel<<<blocks_for(rows), kBlock>>>(row_ptr, col_idx, val, rows, width, coo_start,
                                                  row, col, coo_val);
  finish();
}

}  // namespace lab07::device_formats
