// Lab 06 reference - dynamic shared memory, tuned to run at memory speed.
//
// Every shared array here is dynamic (one `extern __shared__` array per kernel, sized by the
// third launch parameter); none of the kernels has static shared memory.
//
// Kernels:
//   reverse_kernel<true>       16-byte aligned in and out. A block of B threads owns 8B
//                              consecutive outputs, starting on a multiple of 4. Their inputs are
//                              8B consecutive elements that start anywhere (it depends on n mod 4),
//                              so the block loads the aligned int4s covering them (at most 8B + 4
//                              ints) into shared memory, all loads in flight at once, and
//                              synchronizes; each thread then gathers two groups of 4 outputs from
//                              shared memory and stores each group as one int4, a warp's stores
//                              consecutive. Every global access is 16 bytes wide and coalesced,
//                              whatever n: shared memory realigns the reversed data.
//   reverse_kernel<false>      any alignment: the course's dynamicReverse for many blocks, one
//                              element per thread.
//   conv1d_dynamic_kernel<R>   radius R <= 15 (masks up to 31), output tile a multiple of 4,
//                              16-byte aligned x and y: lab 02's reference with the tile width a
//                              run-time value. 256 threads; the block loads its input tile
//                              (tile + 2H inputs, H = R rounded up to a multiple of 4) with float4
//                              loads in batches of 4 per thread, synchronizes, and each thread
//                              computes groups of 4 consecutive outputs, 1024 apart, from float4
//                              reads of the tile (a warp reads consecutive float4s: no bank
//                              conflicts) with the mask in registers, and stores one float4 each.
//   conv1d_dynamic_kernel      any mask, any tile, any alignment: one output per thread and
//   (generic)                  step, threads striding over the tile.
//
// The tile chosen at run time (choose_tile_width): the widest tile, a power-of-two multiple of
// 1024 outputs (256 for the generic kernel), whose shared memory stays within the default
// 48 KB per block and does not lower the number of blocks an SM holds (occupancy API). Wider
// tiles load relatively less halo; fewer resident blocks hide less memory latency.
#include <array>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>

#include "cudalab/check.h"
#include "dynamic_shared.h"

