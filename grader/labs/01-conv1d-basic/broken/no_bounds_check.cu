// Broken variant of lab 01 for the grader's own tests: the kernel has no bounds check, so the last
// block writes past the end of y whenever the width is not a multiple of the block size.
// EXPECT-REJECT: past the end of y
// CHECKS: edge cases
// SANITIZER-REJECT: memcheck Invalid __global__ write
#include "conv1d_basic.h"
#include "cudalab/check.h"

namespace lab01 {
namespace CUDALAB_IMPL {

__global__ void conv1d_basic_kernel(const float* x, const float* mask, float* y, int width,
                                    int mask_width) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int start = i - mask_width / 2;
  float sum = 0.0f;
  for (int j = 0; j < mask_width; ++j)
    if (start + j >= 0 && start + j < width) sum += mask[j] * x[start + j];
  y[i] = sum;  // BUG: no "if (i < width)" before this store
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
