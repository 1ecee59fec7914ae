// A plain, correct answer to lab 03 as a student would write it: lab 01's kernel with the mask in
// a __constant__ buffer and __restrict__ pointers. The grader must give it full marks: this is
// what keeps r_full honest.

#include <stdexcept>
#include <string>

#include "conv1d_constant.h"
#include "cudalab/check.h"

namespace lab03 {
namespace CUDALAB_IMPL {

__constant__ float c_mask[kMaxMaskWidth];

void upload_mask(const float* mask, int mask_width) {
  if (mask_width < 1 || mask_width > kMaxMaskWidth)
    throw std::invalid_argument("mask width " + std::to_string(mask_width) + " is not in [1, " +
                                std::to_string(kMaxMaskWidth) + "]");
  CUDA_CHECK(cudaMemcpyToSymbol(c_mask, mask, mask_width * sizeof(float)));
}

__global__ void conv1d_constant_kernel(const float* __restrict__ x, float* __restrict__ y,
                                       int width, int mask_width) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= width) return;
  const int start = i - mask_width / 2;
  float sum = 0.0f;
  for (int j = 0; j < mask_width; ++j)
    if (start + j >= 0 && start + j < width) sum += c_mask[j] * x[start + j];
  y[i] = sum;
}

void conv1d_constant(const float* x, float* y, int width, int mask_width, cudaStream_t stream) {
  const dim3 block(256);
  const dim3 grid((width + block.x - 1) / block.x);
  conv1d_constant_kernel<<<grid, block, 0, stream>>>(x, y, width, mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab03
