// CPU reference for the 1D convolution labs (01, 02, 03) and the tolerance that goes with it.
#pragma once

#include <cstddef>
#include <vector>

#include "cudalab/compare.h"

namespace conv1d {

// y[i] = sum_j mask[j] * x[i - mask_width/2 + j], ghost elements 0, accumulated in double.
std::vector<double> conv1d_cpu(const std::vector<float>& x, const std::vector<float>& mask);

// Tolerance for a float32 GPU result against the double reference.
//
// Error analysis: each output is a sum of K = mask_width products. Each product is exact in
// double and at most half an ulp off in float (or exact inside an FMA); recursive summation of K
// terms in float adds at most (K-1) roundings, so |got - exact| <= gamma_K * sum_j |mask_j x_k|
// with gamma_K = K u / (1 - K u) ~ K u, u = 2^-24 (Higham, Accuracy and Stability, 2nd ed., 3.1).
// We bound sum_j |mask_j x_k| by K * max|mask| * max|x| and allow a factor of 2 for any
// summation order, giving atol = 2 K^2 u max|mask| max|x| and rtol = 0.
// For K = 9 and values in [-1, 1]: atol = 9.7e-6. A half-precision accumulation (u = 2^-11) or
// a skipped term (error ~ |mask_j x_k|, typically ~0.25) exceeds it by orders of magnitude.
// Integer-valued inputs with |sum| < 2^24 are exact in any order: use Tolerance{0, 0} for them.
cudalab::Tolerance conv1d_tolerance(int mask_width, double max_abs_mask, double max_abs_x);

}  // namespace conv1d
