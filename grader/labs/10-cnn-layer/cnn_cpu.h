// Lab 10 on the CPU: the reference layer (double), the tolerance of a float GPU result, and the
// diagnoses of common mistakes that a failure message names. Host code only.
#pragma once

#include <string>
#include <vector>

#include "cudalab/compare.h"

namespace lab10 {

// The sizes of one layer (cnn_layer.h): x [B][C][H][W], k [M][C][K][K], y [B][M][Ho][Wo].
struct LayerShape {
  int B = 1, C = 1, M = 1, H = 1, W = 1, K = 1;
  int ho() const { return H - K + 1; }
  int wo() const { return W - K + 1; }
  std::size_t x_count() const { return static_cast<std::size_t>(B) * C * H * W; }
  std::size_t k_count() const { return static_cast<std::size_t>(M) * C * K * K; }
  std::size_t y_count() const { return static_cast<std::size_t>(B) * M * ho() * wo(); }
  // Flops of one forward pass: a multiply and an add per weight and output,
  // 2 * B * M * C * K * K * Ho * Wo.
  double flops() const { return 2.0 * static_cast<double>(y_count()) * C * K * K; }
  std::string text() const;  // "B=10000 C=1 M=12 H=70 W=70 K=5"
};

// The course's two layers at the course's batch: 66 x 66 and 29 x 29 outputs.
LayerShape course_layer(int layer, int batch = 10000);

// y[b][m][h][w] = sum_c sum_p sum_q x[b][c][h+p][w+q] * k[m][c][p][q], accumulated in double.
// Only images [b_begin, b_end) are computed (the result holds (b_end - b_begin) images).
std::vector<double> conv_forward_cpu(const std::vector<float>& x, const std::vector<float>& k,
                                     const LayerShape& s, int b_begin = 0, int b_end = -1);

// Tolerance for a float GPU result against the double reference.
//
// Each output is a dot product of n = C * K * K terms x_i k_i. Any float evaluation of it (any
// order, with or without FMA) has |got - exact| <= gamma_n * sum |x_i k_i|, gamma_n = n u /
// (1 - n u), u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., 3.1).
// For every output at once, sum |x_i k_i| <= max_m sum_{c,p,q} |k[m][c][p][q]| * max |x|:
//   atol = gamma_{C K^2} * max_m sum |k[m]| * max |x|,  rtol = 0.
// The course's layer 2 (n = 300) with weights and inputs in [-1, 1]: atol <= 300 * 300 * 6e-8
// = 5.4e-3 at worst, typically far less; a missing tap or channel is off by ~0.1 to 1. Cases with
// small-integer values are compared exactly instead (every partial sum is an integer below 2^24).
cudalab::Tolerance conv_tolerance(const std::vector<float>& k, const LayerShape& s,
                                  double max_abs_x);

// The layer as a common mistake computes it, for the failure message's diagnosis:
//   "p and q swapped"          k[m][c][q][p] instead of k[m][c][p][q];
//   "only channel 0 summed"    the sum over c stops after c = 0.
// Returns "" when none matches `got` within `tol`, otherwise a line naming the mistake.
std::string diagnose(const std::vector<float>& got, const std::vector<float>& x,
                     const std::vector<float>& k, const LayerShape& s, cudalab::Tolerance tol);

}  // namespace lab10
