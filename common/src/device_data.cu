// Device-side fills and comparisons for the grader's timed runs (cudalab/device_data.h).
#include <cuda_runtime.h>

#include <cstdint>

#include "cudalab/check.h"
#include "cudalab/device_data.h"

namespace cudalab {

namespace {

constexpr int kBlocks = 1024;
constexpr int kThreads = 256;

// splitmix64 of (seed, i): independent values per element and per seed.
__device__ std::uint64_t mix(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__global__ void fill_uniform_kernel(float* p, std::size_t n, std::uint64_t seed, float lo,
                                    float hi) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    const float u = static_cast<float>(mix(seed, i) >> 40) * (1.0f / 16777216.0f);  // [0, 1)
    p[i] = lo + (hi - lo) * u;
  }
}

// within_tolerance (compare.cpp) on the device, in double as there.
__device__ bool within(double got, double expected, double atol, double rtol) {
  if (isnan(expected)) return isnan(got);
  if (isinf(expected)) return got == expected;
  if (!isfinite(got)) return false;
  return fabs(got - expected) <= atol + rtol * fabs(expected);
}

// One atomic per block at most: a block's threads count in shared memory first.
__device__ void add_block_count(unsigned count, unsigned long long first,
                                DeviceMismatches* counters) {
  __shared__ unsigned block_count;
  __shared__ unsigned long long block_first;
  if (threadIdx.x == 0) {
    block_count = 0;
    block_first = ~0ull;
  }
  __syncthreads();
  if (count > 0) {
    atomicAdd(&block_count, count);
    atomicMin(&block_first, first);
  }
  __syncthreads();
  if (threadIdx.x == 0 && block_count > 0) {
    atomicAdd(&counters->elements, static_cast<unsigned long long>(block_count));
    atomicMin(&counters->first, block_first);
  }
}

// The tolerance of element i: one for all, or one per element (count_mismatches_async's two forms).
struct SameAtol {
  double atol;
  __device__ double operator()(std::size_t) const { return atol; }
};
struct AtolEach {
  const float* atol;
  __device__ double operator()(std::size_t i) const { return atol[i]; }
};

template <typename Atol>
__global__ void count_mismatches_kernel(const float* got, const float* expected, std::size_t n,
                                        Atol atol, double rtol, DeviceMismatches* counters) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned count = 0;
  unsigned long long first = ~0ull;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    if (!within(got[i], expected[i], atol(i), rtol)) {
      if (count++ == 0) first = i;
    }
  }
  add_block_count(count, first, counters);
}

__global__ void count_different_words_kernel(const std::uint32_t* got,
                                             const std::uint32_t* expected, std::size_t n,
                                             DeviceMismatches* counters) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned count = 0;
  unsigned long long first = ~0ull;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += stride) {
    if (got[i] != expected[i] && count++ == 0) first = i;
  }
  add_block_count(count, first, counters);
}

}  // namespace

void fill_uniform_async(float* p, std::size_t n, std::uint64_t seed, float lo, float hi,
                        cudaStream_t stream) {
  if (n == 0) return;
  fill_uniform_kernel<<<kBlocks, kThreads, 0, stream>>>(p, n, seed, lo, hi);
  CUDA_CHECK(cudaGetLastError());
}

void count_mismatches_async(const float* got, const float* expected, std::size_t n, Tolerance tol,
                            DeviceMismatches* counters, cudaStream_t stream) {
  if (n == 0) return;
  count_mismatches_kernel<<<kBlocks, kThreads, 0, stream>>>(got, expected, n, SameAtol{tol.atol},
                                                            tol.rtol, counters);
  CUDA_CHECK(cudaGetLastError());
}

void count_mismatches_async(const float* got, const float* expected, std::size_t n,
                            const float* atol, double rtol, DeviceMismatches* counters,
                            cudaStream_t stream) {
  if (n == 0) return;
  count_mismatches_kernel<<<kBlocks, kThreads, 0, stream>>>(got, expected, n, AtolEach{atol}, rtol,
                                                            counters);
  CUDA_CHECK(cudaGetLastError());
}

void count_different_words_async(const std::uint32_t* got, const std::uint32_t* expected,
                                 std::size_t words, DeviceMismatches* counters,
                                 cudaStream_t stream) {
  if (words == 0) return;
  count_different_words_kernel<<<kBlocks, kThreads, 0, stream>>>(got, expected, words, counters);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace cudalab
