// Baseline kernels for the lab-01 benchmark (not graded).
#pragma once

#include <cuda_runtime.h>

namespace lab01::baseline {

// The course's convolution_1D_basic_kernel as written on the slide (seed 000): one thread per
// output, no __restrict__, plus the bounds check the slide leaves out (without it the last block
// writes past the end of y).
void conv1d_course(const float* x, const float* mask, float* y, int width, int mask_width,
                   cudaStream_t stream);

}  // namespace lab01::baseline
