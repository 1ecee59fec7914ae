// Lab 03 - 1D convolution with the mask in constant memory: the interface the grader calls.
//
//   y[i] = sum_{j=0}^{mask_width-1} mask[j] * x[i - mask_width/2 + j],   0 <= i < width
//
// with x[k] = 0 outside [0, width), as in lab 01. The mask lives in __constant__ memory: it is
// copied there once by upload_mask() (not timed: data placement is the lesson), then
// conv1d_constant() may run any number of times with it. x and y are DEVICE pointers;
// conv1d_constant only launches work on `stream` (no allocation, copy or synchronization).
//
// No include guard on purpose (see common/include/cudalab/impl.h); the constant below has its own.
#include <cuda_runtime.h>

#include "cudalab/impl.h"

#ifndef LAB03_CONV1D_CONSTANT_LIMITS
#define LAB03_CONV1D_CONSTANT_LIMITS
namespace lab03 {
// Size of the constant-memory mask buffer, in floats (4 KiB of the 64 KiB constant space).
inline constexpr int kMaxMaskWidth = 1023;
}  // namespace lab03
#endif

namespace lab03 {
namespace CUDALAB_IMPL {

// Copies mask[0 .. mask_width-1] (a HOST array) into the constant-memory buffer. Throws
// std::invalid_argument when mask_width is not in [1, kMaxMaskWidth].
void upload_mask(const float* mask, int mask_width);

// Convolves x with the mask last uploaded; mask_width must be the uploaded width.
void conv1d_constant(const float* x, float* y, int width, int mask_width, cudaStream_t stream);

}  // namespace CUDALAB_IMPL
}  // namespace lab03
