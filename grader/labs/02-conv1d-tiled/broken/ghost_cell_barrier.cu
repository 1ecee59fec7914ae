// Broken variant of lab 02 for the grader's own tests: the threads whose input position lies
// outside the input (ghost cells, set to 0) wait at an extra __syncthreads() inside that branch. A
// barrier must be reached by every thread of the block or by none; this one is undefined
// behaviour. On an H200 the output still came out right (the extra arrivals pair up with the
// barrier after the branch), which is why the sanitizer gate runs synccheck: it reports the
// barrier in divergent code whatever the output.
// SANITIZER-REJECT: synccheck Barrier error detected
// CHECKS: course worked example
#include "conv1d_tiled.h"
#include "cudalab/check.h"

namespace lab02 {
namespace CUDALAB_IMPL {

constexpr int O_TILE_WIDTH = 256;

__global__ void conv1d_tiled_kernel(const float* x, const float* mask, float* y, int width,
                                    int mask_width) {
  __shared__ float tile[O_TILE_WIDTH + kMaxMaskWidth - 1];
  const int tile_start = blockIdx.x * O_TILE_WIDTH;
  const int radius = mask_width / 2;
  const int g = tile_start - radius + static_cast<int>(threadIdx.x);
  if (g >= 0 && g < width) {
    tile[threadIdx.x] = x[g];
  } else {
    tile[threadIdx.x] = 0.0f;  // a ghost cell
    // BUG: "wait for the ghost cells" inside the branch: only the threads outside the input
    // reach this barrier.
    __syncthreads();
  }
  if (threadIdx.x < mask_width - 1) {  // the right halo: the mask_width - 1 values past the block
    const int h = g + O_TILE_WIDTH;
    tile[O_TILE_WIDTH + threadIdx.x] = (h >= 0 && h < width) ? x[h] : 0.0f;
  }
  __syncthreads();
  const int i = tile_start + threadIdx.x;
  if (i >= width) return;
  float sum = 0.0f;
  for (int j = 0; j < mask_width; ++j) sum += mask[j] * tile[threadIdx.x + j];
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