namespace lab06 {
namespace CUDALAB_IMPL {
namespace {

// ---------------------------------------------------------------------------------------------
// Part 1: reverse

constexpr int kReverseBlock = 256;
constexpr int kReverseGroups = 2;  // groups of 4 outputs per thread in the vector kernel
constexpr int kReverseLoads = 3;   // int4 loads per thread: at most 2B + 1 vectors per block

template <bool kVector>
__global__ void reverse_kernel(const int* __restrict__ in, int* __restrict__ out, int n) {
  extern __shared__ __align__(16) int chunk[];
  const int b = blockDim.x;
  const int t = threadIdx.x;
  if constexpr (kVector) {
    const long long per_block = 4LL * kReverseGroups * b;
    const long long o0 = blockIdx.x * per_block;                      // first output of the block
    const long long o_end = o0 + per_block < n ? o0 + per_block : n;  // one past its last
    // The inputs of outputs [o0, o_end) are [n - o_end, n - o0): load the aligned int4s that
    // cover them, starting at a (a multiple of 4).
    const long long a = (n - o_end) & ~3LL;
    const int vectors = static_cast<int>((n - o0 - a + 3) / 4);
    int4 staged[kReverseLoads];
#pragma unroll
    for (int l = 0; l < kReverseLoads; ++l) {
      const int v = t + l * b;
      if (v >= vectors) break;
      const long long g = a + 4LL * v;
      if (g + 4 <= n) {
        staged[l] = *reinterpret_cast<const int4*>(in + g);
      } else {  // the vector crosses the end of in: its elements past n are never read
        staged[l] = make_int4(in[g], g + 1 < n ? in[g + 1] : 0, g + 2 < n ? in[g + 2] : 0, 0);
      }
    }
#pragma unroll
    for (int l = 0; l < kReverseLoads; ++l) {
      const int v = t + l * b;
      if (v >= vectors) break;
      reinterpret_cast<int4*>(chunk)[v] = staged[l];
    }
    __syncthreads();  // the whole chunk is in shared memory before anyone gathers from it
#pragma unroll
    for (int group = 0; group < kReverseGroups; ++group) {
      const long long first = o0 + 4LL * (t + group * b);
      if (first >= o_end) break;
      // out[o] = in[n - 1 - o] = chunk[n - 1 - o - a]
      const int base = static_cast<int>(n - 1 - first - a);
      if (first + 4 <= n) {
        *reinterpret_cast<int4*>(out + first) =
            make_int4(chunk[base], chunk[base - 1], chunk[base - 2], chunk[base - 3]);
      } else {
        for (int c = 0; first + c < n; ++c) out[first + c] = chunk[base - c];
      }
    }
  } else {
    const long long start = static_cast<long long>(blockIdx.x) * b;
    const int len = n - start < b ? static_cast<int>(n - start) : b;
    if (t < len) chunk[t] = in[start + t];
    __syncthreads();
    // The chunk [start, start + len) lands reversed on [n - start - len, n - start).
    if (t < len) out[n - start - len + t] = chunk[len - 1 - t];
  }
}

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

// ---------------------------------------------------------------------------------------------
// Part 2: convolution

constexpr int kConvBlock = 256;
constexpr int kMaxFastRadius = 15;
constexpr int kFastTileUnit = 4 * kConvBlock;  // a group of 4 outputs per thread
constexpr int kLoadBatch = 4;                  // float4 loads in flight per thread

__host__ __device__ constexpr int halo_of(int radius) {
  return (radius + 3) / 4 * 4;
}

template <int R>
__global__ void __launch_bounds__(kConvBlock)
    conv1d_dynamic_kernel(const float* __restrict__ x, const float* __restrict__ mask,
                          float* __restrict__ y, int width, int tile_width) {
  constexpr int kMaskWidth = 2 * R + 1;
  constexpr int kHalo = halo_of(R);
  constexpr int kWindow = 4 + 2 * kHalo;  // inputs of 4 consecutive outputs
  extern __shared__ __align__(16) float tile[];

  const long long tile_start = static_cast<long long>(blockIdx.x) * tile_width;
  const long long input_start = tile_start - kHalo;
  const int input_tile = tile_width + 2 * kHalo;
  if (input_start >= 0 && input_start + input_tile <= width) {
    // Batches of loads first, then their stores: the loads are in flight together.
    const int vectors = input_tile / 4;
    const float4* src = reinterpret_cast<const float4*>(x + input_start);
    float4* dst = reinterpret_cast<float4*>(tile);
    for (int v0 = threadIdx.x; v0 < vectors; v0 += kLoadBatch * kConvBlock) {
      float4 staged[kLoadBatch];
#pragma unroll
      for (int l = 0; l < kLoadBatch; ++l) {
        const int v = v0 + l * kConvBlock;
        if (v < vectors) staged[l] = src[v];
      }
#pragma unroll
      for (int l = 0; l < kLoadBatch; ++l) {
        const int v = v0 + l * kConvBlock;
        if (v < vectors) dst[v] = staged[l];
      }
    }
  } else {
    for (int k = threadIdx.x; k < input_tile; k += kConvBlock) {
      const long long g = input_start + k;
      tile[k] = (g >= 0 && g < width) ? x[g] : 0.0f;  // ghost elements are 0
    }
  }
  float h[kMaskWidth];  // the same mask words for every thread: broadcast loads
#pragma unroll
  for (int j = 0; j < kMaskWidth; ++j) h[j] = mask[j];
  __syncthreads();  // the whole input tile is in shared memory before anyone reads it

  // Thread t computes groups of 4 consecutive outputs at 4t, 4t + 1024, ...: a warp reads
  // consecutive float4s of the tile and stores consecutive float4s to y.
  const long long outputs = width - tile_start < tile_width ? width - tile_start : tile_width;
  for (int offset = 4 * threadIdx.x; offset < outputs; offset += kFastTileUnit) {
    const long long first = tile_start + offset;
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

__global__ void __launch_bounds__(kConvBlock)
    conv1d_dynamic_kernel(const float* __restrict__ x, const float* __restrict__ mask,
                          float* __restrict__ y, int width, int mask_width, int tile_width) {
  extern __shared__ __align__(16) float tile[];
  const long long tile_start = static_cast<long long>(blockIdx.x) * tile_width;
  const int radius = mask_width / 2;
  const int input_tile = tile_width + mask_width - 1;
  for (int k = threadIdx.x; k < input_tile; k += blockDim.x) {
    const long long g = tile_start - radius + k;
    tile[k] = (g >= 0 && g < width) ? x[g] : 0.0f;
  }
  __syncthreads();
  const long long outputs = width - tile_start < tile_width ? width - tile_start : tile_width;
  for (int o = threadIdx.x; o < outputs; o += blockDim.x) {
    float sum = 0.0f;
    for (int j = 0; j < mask_width; ++j) sum = fmaf(__ldg(mask + j), tile[o + j], sum);
    y[tile_start + o] = sum;
  }
}

using FastKernel = void (*)(const float*, const float*, float*, int, int);

template <int... R>
constexpr std::array<FastKernel, sizeof...(R)> fast_kernels(std::integer_sequence<int, R...>) {
  return {&conv1d_dynamic_kernel<R>...};
}
constexpr auto kFastKernels = fast_kernels(std::make_integer_sequence<int, kMaxFastRadius + 1>{});

bool fast_layout(int tile_width, int mask_width) {
  return mask_width / 2 <= kMaxFastRadius && tile_width % 4 == 0;
}

std::size_t generic_bytes(int tile_width, int mask_width) {
  return (static_cast<std::size_t>(tile_width) + mask_width - 1) * sizeof(float);
}

struct SharedLimits {
  std::size_t default_bytes;  // per block without opting in (48 KB)
  std::size_t optin_bytes;    // per block with cudaFuncAttributeMaxDynamicSharedMemorySize
};

SharedLimits shared_limits(int device) {
  int default_bytes = 0, optin_bytes = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&default_bytes, cudaDevAttrMaxSharedMemoryPerBlock, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return {static_cast<std::size_t>(default_bytes), static_cast<std::size_t>(optin_bytes)};
}

// The widest tile, unit x 2^k, within the default limit and without losing resident blocks.
template <typename Kernel>
int widest_tile(Kernel kernel, int unit, int mask_width, const SharedLimits& limits) {
  if (conv_shared_bytes(unit, mask_width) > limits.default_bytes) return unit;
  const auto blocks_per_sm = [&](int tile) {
    int blocks = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, kConvBlock,
                                                             conv_shared_bytes(tile, mask_width)));
    return blocks;
  };
  const int most = blocks_per_sm(unit);
  int tile = unit;
  while (tile <= (1 << 24) && conv_shared_bytes(2 * tile, mask_width) <= limits.default_bytes &&
         blocks_per_sm(2 * tile) >= most)
    tile *= 2;
  return tile;
}

}  // namespace

void reverse(const int* in, int* out, int n, int block_size, cudaStream_t stream) {
  if (block_size < 0 || block_size > 1024)
    throw std::invalid_argument("reverse: block_size must be in [0, 1024], got " +
                                std::to_string(block_size));
  if (n <= 0) return;
  const int threads = block_size == 0 ? kReverseBlock : block_size;
  if (aligned16(in) && aligned16(out)) {
    const long long per_block = 4LL * kReverseGroups * threads;
    const auto blocks = static_cast<unsigned>((n + per_block - 1) / per_block);
    const std::size_t bytes = (per_block + 4) * sizeof(int);
    reverse_kernel<true><<<blocks, threads, bytes, stream>>>(in, out, n);
  } else {
    const auto blocks = static_cast<unsigned>((n + threads - 1LL) / threads);
    reverse_kernel<false><<<blocks, threads, threads * sizeof(int), stream>>>(in, out, n);
  }
  CUDA_CHECK(cudaGetLastError());
}

cudaFuncAttributes reverse_kernel_attributes() {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, reverse_kernel<true>));
  cudaFuncAttributes scalar{};
  CUDA_CHECK(cudaFuncGetAttributes(&scalar, reverse_kernel<false>));
  if (scalar.sharedSizeBytes > attributes.sharedSizeBytes)
    attributes.sharedSizeBytes = scalar.sharedSizeBytes;
  return attributes;
}

