// Lab 02 reference - tiled 1D convolution with shared memory, tuned to run at memory speed.
//
// Kernels:
//   conv1d_tiled_kernel<R>   masks up to 31 wide (radius R <= 15), 16-byte aligned x and y.
//                            Block of 256 threads, output tile of 2048 (8 outputs per thread).
//                            The block loads its input tile (2048 + 2H inputs, H = R rounded up
//                            to a multiple of 4 so the tile starts on a float4) with float4 loads
//                            that are all in flight at once, and synchronizes. Each thread then
//                            computes two groups of 4 consecutive outputs, 1024 apart: for each it
//                            reads the 4 + 2H inputs from shared memory as float4s into registers
//                            (a warp reads consecutive float4s: no bank conflicts), multiplies
//                            with the mask held in registers, and stores one float4. Tiles that
//                            cross either end of x are loaded element by element, ghosts as 0.
//   conv1d_tiled_kernel      any mask up to kMaxMaskWidth, any alignment: the course's design,
//   (generic)                one output per thread, threads per block = output tile.
#include <array>
#include <cstdint>
#include <utility>

#include "conv1d_tiled.h"
#include "cudalab/check.h"

namespace lab02 {
namespace CUDALAB_IMPL {
namespace {

constexpr int kBlockSize = 256;
constexpr int kGroups = 2;                    // groups of 4 outputs per thread
constexpr int kGroupStride = 4 * kBlockSize;  // 1024: a group spans the block once
constexpr int kOutputTile = kGroups * kGroupStride;
constexpr int kMaxFastRadius = 15;

template <int R>
__global__ void __launch_bounds__(kBlockSize)
    conv1d_tiled_kernel(const float* __restrict__ x, const float* __restrict__ mask,
                        float* __restrict__ y, int width) {
  constexpr int kMaskWidth = 2 * R + 1;
  constexpr int kHalo = (R + 3) / 4 * 4;
  constexpr int kInputTile = kOutputTile + 2 * kHalo;
  constexpr int kWindow = 4 + 2 * kHalo;  // inputs of 4 consecutive outputs
  __shared__ __align__(16) float tile[kInputTile];

  const long long tile_start = static_cast<long long>(blockIdx.x) * kOutputTile;
  const long long input_start = tile_start - kHalo;
  if (input_start >= 0 && input_start + kInputTile <= width) {
    // All of this thread's loads first, then all stores: the loads are in flight together
    // instead of one DRAM round trip after another.
    constexpr int kVectors = kInputTile / 4;
    constexpr int kLoads = (kVectors + kBlockSize - 1) / kBlockSize;
    const float4* src = reinterpret_cast<const float4*>(x + input_start);
    float4* dst = reinterpret_cast<float4*>(tile);
    float4 staged[kLoads];
#pragma unroll
    for (int l = 0; l < kLoads; ++l) {
      const int v = threadIdx.x + l * kBlockSize;
      if (v < kVectors) staged[l] = src[v];
    }
#pragma unroll
    for (int l = 0; l < kLoads; ++l) {
      const int v = threadIdx.x + l * kBlockSize;
      if (v < kVectors) dst[v] = staged[l];
    }
  } else {
    for (int k = threadIdx.x; k < kInputTile; k += kBlockSize) {
      const long long g = input_start + k;
      tile[k] = (g >= 0 && g < width) ? x[g] : 0.0f;  // ghost elements are 0
    }
  }
  float h[kMaskWidth];  // the same mask words for every thread: broadcast loads
#pragma unroll
  for (int j = 0; j < kMaskWidth; ++j) h[j] = mask[j];
  __syncthreads();  // the whole input tile is in shared memory before anyone reads it

  // Thread t computes two groups of 4 consecutive outputs, 1024 apart: its window of group g
  // starts at float4 g*256 + t of the tile, so the 32 threads of a warp read consecutive
  // float4s (no bank conflicts) and their float4 stores to y are consecutive too.
#pragma unroll
  for (int g = 0; g < kGroups; ++g) {
    const int offset = g * kGroupStride + 4 * threadIdx.x;  // in the output tile
    const long long first = tile_start + offset;
    if (first >= width) break;
    float window[kWindow];
    const float4* row = reinterpret_cast<const float4*>(tile + offset);
#pragma unroll
    for (int v = 0; v < kWindow / 4; ++v) {
      const float4 q = row[v];
      window[4 * v + 0] = q.x;
      window[4 * v + 1] = q.y;
      window[4 * v + 2] = q.z;
      window[4 * v + 3] = q.w;
    }
    float out[4];
#pragma unroll
    for (int o = 0; o < 4; ++o) {
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < kMaskWidth; ++j) sum = fmaf(h[j], window[kHalo - R + o + j], sum);
      out[o] = sum;
    }
    if (first + 4 <= width) {
      *reinterpret_cast<float4*>(y + first) = make_float4(out[0], out[1], out[2], out[3]);
    } else {
#pragma unroll
      for (int o = 0; o < 4; ++o)
        if (first + o < width) y[first + o] = out[o];
    }
  }
}

constexpr int kGenericTile = 256;

__global__ void __launch_bounds__(kGenericTile)
    conv1d_tiled_kernel(const float* __restrict__ x, const float* __restrict__ mask,
                        float* __restrict__ y, int width, int mask_width) {
  __shared__ float tile[kGenericTile + kMaxMaskWidth - 1];
  const long long tile_start = static_cast<long long>(blockIdx.x) * kGenericTile;
  const int radius = mask_width / 2;
  for (int k = threadIdx.x; k < kGenericTile + mask_width - 1; k += kGenericTile) {
    const long long g = tile_start - radius + k;
    tile[k] = (g >= 0 && g < width) ? x[g] : 0.0f;
  }
  __syncthreads();
  const long long i = tile_start + threadIdx.x;
  if (i >= width) return;
  float sum = 0.0f;
  for (int j = 0; j < mask_width; ++j) sum = fmaf(mask[j], tile[threadIdx.x + j], sum);
  y[i] = sum;
}

using TiledKernel = void (*)(const float*, const float*, float*, int);

template <int... R>
constexpr std::array<TiledKernel, sizeof...(R)> tiled_kernels(std::integer_sequence<int, R...>) {
  return {&conv1d_tiled_kernel<R>...};
}
constexpr auto kTiledKernels = tiled_kernels(std::make_integer_sequence<int, kMaxFastRadius + 1>{});

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

unsigned blocks_for(long long outputs, int per_block) {
  return static_cast<unsigned>((outputs + per_block - 1) / per_block);
}

}  // namespace

void conv1d_tiled(const float* x, const float* mask, float* y, int width, int mask_width,
                  cudaStream_t stream) {
  if (width <= 0) return;
  const int radius = mask_width / 2;
  if (radius <= kMaxFastRadius && aligned16(x) && aligned16(y)) {
    kTiledKernels[radius]<<<blocks_for(width, kOutputTile), kBlockSize, 0, stream>>>(x, mask, y,
                                                                                     width);
  } else {
    conv1d_tiled_kernel<<<blocks_for(width, kGenericTile), kGenericTile, 0, stream>>>(
        x, mask, y, width, mask_width);
  }
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab02
