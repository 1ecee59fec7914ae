// Lab 05 - texture memory: a 2D convolution through global memory and through a texture, and the
// rotation of a grid function with the texture unit's bilinear filtering.
//
// A texture reads a cudaArray through the texture unit: it caches 2D neighbourhoods, resolves
// coordinates outside the image by itself (clamp, wrap, mirror, border) and can interpolate
// between texels for free (linear filtering). Part 1 is the course's convolution, once reading the
// image from global memory (you clamp the indices) and once through a texture (the texture
// clamps). Part 2 is the course's rotation of a grid function: normalised coordinates, linear
// filtering and a selectable address mode.
// Read docs/labs/05-conv-texture.md, then complete TODO(1) to TODO(9). Grade with:
//     ./cudalab grade --lab 05
// Keep the names and signatures: the grader looks for conv2d_global_kernel, conv2d_texture_kernel
// and rotate_kernel in the built code. Use the texture-object API only (texture references were
// removed in CUDA 12).
#include "conv_texture.h"
#include "cudalab/check.h"
#include "texture_resources.h"

namespace lab05 {
namespace CUDALAB_IMPL {

// The textures of part 1 and part 2, created on first use and never destroyed (see
// texture_resources.h). state.reset() frees the texture object, then its array.
TextureState& conv_state() {
  static auto* state = new TextureState;
  return *state;
}
TextureState& rotation_state() {
  static auto* state = new TextureState;
  return *state;
}

// ---------------------------------------------------------------------------------------------
// Part 1: convolution

__global__ void conv2d_global_kernel(const float* img, const float* mask, float* out, int w, int h,
                                     int radius) {
  // TODO(1): one thread per output pixel (x, y); threads outside the image do nothing. Convolve
  //          the image, read from global memory, with the mask of radius `radius`: a tap outside
  //          the image reads the nearest edge pixel (clamp). Write the result to out.
}

void conv2d_global(const float* img, const float* mask, float* out, int w, int h, int radius,
                   cudaStream_t stream) {
  // TODO(2): a 2D block and enough blocks to cover w x h.
  const dim3 block(1);
  const dim3 grid(1);
  conv2d_global_kernel<<<grid, block, 0, stream>>>(img, mask, out, w, h, radius);
  CUDA_CHECK(cudaGetLastError());
}

void prepare_texture(const float* host_img, int w, int h) {
  TextureState& state = conv_state();
  state.reset();  // free the previous texture and array, if any
  // TODO(3): allocate a w x h cudaArray of float, hand it to state.array.reset(...), and copy
  //          host_img into it.
  // TODO(4): create a texture object over that array that reads it with clamp addressing in
  //          both dimensions, point filtering, element-type reads and unnormalised coordinates;
  //          hand it to state.texture.reset(...) and set state.width and state.height.
  (void)host_img;  // remove these three lines once you use the parameters
  (void)w;
  (void)h;
}

__global__ void conv2d_texture_kernel(cudaTextureObject_t tex, const float* mask, float* out, int w,
                                      int h, int radius) {
  // TODO(5): TODO(1) with the image read through the texture instead of global memory; the
  //          texture does the clamping.
}

void conv2d_texture(const float* mask, float* out, int w, int h, int radius, cudaStream_t stream) {
  const cudaTextureObject_t tex = conv_state().texture.get();
  if (tex == 0) return;  // no texture yet (TODO 3 and 4): nothing to read from
  // TODO(6): block and grid as in TODO(2).
  const dim3 block(1);
  const dim3 grid(1);
  conv2d_texture_kernel<<<grid, block, 0, stream>>>(tex, mask, out, w, h, radius);
  CUDA_CHECK(cudaGetLastError());
}

// ---------------------------------------------------------------------------------------------
// Part 2: rotation

void prepare_rotation(const float* host_img, int w, int h, cudaTextureAddressMode mode) {
  TextureState& state = rotation_state();
  state.reset();
  // TODO(7): as TODO(3) and TODO(4), but with `mode` in both dimensions, linear filtering and
  //          normalised coordinates (wrap and mirror work only with normalised coordinates).
  (void)host_img;  // remove these four lines once you use the parameters
  (void)w;
  (void)h;
  (void)mode;
}

__global__ void rotate_kernel(cudaTextureObject_t tex, float* out, int w, int h, float theta) {
  // TODO(8): one thread per output pixel (x, y) inside the image: the rotation of
  //          conv_texture.h, one fetch from the texture at the rotated coordinates of the
  //          pixel's centre, written to out.
}

void rotate(float* out, int w, int h, float theta, cudaStream_t stream) {
  const cudaTextureObject_t tex = rotation_state().texture.get();
  if (tex == 0) return;  // no texture yet (TODO 7)
  // TODO(9): block and grid as in TODO(2).
  const dim3 block(1);
  const dim3 grid(1);
  rotate_kernel<<<grid, block, 0, stream>>>(tex, out, w, h, theta);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab05
