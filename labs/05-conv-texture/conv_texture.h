// Lab 05 - texture memory: the interface the grader calls.
//
// Part 1, 2D convolution of a W x H float image (row-major: img[y * w + x]) with a
// (2R+1) x (2R+1) mask (row-major: mask[(dy + R) * (2R+1) + (dx + R)]), one thread per output:
//
//   out[y][x] = sum_{dy=-R}^{R} sum_{dx=-R}^{R} mask[dy+R][dx+R] *
//   img[clamp_y(y+dy)][clamp_x(x+dx)]
//
// with pixels outside the image CLAMPED to the nearest edge pixel (clamp_x(k) = min(max(k, 0),
// w-1)): exactly what a texture in cudaAddressModeClamp returns. Two variants:
//   conv2d_global   reads img from global memory (a device pointer);
//   conv2d_texture  reads the image through the texture object that prepare_texture() made
//                   (cudaArray + cudaTextureObject_t: clamp, point filtering, unnormalised
//                   coordinates), with tex2D<float>(tex, x + 0.5f, y + 0.5f).
//
// Part 2, rotation of a W x H grid function by theta (radians, counter-clockwise in (u, v))
// about the centre of the unit square, sampled with bilinear filtering (cudaFilterModeLinear)
// and NORMALISED coordinates, in the address mode given to prepare_rotation():
//
//   u0 = (x + 0.5) / w - 0.5,  v0 = (y + 0.5) / h - 0.5       (pixel centre, centred)
//   u  =  u0 cos(theta) + v0 sin(theta) + 0.5                 (rotated by -theta)
//   v  = -u0 sin(theta) + v0 cos(theta) + 0.5
//   out[y][x] = tex2D<float>(tex, u, v)
//
// The rotation is the course's: it rotates normalised coordinates, so on a non-square grid it is
// a rotation of the unit square, not of the pixel grid.
//
// img, mask and out are DEVICE pointers; host_img is a HOST array of w * h floats. The prepare_*
// functions are the untimed set-up step: they (re)create the cudaArray and the texture object,
// keep them in the implementation's own state, and free the previous ones. The run functions only
// launch work on `stream` (no allocation, copy or synchronization).
//
// No include guard on purpose (see common/include/cudalab/impl.h); the constants have their own.
#include <cuda_runtime.h>

#include "cudalab/impl.h"

#ifndef LAB05_CONV_TEXTURE_LIMITS
#define LAB05_CONV_TEXTURE_LIMITS
namespace lab05 {
// The widest mask radius the grader and the runner use (a 33 x 33 mask).
inline constexpr int kMaxRadius = 16;
}  // namespace lab05
#endif

namespace lab05 {
namespace CUDALAB_IMPL {

// Part 1
void conv2d_global(const float* img, const float* mask, float* out, int w, int h, int radius,
                   cudaStream_t stream);
void prepare_texture(const float* host_img, int w, int h);
void conv2d_texture(const float* mask, float* out, int w, int h, int radius, cudaStream_t stream);

// Part 2
void prepare_rotation(const float* host_img, int w, int h, cudaTextureAddressMode mode);
void rotate(float* out, int w, int h, float theta, cudaStream_t stream);

}  // namespace CUDALAB_IMPL
}  // namespace lab05
