// Lab 01 reference - 1D convolution, basic (no shared memory), tuned to run at memory speed.
//
// Kernels:
//   conv1d_generic_kernel    the course's design: one thread per output, ghost elements as 0.
//   conv1d_window_kernel<R>  one step further, for masks up to 31 wide (radius R <= 15): each
//                            thread computes N consecutive outputs (4, or 8 for R > 4) from a
//                            register window of N + 2*R' inputs (R' = R rounded up to a multiple
//                            of 4), fetched as aligned float4 loads, and stores them as float4s.
//                            Per output that is (N + 2R')/(4N) load instructions instead of 2R+1,
//                            and the 2R+1 mask loads are shared by N outputs: the L1 traffic drops
//                            and the kernel runs at the copy bandwidth. Threads whose window
//                            crosses either end of x take a scalar path with ghost elements.
// The window kernel needs 16-byte aligned x and y (always true for cudaMalloc'd arrays); anything
// else falls back to the generic kernel.
#include <array>
#include <cstdint>
#include <utility>

#include "conv1d_basic.h"
#include "cudalab/check.h"

namespace lab01 {
namespace CUDALAB_IMPL {
namespace {

constexpr int kBlockSize = 256;
constexpr int kMaxWindowRadius = 15;

// Wider masks cost more mask loads and FMAs per thread; more outputs per thread amortise them.
__host__ __device__ constexpr int outputs_per_thread(int radius) {
  return radius <= 4 ? 4 : 8;
}

__global__ void __launch_bounds__(kBlockSize)
    conv1d_generic_kernel(const float* __restrict__ x, const float* __restrict__ mask,
                          float* __restrict__ y, int width, int mask_width) {
  // 64-bit index: blockIdx.x * blockDim.x overflows int in the last block of a 2^31-wide array.
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= width) return;
  const long long start = i - mask_width / 2;
  float sum = 0.0f;
  for (int j = 0; j < mask_width; ++j) {
    const long long k = start + j;
    if (k >= 0 && k < width) sum = fmaf(mask[j], x[k], sum);  // ghost elements add nothing
  }
  y[i] = sum;
}

template <int R>
__global__ void __launch_bounds__(kBlockSize)
    conv1d_window_kernel(const float* __restrict__ x, const float* __restrict__ mask,
                         float* __restrict__ y, int width) {
  constexpr int kOutputsPerThread = outputs_per_thread(R);
  constexpr int kMaskWidth = 2 * R + 1;
  constexpr int kHalo = (R + 3) / 4 * 4;  // R rounded up so the window starts on a float4
  constexpr int kVectors = (kOutputsPerThread + 2 * kHalo) / 4;

  const long long first =
      kOutputsPerThread * (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x);
  if (first >= width) return;

  float h[kMaskWidth];  // every thread reads the same mask words: broadcast from L1
#pragma unroll
  for (int j = 0; j < kMaskWidth; ++j) h[j] = __ldg(mask + j);

  if (first >= kHalo && first + kOutputsPerThread + kHalo <= width) {
    float window[4 * kVectors];
    const float4* src = reinterpret_cast<const float4*>(x + (first - kHalo));
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const float4 q = __ldg(src + v);
      window[4 * v + 0] = q.x;
      window[4 * v + 1] = q.y;
      window[4 * v + 2] = q.z;
      window[4 * v + 3] = q.w;
    }
    float out[kOutputsPerThread];
#pragma unroll
    for (int o = 0; o < kOutputsPerThread; ++o) {
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < kMaskWidth; ++j) sum = fmaf(h[j], window[kHalo - R + o + j], sum);
      out[o] = sum;
    }
#pragma unroll
    for (int v = 0; v < kOutputsPerThread / 4; ++v)
      reinterpret_cast<float4*>(y + first)[v] =
          make_float4(out[4 * v], out[4 * v + 1], out[4 * v + 2], out[4 * v + 3]);
  } else {
    // Within R of either end of x (or a last partial group): scalar, with ghost elements.
    for (int o = 0; o < kOutputsPerThread && first + o < width; ++o) {
      const long long i = first + o;
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < kMaskWidth; ++j) {
        const long long k = i - R + j;
        if (k >= 0 && k < width) sum = fmaf(h[j], x[k], sum);
      }
      y[i] = sum;
    }
  }
}

using WindowKernel = void (*)(const float*, const float*, float*, int);

template <int... R>
constexpr std::array<WindowKernel, sizeof...(R)> window_kernels(std::integer_sequence<int, R...>) {
  return {&conv1d_window_kernel<R>...};
}
constexpr auto kWindowKernels =
    window_kernels(std::make_integer_sequence<int, kMaxWindowRadius + 1>{});

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

void conv1d_basic(const float* x, const float* mask, float* y, int width, int mask_width,
                  cudaStream_t stream) {
  if (width <= 0) return;
  const int radius = mask_width / 2;
  if (radius <= kMaxWindowRadius && aligned16(x) && aligned16(y)) {
    const int per_thread = outputs_per_thread(radius);
    const long long threads = (static_cast<long long>(width) + per_thread - 1) / per_thread;
    const auto blocks = static_cast<unsigned>((threads + kBlockSize - 1) / kBlockSize);
    kWindowKernels[radius]<<<blocks, kBlockSize, 0, stream>>>(x, mask, y, width);
  } else {
    const auto blocks =
        static_cast<unsigned>((static_cast<long long>(width) + kBlockSize - 1) / kBlockSize);
    conv1d_generic_kernel<<<blocks, kBlockSize, 0, stream>>>(x, mask, y, width, mask_width);
  }
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab01
