// Broken variant of lab 02 for the grader's own tests: blocks at either end of the array load only
// the core of their tile, not its halo ("there is no neighbour there"), so the halo entries
// hold whatever shared memory held before, not ghost zeros on the outer side nor the real
// neighbours on the inner side.
// EXPECT-REJECT: output y is wrong
// CHECKS: random sizes
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
  const bool edge_block = blockIdx.x == 0 || blockIdx.x == gridDim.x - 1;
  for (int k = threadIdx.x; k < O_TILE_WIDTH + mask_width - 1; k += blockDim.x) {
    const bool halo = k < radius || k >= O_TILE_WIDTH + radius;
    if (edge_block && halo) continue;  // BUG: the edge blocks' halo is never written
    const int g = tile_start - radius + k;
    tile[k] = (g >= 0 && g < width) ? x[g] : 0.0f;
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
