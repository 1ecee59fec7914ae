// CPU references for lab 05 and the tolerances that go with them (host only, no device code).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "cudalab/compare.h"

namespace lab05 {

// The course's test signal (seed 001): S[y][x] = sin(2 pi x / (w + 2 delta)) sin(2 pi y /
// (h + 2 delta)), row-major.
std::vector<float> test_signal(int w, int h, int delta);

// The course's Gaussian mask, (2R+1)^2 values, row-major: K(i, j) = exp(-(i^2 + j^2) / delta^2)
// divided by the sum of all K, with delta = R (the course's mask spans -delta..delta); R = 0
// gives {1}. (The course's kernel divides integers, -(ix*ix + iy*iy) / (delta*delta); we use the
// real quotient it means.)
std::vector<float> gaussian_mask(int radius);

// Part 1: out[y][x] = sum mask[dy+R][dx+R] * img[clamp(y+dy)][clamp(x+dx)], in double.
std::vector<double> conv2d_cpu(const std::vector<float>& img, int w, int h,
                               const std::vector<float>& mask, int radius);

// Tolerance of a float32 result against conv2d_cpu. Each output sums K = (2R+1)^2 products;
// recursive float summation in any order is off by at most gamma_K * sum|terms| ~ K u sum|terms|
// (u = 2^-24, Higham 3.1), and sum|terms| <= sum|mask| * max|img|. With a factor 2 for safety:
// atol = 2 K u sum|mask| max|img|, rtol 0. Radius 8, the normalised Gaussian, |img| <= 1:
// 3.4e-5; a skipped row of the mask or a wrong clamp is off by ~1e-2 or more.
cudalab::Tolerance conv2d_tolerance(const std::vector<float>& mask, double max_abs_img);

// Address modes: "wrap", "clamp", "border", "mirror" and back. Throws std::invalid_argument for
// an unknown name.
std::string mode_name(cudaTextureAddressMode mode);
cudaTextureAddressMode parse_mode(const std::string& name);
inline constexpr cudaTextureAddressMode kModes[] = {cudaAddressModeWrap, cudaAddressModeClamp,
                                                    cudaAddressModeBorder, cudaAddressModeMirror};

// A texel index i of an axis of n texels resolved by the address mode: wrap i mod n; clamp to
// [0, n-1]; mirror reflects with period 2n (..., 1, 0 | 0, 1, ..., n-1 | n-1, n-2, ...); border
// returns -1 outside [0, n) (the texel reads as 0).
int resolve_index(int i, int n, cudaTextureAddressMode mode);

// How a sample is taken: the exact bilinear filter (the reference), and models of the hardware
// and of mistakes, used by the host tests to show what the tolerance accepts and rejects.
enum class Sampler {
  exact,              // weights alpha, beta exact (double)
  weights_rounded,    // alpha, beta rounded to multiples of 1/256 (the hardware's 8 fraction bits)
  weights_truncated,  // alpha, beta truncated to multiples of 1/256
  nearest,            // point filtering: T[floor(u w), floor(v h)]
};

// The texture fetch tex2D(T, u, v) in normalised coordinates, as the CUDA Programming Guide
// ("Texture Fetching") documents linear filtering: x_b = u w - 0.5, i = floor(x_b),
// alpha = frac(x_b), likewise y_b, j, beta, and
//   (1-a)(1-b) T[i,j] + a(1-b) T[i+1,j] + (1-a)b T[i,j+1] + ab T[i+1,j+1]
// with every index resolved by the address mode (border: 0 outside).
double sample(const std::vector<float>& img, int w, int h, double u, double v,
              cudaTextureAddressMode mode, Sampler sampler = Sampler::exact);

// The source coordinates of output pixel (x, y) rotated by theta (lab header, part 2).
void rotated_coordinates(int x, int y, int w, int h, double theta, double* u, double* v);

// Part 2 reference: every pixel sampled at its rotated coordinates. theta is the float the GPU
// gets, widened.
std::vector<double> rotate_cpu(const std::vector<float>& img, int w, int h, float theta,
                               cudaTextureAddressMode mode, Sampler sampler = Sampler::exact);

// The per-pixel tolerance of a rotated pixel (see texture_cpu.cpp for the derivation):
//   atol = (Dx + Dy) (2 * 2^-8 + c) + 64 u max|T|
// with Dx, Dy the largest differences between horizontally / vertically neighbouring texels
// around the sample, c a coordinate-rounding allowance in texels and max|T| over those texels.
std::vector<double> rotation_bounds(const std::vector<float>& img, int w, int h, float theta,
                                    cudaTextureAddressMode mode);

// Element-wise |got - expected| <= bounds[i] (cudalab::within_tolerance with atol = bounds[i]),
// reported like cudalab::compare.
cudalab::CompareResult compare_with_bounds(const std::vector<float>& got,
                                           const std::vector<double>& expected,
                                           const std::vector<double>& bounds,
                                           std::size_t max_report = 10);
// cudalab::describe with the per-pixel tolerance: "(atol per pixel, largest L)".
std::string describe_with_bounds(const cudalab::CompareResult& r,
                                 const std::vector<double>& bounds);

}  // namespace lab05
