// Device-side fills and comparisons (common/src/device_data.cu), for the grader's timed runs:
// fresh inputs before every sample and a check of every sample's outputs cost one kernel each,
// not a round trip through the host.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cudalab/compare.h"

namespace cudalab {

// p[i] = a value uniform in [lo, hi) determined by (seed, i), written by a kernel on `stream`.
void fill_uniform_async(float* p, std::size_t n, std::uint64_t seed, float lo, float hi,
                        cudaStream_t stream);

// Counters a comparison kernel adds to (device memory, zeroed by the caller).
struct DeviceMismatches {
  unsigned long long elements;  // elements that differ, summed over every comparison
  unsigned long long first;     // the smallest index that differed (~0ull when none did)
};

// Adds to `*counters` the elements where got[i] is not within `tol` of expected[i] (the rules of
// within_tolerance: NaN must meet NaN, an infinity the same infinity).
// The same with a tolerance per element: |got[i] - expected[i]| <= atol[i] + rtol |expected[i]|
// (atol a device array of n floats).
void count_mismatches_async(const float* got, const float* expected, std::size_t n,
                            const float* atol, double rtol, DeviceMismatches* counters,
                            cudaStream_t stream);

void count_mismatches_async(const float* got, const float* expected, std::size_t n, Tolerance tol,
                            DeviceMismatches* counters, cudaStream_t stream);

// Adds to `*counters` the 32-bit words of two buffers (`words` of them) that differ: for integer
// outputs, which must match exactly.
void count_different_words_async(const std::uint32_t* got, const std::uint32_t* expected,
                                 std::size_t words, DeviceMismatches* counters,
                                 cudaStream_t stream);

}  // namespace cudalab
