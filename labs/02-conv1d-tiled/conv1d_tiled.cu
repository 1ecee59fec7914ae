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
  // TODO(1): declare the input tile in shared memory. Its size must be known at compile time:
  //          make it large enough for the widest mask the lab accepts (kMaxMaskWidth).
  // TODO(2): load the input tile: the inputs under the block's output tile plus the halo on
  //          each side, in order, with 0 for ghost inputs (outside [0, width)). All threads of
  //          the block share the work, also those whose output lies past the end of y.
  // TODO(3): wait until the whole tile is loaded before any thread reads it.
  // TODO(4): each thread computes its output of the block's tile from the shared tile, not
  //          from x, and stores it in y; a thread whose output lies past the end stores nothing.
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