std::size_t conv_shared_bytes(int tile_width, int mask_width) {
  if (tile_width < 1 || mask_width < 1) return 0;
  if (fast_layout(tile_width, mask_width))
    return (static_cast<std::size_t>(tile_width) + 2 * halo_of(mask_width / 2)) * sizeof(float);
  return generic_bytes(tile_width, mask_width);
}

int choose_tile_width(int mask_width) {
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  // The occupancy queries cost microseconds; the answer depends only on these two.
  static std::map<std::pair<int, int>, int> chosen;
  const auto key = std::make_pair(device, mask_width);
  if (const auto it = chosen.find(key); it != chosen.end()) return it->second;
  const SharedLimits limits = shared_limits(device);
  const int radius = mask_width / 2;
  const int tile =
      radius <= kMaxFastRadius
          ? widest_tile(kFastKernels[radius], kFastTileUnit, mask_width, limits)
          : widest_tile(static_cast<void (*)(const float*, const float*, float*, int, int, int)>(
                            conv1d_dynamic_kernel),
                        kConvBlock, mask_width, limits);
  chosen[key] = tile;
  return tile;
}

void conv1d_dynamic(const float* x, const float* mask, float* y, int width, int mask_width,
                    int tile_width, cudaStream_t stream) {
  if (mask_width < 1 || mask_width % 2 == 0)
    throw std::invalid_argument("conv1d_dynamic: mask_width must be odd and positive, got " +
                                std::to_string(mask_width));
  if (tile_width < 0)
    throw std::invalid_argument("conv1d_dynamic: tile_width must be >= 0 (0 = choose), got " +
                                std::to_string(tile_width));
  if (tile_width == 0) tile_width = choose_tile_width(mask_width);
  int device = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  const SharedLimits limits = shared_limits(device);
  const std::size_t needed = conv_shared_bytes(tile_width, mask_width);
  if (needed > limits.optin_bytes)
    throw std::invalid_argument(
        "conv1d_dynamic: a tile of " + std::to_string(tile_width) + " outputs with a mask of " +
        std::to_string(mask_width) + " needs " + std::to_string(needed) +
        " bytes of shared memory per block; this device allows at most " +
        std::to_string(limits.optin_bytes) + " (cudaDevAttrMaxSharedMemoryPerBlockOptin)");
  if (width <= 0) return;
  const auto blocks =
      static_cast<unsigned>((width + static_cast<long long>(tile_width) - 1) / tile_width);
  if (fast_layout(tile_width, mask_width) && aligned16(x) && aligned16(y)) {
    const FastKernel kernel = kFastKernels[mask_width / 2];
    if (needed > limits.default_bytes)  // opt in to more than 48 KB for this kernel
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(needed)));
    kernel<<<blocks, kConvBlock, needed, stream>>>(x, mask, y, width, tile_width);
  } else {
    const auto kernel = static_cast<void (*)(const float*, const float*, float*, int, int, int)>(
        conv1d_dynamic_kernel);
    const std::size_t bytes = generic_bytes(tile_width, mask_width);
    if (bytes > limits.default_bytes)
      CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(bytes)));
    kernel<<<blocks, kConvBlock, bytes, stream>>>(x, mask, y, width, mask_width, tile_width);
  }
  CUDA_CHECK(cudaGetLastError());
}

cudaFuncAttributes conv_kernel_attributes() {
  // Several kernels: the generic one's attributes, with the largest static shared size of all.
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(
      &attributes, static_cast<void (*)(const float*, const float*, float*, int, int, int)>(
                       conv1d_dynamic_kernel)));
  for (const FastKernel kernel : kFastKernels) {
    cudaFuncAttributes fast{};
    CUDA_CHECK(cudaFuncGetAttributes(&fast, kernel));
    if (fast.sharedSizeBytes > attributes.sharedSizeBytes)
      attributes.sharedSizeBytes = fast.sharedSizeBytes;
  }
  return attributes;
}

}  // namespace CUDALAB_IMPL
}  // namespace lab06
