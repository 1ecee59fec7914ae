// Lab 03 reference - 1D convolution with the mask in constant memory.
//
// upload_mask() copies the mask into c_mask, a __constant__ buffer of kMaxMaskWidth floats.
// Kernels:
//   conv1d_constant_kernel<R>  masks up to 31 wide, 16-byte aligned x and y: lab 01's register
//                              window (N consecutive outputs per thread from float4 loads, N = 4,
//                              or 8 for R > 4), with the mask read from constant memory: each mask
//                              value arrives by one uniform LDC from the constant bank (seen in
//                              cuobjdump -sass for sm_90), not by a global load through L1.
//   conv1d_constant_kernel     any mask up to kMaxMaskWidth, any alignment: one thread per output;
//   (generic)                  all threads of a warp read the same c_mask[j] together, which the
//                              constant cache serves as one broadcast.
#include <array>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

#include "conv1d_constant.h"
#include "cudalab/check.h"

namespace lab03 {
namespace CUDALAB_IMPL {
namespace {

__constant__ float c_mask[kMaxMaskWidth];

constexpr int kBlockSize = 256;
constexpr int kMaxWindowRadius = 15;

__host__ __device__ constexpr int outputs_per_thread(int radius) {
  return radius <= 4 ? 4 : 8;
}

template <int R>
__global__ void __launch_bounds__(kBlockSize)
    conv1d_constant_kernel(const float* __restrict__ x, float* __restrict__ y, int width) {
  constexpr int kOutputs = outputs_per_thread(R);
  constexpr int kMaskWidth = 2 * R + 1;
  constexpr int kHalo = (R + 3) / 4 * 4;
  constexpr int kVectors = (kOutputs + 2 * kHalo) / 4;

  const long long first =
      kOutputs * (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x);
  if (first >= width) return;
  if (first >= kHalo && first + kOutputs + kHalo <= width) {
    float window[4 * kVectors];
    const float4* src = reinterpret_cast<const float4*>(x + (first - kHalo));
#pragma unroll
    for (int v = 0; v < kVectors; ++v) {
      const float4 q = src[v];
      window[4 * v + 0] = q.x;
      window[4 * v + 1] = q.y;
      window[4 * v + 2] = q.z;
      window[4 * v + 3] = q.w;
    }
    float out[kOutputs];
#pragma unroll
    for (int o = 0; o < kOutputs; ++o) {
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < kMaskWidth; ++j) sum = fmaf(c_mask[j], window[kHalo - R + o + j], sum);
      out[o] = sum;
    }
#pragma unroll
    for (int v = 0; v < kOutputs / 4; ++v)
      reinterpret_cast<float4*>(y + first)[v] =
          make_float4(out[4 * v], out[4 * v + 1], out[4 * v + 2], out[4 * v + 3]);
  } else {
    // Within R of either end of x (or a last partial group): scalar, with ghost elements.
    for (int o = 0; o < kOutputs && first + o < width; ++o) {
      const long long i = first + o;
      float sum = 0.0f;
#pragma unroll
      for (int j = 0; j < kMaskWidth; ++j) {
        const long long k = i - R + j;
        if (k >= 0 && k < width) sum = fmaf(c_mask[j], x[k], sum);
      }
      y[i] = sum;
    }
  }
}

__global__ void __launch_bounds__(kBlockSize)
    conv1d_constant_kernel(const float* __restrict__ x, float* __restrict__ y, int width,
                           int mask_width) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= width) return;
  const long long start = i - mask_width / 2;
  float sum = 0.0f;
  for (int j = 0; j < mask_width; ++j) {
    const long long k = start + j;
    if (k >= 0 && k < width) sum = fmaf(c_mask[j], x[k], sum);
  }
  y[i] = sum;
}

using WindowKernel = void (*)(const float*, float*, int);

template <int... R>
constexpr std::array<WindowKernel, sizeof...(R)> window_kernels(std::integer_sequence<int, R...>) {
  return {&conv1d_constant_kernel<R>...};
}
constexpr auto kWindowKernels =
    window_kernels(std::make_integer_sequence<int, kMaxWindowRadius + 1>{});

bool aligned16(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p) % 16 == 0;
}

}  // namespace

void upload_mask(const float* mask, int mask_width) {
  if (mask_width < 1 || mask_width > kMaxMaskWidth)
    throw std::invalid_argument("mask width " + std::to_string(mask_width) +
                                " does not fit the constant-memory buffer of " +
                                std::to_string(kMaxMaskWidth) + " floats");
  CUDA_CHECK(cudaMemcpyToSymbol(c_mask, mask, mask_width * sizeof(float)));
}

void conv1d_constant(const float* x, float* y, int width, int mask_width, cudaStream_t stream) {
  if (width <= 0) return;
  const int radius = mask_width / 2;
  if (radius <= kMaxWindowRadius && aligned16(x) && aligned16(y)) {
    const int per_thread = outputs_per_thread(radius);
    const long long threads = (static_cast<long long>(width) + per_thread - 1) / per_thread;
    const auto blocks = static_cast<unsigned>((threads + kBlockSize - 1) / kBlockSize);
    kWindowKernels[radius]<<<blocks, kBlockSize, 0, stream>>>(x, y, width);
  } else {
    const auto blocks =
        static_cast<unsigned>((static_cast<long long>(width) + kBlockSize - 1) / kBlockSize);
    conv1d_constant_kernel<<<blocks, kBlockSize, 0, stream>>>(x, y, width, mask_width);
  }
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab03
