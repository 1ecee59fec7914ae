// Lab 04 - 2D convolution on images: the interface the grader and the runner call.
//
// An image is `height` rows of `width` pixels, each pixel `channels` values (1: grayscale,
// 3: RGB), stored row-major with the channels INTERLEAVED, as image files hold them:
//
//   value(x, y, c) = img[(y * width + x) * channels + c]
//
// Each channel is filtered on its own with the same K x K mask (K = mask_width, odd, R = K / 2),
// stored row-major (mask[(dy + R) * K + (dx + R)]), pixels outside the image counting as 0 (the
// course's ghost cells):
//
//   out(x, y, c) = sum_{dy=-R}^{R} sum_{dx=-R}^{R} mask[dy+R][dx+R] * in(x+dx, y+dy, c)
//
// Two element types, one formula:
//   conv2d        float in, float out (the graded performance case: 8192 x 8192, 5 x 5);
//   conv2d_8bit   8-bit in (0..255), 8-bit out: the sum is computed in float, then CLAMPED to
//                 [0, 255] and rounded half up: out = (unsigned char)floorf(fminf(fmaxf(v, 0),
//                 255) + 0.5f). Sharpen and the edge detectors produce values below 0 and above
//                 255; this is what every image tool does with them.
//
// set_mask() is the untimed set-up step: it copies the mask to the implementation's own storage
// (constant memory) and replaces any earlier mask. It throws std::invalid_argument for a mask
// width that is even, below 1 or above kMaxMaskWidth. conv2d() and conv2d_8bit() throw
// std::invalid_argument for channels other than 1 or 3 and for an empty image, and otherwise
// only launch work on `stream` (no allocation, copy or synchronization). in and out are DEVICE
// pointers to width * height * channels elements; host_mask is a HOST array of K * K floats.
//
// No include guard on purpose (see common/include/cudalab/impl.h); the constants have their own.
#include <cuda_runtime.h>

#include "cudalab/impl.h"

#ifndef LAB04_CONV2D_LIMITS
#define LAB04_CONV2D_LIMITS
namespace lab04 {
// The widest mask: 9 x 9 (the course's bandwidth table goes up to Kernel_Width = 9).
inline constexpr int kMaxMaskWidth = 9;
}  // namespace lab04
#endif

namespace lab04 {
namespace CUDALAB_IMPL {

void set_mask(const float* host_mask, int mask_width);
void conv2d(const float* in, float* out, int width, int height, int channels, cudaStream_t stream);
void conv2d_8bit(const unsigned char* in, unsigned char* out, int width, int height, int channels,
                 cudaStream_t stream);

}  // namespace CUDALAB_IMPL
}  // namespace lab04
