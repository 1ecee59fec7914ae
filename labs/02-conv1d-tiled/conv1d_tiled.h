// Lab 02 - tiled 1D convolution: the interface the grader calls.
//
//   y[i] = sum_{j=0}^{mask_width-1} mask[j] * x[i - mask_width/2 + j],   0 <= i < width
//
// with x[k] = 0 outside [0, width), as in lab 01, but each block first stages its input tile
// (the inputs its outputs need, halo included) in shared memory. All pointers are DEVICE
// pointers; the function only launches work on `stream` (no allocation, copy or synchronization).
//
// No include guard on purpose (see common/include/cudalab/impl.h); the constant below has its own.
#include <cuda_runtime.h>

#include "cudalab/impl.h"

#ifndef LAB02_CONV1D_TILED_LIMITS
#define LAB02_CONV1D_TILED_LIMITS
namespace lab02 {
// The widest mask the kernels must handle: a shared-memory tile sized for it holds the output
// tile plus kMaxMaskWidth - 1 halo inputs.
inline constexpr int kMaxMaskWidth = 63;
}  // namespace lab02
#endif

namespace lab02 {
namespace CUDALAB_IMPL {

void conv1d_tiled(const float* x, const float* mask, float* y, int width, int mask_width,
                  cudaStream_t stream);

}  // namespace CUDALAB_IMPL
}  // namespace lab02
