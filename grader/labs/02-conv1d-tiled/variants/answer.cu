// A plain, correct answer to lab 02 as a student would write it from the course's first block
// design: threads per block = output tile (256), every thread loads inputs in a strided loop
// until the input tile (halo included) is in shared memory, one barrier, one output per thread.
// The grader must give it full marks: this is what keeps r_full honest.

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
  for (int k = threadIdx.x; k < O_TILE_WIDTH + mask_width - 1; k += blockDim.x) {
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
