// Lab 02 - tiled 1D convolution with shared memory.
//
// Each block computes O_TILE_WIDTH consecutive outputs (its output tile). Those outputs need
// O_TILE_WIDTH + mask_width - 1 consecutive inputs (the input tile: the outputs' own inputs plus
// a halo of mask_width/2 on each side). The block loads the input tile into shared memory once,
// all threads together, and then every thread computes its output from shared memory instead of
// reading mask_width inputs from global memory. This skeleton uses the course's first block
// design: threads per block = O_TILE_WIDTH, so some threads load more than one input.
// Read docs/labs/02-conv1d-tiled.md, then complete TODO(1) to TODO(5). Grade with:
//     ./cudalab grade --lab 02
// Keep the names and signatures: the grader looks for conv1d_tiled_kernel in the built code.
#include "conv1d_tiled.h"
#include "cudalab/check.h"

namespace lab02 {
namespace CUDALAB_IMPL {

constexpr int O_TILE_WIDTH = 256;  // outputs per block = threads per block
static_assert(O_TILE_WIDTH <= 1024, "a block has at most 1024 threads");

__global__ void conv1d_tiled_kernel(const float* x, const float* mask, float* y, int width,
                                    int mask_width) {
  // TODO(1): declare the input tile in shared memory, sized for the widest mask:
  //          O_TILE_WIDTH + kMaxMaskWidth - 1 floats.
  // TODO(2): load the input tile: element k (0 <= k < O_TILE_WIDTH + mask_width - 1) is the input
  //          at blockIdx.x * O_TILE_WIDTH - mask_width/2 + k; ghost inputs (outside
  //          [0, width)) are 0. All threads of the block share the work.
  // TODO(3): wait until the whole tile is loaded before any thread reads it.
  // TODO(4): thread t computes output blockIdx.x * O_TILE_WIDTH + t (if it exists) from the
  //          tile: sum over j of mask[j] * tile[t + j]; store it in y.
}

void conv1d_tiled(const float* x, const float* mask, float* y, int width, int mask_width,
                  cudaStream_t stream) {
  // TODO(5): one block per output tile, O_TILE_WIDTH threads per block.
  const dim3 block(1);
  const dim3 grid(1);
  conv1d_tiled_kernel<<<grid, block, 0, stream>>>(x, mask, y, width, mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab02
