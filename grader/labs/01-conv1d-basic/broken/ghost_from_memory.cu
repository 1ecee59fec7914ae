// Broken variant of lab 01 for the grader's own tests: ghost elements are read from memory instead
// of being taken as 0 (no range check on the input index).
// EXPECT-REJECT: index 0: expected 22, got -?inf
// CHECKS: course worked example
#include "conv1d_basic.h"
#include "cudalab/check.h"

namespace lab01 {
namespace CUDALAB_IMPL {

__global__ void conv1d_basic_kernel(const float* x, const float* mask, float* y, int width,
                                    int mask_width) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= width) return;
  const int start = i - mask_width / 2;
  float sum = 0.0f;
  for (int j = 0; j < mask_width; ++j) sum += mask[j] * x[start + j];  // BUG: reads x[-1] etc.
  y[i] = sum;
}

void conv1d_basic(const float* x, const float* mask, float* y, int width, int mask_width,
                  cudaStream_t stream) {
  const dim3 block(256);
  const dim3 grid((width + block.x - 1) / block.x);
  conv1d_basic_kernel<<<grid, block, 0, stream>>>(x, mask, y, width, mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab01
