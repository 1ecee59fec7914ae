// Lab 01 - 1D convolution, one thread per output.
//
// Each thread computes one output element y[i]: it walks the mask and the input elements under
// it, treating inputs outside the array as 0 (ghost elements). Read docs/labs/01-conv1d-basic.md,
// then complete TODO(1) to TODO(5). Build and grade with:
//     ./cudalab grade --lab 01
// Only this file is graded. Keep the function signatures as they are.
#include "conv1d_basic.h"

#include "cudalab/check.h"

namespace lab01 {
namespace CUDALAB_IMPL {

__global__ void conv1d_basic_kernel(const float* x, const float* mask, float* y, int width,
                                    int mask_width) {
  // TODO(1): compute i, the index of the output element this thread computes (one thread per
  //          output across the whole grid).
  // TODO(2): threads of the last block may lie past the end of the output: make them do nothing.
  // TODO(3): compute the weighted sum of the mask_width inputs under the mask, centred on x[i];
  //          inputs outside [0, width) are ghost elements and count as 0.
  // TODO(4): write the sum to y[i].
}

void conv1d_basic(const float* x, const float* mask, float* y, int width, int mask_width,
                  cudaStream_t stream) {
  // TODO(5): choose a block size and a grid size so that every output element gets a thread.
  const dim3 block(1);
  const dim3 grid(1);
  conv1d_basic_kernel<<<grid, block, 0, stream>>>(x, mask, y, width, mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab01
