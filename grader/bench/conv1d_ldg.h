// The course's basic kernel with const __restrict__ pointers and __ldg loads: a baseline for the
// 1D convolution benchmark (seed 004: the read-only data cache path).
#pragma once

#include <cuda_runtime.h>

namespace conv1d_bench {

void conv1d_ldg(const float* x, const float* mask, float* y, int width, int mask_width,
                cudaStream_t stream);

}  // namespace conv1d_bench
