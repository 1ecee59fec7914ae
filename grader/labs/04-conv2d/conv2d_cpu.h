// Lab 04 on the CPU: the course's named filters, the reference convolution (double), the 8-bit
// rule and the tolerance of a float GPU result. Host code only: the grader, the runner and the
// host tests share it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/compare.h"

namespace lab04 {

// A square mask, row-major, as the GPU functions take it.
struct Filter {
  std::string name;         // "sharpen"
  std::string description;  // "sharpen: 5 at the centre, -1 at its 4 neighbours"
  int width = 0;            // odd
  std::vector<float> mask;  // width * width
};

// The course's table (seed 000, "Other kernels"), in its order: identity, three edge detectors,
// sharpen, box blur, Gaussian blur 3x3 and 5x5 and unsharp masking 5x5. The normalised ones are
// stored as float(numerator / denominator).
const std::vector<Filter>& course_filters();

// The filter called `name`; throws std::invalid_argument listing the names otherwise.
const Filter& filter_by_name(const std::string& name);

// "identity, edge-detect-1, ..." for help texts and error messages.
std::string filter_names();

// The course's worked example (seed 000): a 5 x 5 patch of a grayscale image. Sharpen gives 89
// at its centre pixel of the top-left 3 x 3 window, (x = 1, y = 1).
constexpr int kWorkedExampleSide = 5;
const std::vector<float>& worked_example_image();
constexpr int kWorkedExampleX = 1, kWorkedExampleY = 1, kWorkedExampleValue = 89;

// out(x, y, c) = sum mask[dy+R][dx+R] * in(x+dx, y+dy, c), zeros outside, interleaved channels,
// accumulated in double from the float inputs and mask (conv2d.h).
std::vector<double> conv2d_cpu(const std::vector<float>& in, int width, int height, int channels,
                               const std::vector<float>& mask, int mask_width);

// The 8-bit rule of conv2d.h: clamp to [0, 255], round half up.
std::uint8_t to_8bit(double v);

// The 8-bit result of the CPU reference: to_8bit of the double sum. It equals the GPU's float sum
// followed by the same rule whenever the float sum lands on the same side of every rounding tie
// (k + 1/2): exactly so for the course's filters on 8-bit inputs (docs/labs/04-conv2d.md).
std::vector<std::uint8_t> conv2d_8bit_cpu(const std::vector<std::uint8_t>& in, int width,
                                          int height, int channels, const std::vector<float>& mask,
                                          int mask_width);

// Tolerance for a float GPU result against the double reference.
//
// Each output is a dot product of n = K^2 terms m_i x_i. Any float evaluation of it (any order,
// with or without FMA) has |got - exact| <= gamma_n * sum |m_i x_i| with gamma_n = n u / (1 - n u)
// and u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, 2nd ed., section 3.1).
// We bound sum |m_i x_i| by sum |m_i| * max |x| for every output at once:
//   atol = gamma_{K^2} * sum|mask| * max|x|,  rtol = 0.
// For a 5 x 5 mask of values in [-1, 1] and inputs in [-1, 1]: atol <= 25 * 25 * 6e-8 = 3.7e-5;
// a missing tap or a tap read from the wrong pixel is off by ~0.1 to 1, a half-precision
// accumulation by ~1e-3.
cudalab::Tolerance conv2d_tolerance(const std::vector<float>& mask, int mask_width,
                                    double max_abs_x);

}  // namespace lab04
