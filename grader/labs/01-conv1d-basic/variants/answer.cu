// A plain, correct answer to lab 01 as a student would write it from the course's slide: one
// thread per output, ghost elements skipped, a bounds check, 256 threads per block. The grader
// must give it full marks, correctness and performance: this is what keeps r_full honest.
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
  const dim3 block(256);
  const dim3 grid((width + block.x - 1) / block.x);
  conv1d_basic_kernel<<<grid, block, 0, stream>>>(x, mask, y, width, mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab01
