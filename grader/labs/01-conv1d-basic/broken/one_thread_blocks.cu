// Broken variant of lab 01 for the grader's own tests: correct, but launched with one thread per
// block, so each block fills 1 of 32 lanes of a warp and the GPU runs a few percent busy.
// EXPECT-REJECT: too slow: r =
// CHECKS: [perf]
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
  for (int j = 0; j < mask_width; ++j)
    if (start + j >= 0 && start + j < width) sum += mask[j] * x[start + j];
  y[i] = sum;
}

void conv1d_basic(const float* x, const float* mask, float* y, int width, int mask_width,
                  cudaStream_t stream) {
  const dim3 block(1);  // BUG (performance): one thread per block
  const dim3 grid(width);
  conv1d_basic_kernel<<<grid, block, 0, stream>>>(x, mask, y, width, mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab01
