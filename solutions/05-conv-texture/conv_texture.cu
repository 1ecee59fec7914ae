// Lab 05 reference - texture memory: 2D convolution through global memory and through a texture,
// and rotation with bilinear filtering in normalised coordinates.
//
// Kernels (one thread per output, 32 x 8 blocks):
//   conv2d_global_kernel   clamped reads of img from global memory (const __restrict__: the
//                          read-only path); the mask is staged in shared memory by each block;
//   conv2d_texture_kernel  the same with tex2D<float> at texel centres (clamp, point filtering,
//                          unnormalised coordinates): the texture unit does the clamping;
//   rotate_kernel          one tex2D<float> per output at the rotated normalised coordinates
//                          (linear filtering, the address mode chosen in prepare_rotation).
// The textures live in TextureState objects (texture_resources.h) owned by this file.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "conv_texture.h"
#include "cudalab/check.h"
#include "texture_resources.h"

namespace lab05 {
namespace CUDALAB_IMPL {
namespace {

constexpr int kBlockX = 32;
constexpr int kBlockY = 8;

// Created once, never destroyed (see texture_resources.h).
TextureState& conv_state() {
  static auto* state = new TextureState;
  return *state;
}
TextureState& rotation_state() {
  static auto* state = new TextureState;
  return *state;
}

void require_radius(int radius) {
  if (radius < 0 || radius > kMaxRadius)
    throw std::invalid_argument("mask radius " + std::to_string(radius) + " is not in [0, " +
                                std::to_string(kMaxRadius) + "]");
}

// A 2D float cudaArray holding host_img, and a texture object over it.
void make_texture(TextureState& state, const float* host_img, int w, int h,
                  cudaTextureAddressMode mode, cudaTextureFilterMode filter, bool normalized) {
  state.reset();
  const cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaArray_t array = nullptr;
  CUDA_CHECK(cudaMallocArray(&array, &desc, w, h));
  state.array.reset(array);
  CUDA_CHECK(cudaMemcpy2DToArray(array, 0, 0, host_img, w * sizeof(float), w * sizeof(float), h,
                                 cudaMemcpyHostToDevice));
  cudaResourceDesc res{};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc tex{};
  tex.addressMode[0] = mode;
  tex.addressMode[1] = mode;
  tex.filterMode = filter;
  tex.readMode = cudaReadModeElementType;
  tex.normalizedCoords = normalized ? 1 : 0;
  cudaTextureObject_t object = 0;
  CUDA_CHECK(cudaCreateTextureObject(&object, &res, &tex, nullptr));
  state.texture.reset(object);
  state.width = w;
  state.height = h;
}

dim3 grid_for(int w, int h) {
  return dim3(static_cast<unsigned>((w + kBlockX - 1) / kBlockX),
              static_cast<unsigned>((h + kBlockY - 1) / kBlockY));
}

// Copies the (2R+1)^2 mask into shared memory; every thread of the block takes part.
__device__ void stage_mask(const float* __restrict__ mask, float* s_mask, int count) {
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  for (int k = t; k < count; k += blockDim.x * blockDim.y) s_mask[k] = mask[k];
  __syncthreads();
}

__global__ void __launch_bounds__(kBlockX* kBlockY)
    conv2d_global_kernel(const float* __restrict__ img, const float* __restrict__ mask,
                         float* __restrict__ out, int w, int h, int radius) {
  extern __shared__ float s_mask[];
  const int side = 2 * radius + 1;
  stage_mask(mask, s_mask, side * side);
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float sum = 0.0f;
  for (int dy = -radius; dy <= radius; ++dy) {
    const int yy = min(max(y + dy, 0), h - 1);
    const float* row = img + static_cast<long long>(yy) * w;
    const float* m = s_mask + (dy + radius) * side + radius;
    for (int dx = -radius; dx <= radius; ++dx) {
      const int xx = min(max(x + dx, 0), w - 1);
      sum = fmaf(m[dx], row[xx], sum);
    }
  }
  out[static_cast<long long>(y) * w + x] = sum;
}

__global__ void __launch_bounds__(kBlockX* kBlockY)
    conv2d_texture_kernel(cudaTextureObject_t tex, const float* __restrict__ mask,
                          float* __restrict__ out, int w, int h, int radius) {
  extern __shared__ float s_mask[];
  const int side = 2 * radius + 1;
  stage_mask(mask, s_mask, side * side);
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  float sum = 0.0f;
  for (int dy = -radius; dy <= radius; ++dy) {
    const float* m = s_mask + (dy + radius) * side + radius;
    const float v = static_cast<float>(y + dy) + 0.5f;  // the texel's centre
    for (int dx = -radius; dx <= radius; ++dx)
      sum = fmaf(m[dx], tex2D<float>(tex, static_cast<float>(x + dx) + 0.5f, v), sum);
  }
  out[static_cast<long long>(y) * w + x] = sum;
}

__global__ void __launch_bounds__(kBlockX* kBlockY)
    rotate_kernel(cudaTextureObject_t tex, float* __restrict__ out, int w, int h, float c,
                  float s) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float u0 = (static_cast<float>(x) + 0.5f) / static_cast<float>(w) - 0.5f;
  const float v0 = (static_cast<float>(y) + 0.5f) / static_cast<float>(h) - 0.5f;
  const float u = u0 * c + v0 * s + 0.5f;
  const float v = -u0 * s + v0 * c + 0.5f;
  out[static_cast<long long>(y) * w + x] = tex2D<float>(tex, u, v);
}

}  // namespace

void conv2d_global(const float* img, const float* mask, float* out, int w, int h, int radius,
                   cudaStream_t stream) {
  require_radius(radius);
  if (w <= 0 || h <= 0) return;
  const int side = 2 * radius + 1;
  conv2d_global_kernel<<<grid_for(w, h), dim3(kBlockX, kBlockY), side * side * sizeof(float),
                         stream>>>(img, mask, out, w, h, radius);
  CUDA_CHECK(cudaGetLastError());
}

void prepare_texture(const float* host_img, int w, int h) {
  make_texture(conv_state(), host_img, w, h, cudaAddressModeClamp, cudaFilterModePoint, false);
}

void conv2d_texture(const float* mask, float* out, int w, int h, int radius, cudaStream_t stream) {
  require_radius(radius);
  const TextureState& state = conv_state();
  if (state.texture.get() == 0 || state.width != w || state.height != h)
    throw std::logic_error("conv2d_texture: call prepare_texture with a " + std::to_string(w) +
                           " x " + std::to_string(h) + " image first");
  const int side = 2 * radius + 1;
  conv2d_texture_kernel<<<grid_for(w, h), dim3(kBlockX, kBlockY), side * side * sizeof(float),
                          stream>>>(state.texture.get(), mask, out, w, h, radius);
  CUDA_CHECK(cudaGetLastError());
}

void prepare_rotation(const float* host_img, int w, int h, cudaTextureAddressMode mode) {
  // Wrap and mirror exist only for normalised coordinates; linear filtering interpolates.
  make_texture(rotation_state(), host_img, w, h, mode, cudaFilterModeLinear, true);
}

void rotate(float* out, int w, int h, float theta, cudaStream_t stream) {
  const TextureState& state = rotation_state();
  if (state.texture.get() == 0 || state.width != w || state.height != h)
    throw std::logic_error("rotate: call prepare_rotation with a " + std::to_string(w) + " x " +
                           std::to_string(h) + " image first");
  rotate_kernel<<<grid_for(w, h), dim3(kBlockX, kBlockY), 0, stream>>>(state.texture.get(), out, w,
                                                                       h, cosf(theta), sinf(theta));
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab05
