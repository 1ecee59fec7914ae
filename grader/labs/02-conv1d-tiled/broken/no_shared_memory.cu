// Broken variant of lab 02 for the grader's own tests: correct results, but computed like lab 01,
// straight from global memory; the technique check must see that the kernel never touches
// shared memory.
// EXPECT-REJECT: 0 st.shared, 0 ld.shared
// CHECKS: [technique]
#include "conv1d_tiled.h"
#include "cudalab/check.h"

namespace lab02 {
namespace CUDALAB_IMPL {

constexpr int O_TILE_WIDTH = 256;

__global__ void conv1d_tiled_kernel(const float* x, const float* mask, float* y, int width,
                                    int mask_width) {
  const int i = blockIdx.x * O_TILE_WIDTH + threadIdx.x;
  if (i >= width) return;
  const int start = i - mask_width / 2;
  float sum = 0.0f;
  for (int j = 0; j < mask_width; ++j)
    if (start + j >= 0 && start + j < width) sum += mask[j] * x[start + j];
  y[i] = sum;
}

void conv1d_tiled(const float* x, const float* mask, float* y, int width, int mask_width,
                  cudaStream_t stream) {
  const dim3 block(O_TILE_WIDTH);
  const dim3 grid((width + O_TILE_WIDTH - 1) / O_TILE_WIDTH);
  conv1d_tiled_kernel<<<grid, block, 0, stream>>>(x, mask, y, width, mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab02
