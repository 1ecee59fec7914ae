// Lab 05 reference - texture memory: 2D convolution through global memory and through a texture,
// and rotation with bilinear filtering in normalised coordinates.
//
// Kernels (32 x 8 blocks):
//   conv2d_global_kernel<R>   radius R <= 8: each thread computes a column of kRows = 8 outputs.
//   conv2d_texture_kernel<R>  For each mask column dx it fetches the kRows + 2R inputs of that
//                             column once into registers and reuses each for up to 2R + 1 outputs,
//                             with every mask value read once from shared memory per column: per
//                             output (kRows + 2R)(2R + 1) / kRows fetches instead of (2R + 1)^2.
//                             The global variant clamps its reads itself (const __restrict__: the
//                             read-only path); the texture variant fetches texel centres with
//                             tex2D<float> (clamp, point filtering), the texture unit clamping.
//   conv2d_global_kernel,     any radius up to kMaxRadius: one thread per output, the mask staged
//   conv2d_texture_kernel     in shared memory by each block.
//   rotate_kernel          one tex2D<float> per output at the rotated normalised coordinates
//                          (linear filtering, the address mode chosen in prepare_rotation).
// The textures live in TextureState objects (texture_resources.h) owned by this file.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <utility>

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

constexpr int kRows = 8;  // outputs per thread, stacked in y
constexpr int kMaxFastRadius = 8;

// Reads input (x, y) of the column-blocked kernels: clamped global loads or texture fetches.
struct GlobalSource {
  const float* __restrict__ img;
  int w, h;
  __device__ float operator()(int x, int y) const {
    x = min(max(x, 0), w - 1);
    y = min(max(y, 0), h - 1);
    return img[static_cast<long long>(y) * w + x];
  }
};
struct TextureSource {
  cudaTextureObject_t tex;
  __device__ float operator()(int x, int y) const {
    return tex2D<float>(tex, static_cast<float>(x) + 0.5f, static_cast<float>(y) + 0.5f);
  }
};

template <int R, typename Source>
__device__ void conv2d_column_block(const Source& source, const float* __restrict__ mask,
                                    float* __restrict__ out, int w, int h) {
  constexpr int kSide = 2 * R + 1;
  constexpr int kColumn = kRows + 2 * R;
  __shared__ float s_mask[kSide * kSide];
  stage_mask(mask, s_mask, kSide * kSide);
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y0 = (blockIdx.y * blockDim.y + threadIdx.y) * kRows;
  if (x >= w || y0 >= h) return;
  float acc[kRows];
#pragma unroll
  for (int o = 0; o < kRows; ++o) acc[o] = 0.0f;
#pragma unroll 1
  for (int dx = -R; dx <= R; ++dx) {
    float column[kColumn];  // inputs (x + dx, y0 - R .. y0 + kRows - 1 + R)
#pragma unroll
    for (int k = 0; k < kColumn; ++k) column[k] = source(x + dx, y0 - R + k);
#pragma unroll
    for (int my = 0; my < kSide; ++my) {
      const float m = s_mask[my * kSide + dx + R];
#pragma unroll
      for (int o = 0; o < kRows; ++o) acc[o] = fmaf(m, column[o + my], acc[o]);
    }
  }
#pragma unroll
  for (int o = 0; o < kRows; ++o)
    if (y0 + o < h) out[static_cast<long long>(y0 + o) * w + x] = acc[o];
}

template <int R>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    conv2d_global_kernel(const float* __restrict__ img, const float* __restrict__ mask,
                         float* __restrict__ out, int w, int h) {
  conv2d_column_block<R>(GlobalSource{img, w, h}, mask, out, w, h);
}

template <int R>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    conv2d_texture_kernel(cudaTextureObject_t tex, const float* __restrict__ mask,
                          float* __restrict__ out, int w, int h) {
  conv2d_column_block<R>(TextureSource{tex}, mask, out, w, h);
}

using GlobalKernel = void (*)(const float*, const float*, float*, int, int);
using TextureKernel = void (*)(cudaTextureObject_t, const float*, float*, int, int);

template <int... R>
constexpr std::array<GlobalKernel, sizeof...(R)> global_kernels(std::integer_sequence<int, R...>) {
  return {&conv2d_global_kernel<R>...};
}
template <int... R>
constexpr std::array<TextureKernel, sizeof...(R)> texture_kernels(
    std::integer_sequence<int, R...>) {
  return {&conv2d_texture_kernel<R>...};
}
constexpr auto kGlobalKernels =
    global_kernels(std::make_integer_sequence<int, kMaxFastRadius + 1>{});
constexpr auto kTextureKernels =
    texture_kernels(std::make_integer_sequence<int, kMaxFastRadius + 1>{});

dim3 column_grid_for(int w, int h) {
  return dim3(static_cast<unsigned>((w + kBlockX - 1) / kBlockX),
              static_cast<unsigned>((h + kBlockY * kRows - 1) / (kBlockY * kRows)));
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
  if (radius <= kMaxFastRadius) {
    kGlobalKernels[radius]<<<column_grid_for(w, h), dim3(kBlockX, kBlockY), 0, stream>>>(img, mask,
                                                                                         out, w, h);
  } else {
    const int side = 2 * radius + 1;
    conv2d_global_kernel<<<grid_for(w, h), dim3(kBlockX, kBlockY), side * side * sizeof(float),
                           stream>>>(img, mask, out, w, h, radius);
  }
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
  if (radius <= kMaxFastRadius) {
    kTextureKernels[radius]<<<column_grid_for(w, h), dim3(kBlockX, kBlockY), 0, stream>>>(
        state.texture.get(), mask, out, w, h);
  } else {
    const int side = 2 * radius + 1;
    conv2d_texture_kernel<<<grid_for(w, h), dim3(kBlockX, kBlockY), side * side * sizeof(float),
                            stream>>>(state.texture.get(), mask, out, w, h, radius);
  }
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
