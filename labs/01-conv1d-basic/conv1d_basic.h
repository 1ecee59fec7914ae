// Lab 01 - 1D convolution, basic version: the interface the grader calls.
//
//   y[i] = sum_{j=0}^{mask_width-1} mask[j] * x[i - mask_width/2 + j],   0 <= i < width
//
// with x[k] = 0 outside [0, width) ("ghost" elements). mask_width is odd, so the mask is centred.
// All pointers are DEVICE pointers; the harness allocates, copies and times. The function only
// launches work on `stream`: it must not allocate, copy or synchronize.
//
// No include guard on purpose: see common/include/cudalab/impl.h.
#include <cuda_runtime.h>

#include "cudalab/impl.h"

namespace lab01 {
namespace CUDALAB_IMPL {

void conv1d_basic(const float* x, const float* mask, float* y, int width, int mask_width,
                  cudaStream_t stream);

}  // namespace CUDALAB_IMPL
}  // namespace lab01
