#include "conv2d_cpu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace lab04 {

namespace {

// acc[i] += m[0] * source[i] + m[1] * source[i + step] + ... + m[K-1] * source[i + (K-1) step],
// the products added one by one in that order, for i in [0, n). With K known to the compiler the
// taps unroll and the loop over i vectorises.
template <int K>
void add_taps(double* __restrict acc, const double* __restrict source, std::size_t step,
              const double* __restrict m, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    double a = acc[i];
    for (int k = 0; k < K; ++k) a += m[k] * source[i + k * step];
    acc[i] = a;
  }
}

void add_mask_row(double* acc, const double* source, std::size_t step, const double* m, int k,
                  std::size_t n) {
  switch (k) {
    case 1: return add_taps<1>(acc, source, step, m, n);
    case 3: return add_taps<3>(acc, source, step, m, n);
    case 5: return add_taps<5>(acc, source, step, m, n);
    case 7: return add_taps<7>(acc, source, step, m, n);
    case 9: return add_taps<9>(acc, source, step, m, n);
    default:  // the same sums, tap by tap
      for (int t = 0; t < k; ++t)
        for (std::size_t i = 0; i < n; ++i) acc[i] += m[t] * source[i + t * step];
  }
}

Filter make(const char* name, const char* description, int width, std::vector<float> numerators,
            float denominator) {
  for (float& v : numerators) v /= denominator;
  return {name, description, width, std::move(numerators)};
}

}  // namespace

const std::vector<Filter>& course_filters() {
  static const std::vector<Filter> filters = {
      make("identity", "identity: 1 at the centre", 3, {0, 0, 0, 0, 1, 0, 0, 0, 0}, 1),
      make("edge-detect-1", "edge detection, diagonal differences", 3,
           {1, 0, -1, 0, 0, 0, -1, 0, 1}, 1),
      make("edge-detect-2", "edge detection, 4-neighbour Laplacian", 3,
           {0, 1, 0, 1, -4, 1, 0, 1, 0}, 1),
      make("edge-detect-3", "edge detection, 8-neighbour Laplacian", 3,
           {-1, -1, -1, -1, 8, -1, -1, -1, -1}, 1),
      make("sharpen", "sharpen: 5 at the centre, -1 at its 4 neighbours", 3,
           {0, -1, 0, -1, 5, -1, 0, -1, 0}, 1),
      make("box-blur", "box blur (normalised): 1/9 everywhere", 3, {1, 1, 1, 1, 1, 1, 1, 1, 1}, 9),
      make("gaussian-3x3", "Gaussian blur 3 x 3 (approximation): binomial 1 2 1, over 16", 3,
           {1, 2, 1, 2, 4, 2, 1, 2, 1}, 16),
      make("gaussian-5x5", "Gaussian blur 5 x 5 (approximation): binomial 1 4 6 4 1, over 256", 5,
           {1, 4, 6, 4, 1, 4, 16, 24, 16, 4, 6, 24, 36, 24, 6, 4, 16, 24, 16, 4, 1, 4, 6, 4, 1},
           256),
      make("unsharp-5x5",
           "unsharp masking 5 x 5 (Gaussian based, amount 1, threshold 0): -1/256 times the "
           "binomial with -476 at the centre",
           5,
           {1, 4, 6, 4, 1, 4, 16, 24, 16, 4, 6, 24, -476, 24, 6, 4, 16, 24, 16, 4, 1, 4, 6, 4, 1},
           -256),
  };
  return filters;
}

std::string filter_names() {
  std::string names;
  for (const Filter& f : course_filters()) names += (names.empty() ? "" : ", ") + f.name;
  return names;
}

const Filter& filter_by_name(const std::string& name) {
  for (const Filter& f : course_filters())
    if (f.name == name) return f;
  throw std::invalid_argument("unknown filter '" + name + "' (one of: " + filter_names() + ")");
}

const std::vector<float>& worked_example_image() {
  static const std::vector<float> image = {
      105, 102, 100, 97,  96,   //
      103, 99,  103, 101, 102,  //
      101, 98,  104, 102, 100,  //
      99,  101, 106, 104, 99,   //
      104, 104, 104, 100, 98,   //
  };
  return image;
}

std::vector<double> conv2d_cpu(const std::vector<float>& in, int width, int height, int channels,
                               const std::vector<float>& mask, int mask_width) {
  const std::size_t values = static_cast<std::size_t>(width) * height * channels;
  if (in.size() != values)
    throw std::invalid_argument(
        "conv2d_cpu: the image has " + std::to_string(in.size()) +
        " values, not width * height * channels = " + std::to_string(values));
  if (mask_width < 1 || mask_width % 2 == 0 ||
      mask.size() != static_cast<std::size_t>(mask_width) * mask_width)
    throw std::invalid_argument("conv2d_cpu: the mask must be K x K with K odd");
  const int r = mask_width / 2;
  // Row by row: each output row adds, for each row of the mask in turn, the mask row's taps times
  // the input row shifted by each tap (add_mask_row). Every value gets the same sum, in the same
  // order, as the direct loop over its own taps (a tap outside the image adds m * 0.0 instead of
  // being skipped: the same double), and the loops along the row vectorise.
  const std::size_t row = static_cast<std::size_t>(width) * channels;
  const std::size_t pad = static_cast<std::size_t>(r) * channels;  // R zero pixels on each side
  std::vector<double> out(values, 0.0);
  std::vector<double> padded(row + 2 * pad, 0.0);
  std::vector<double> mask_row(static_cast<std::size_t>(mask_width));
  for (int y = 0; y < height; ++y) {
    for (int dy = -r; dy <= r; ++dy) {
      const int yy = y + dy;
      if (yy < 0 || yy >= height) continue;
      const float* source = in.data() + static_cast<std::size_t>(yy) * row;
      std::copy(source, source + row, padded.begin() + static_cast<std::ptrdiff_t>(pad));
      for (int k = 0; k < mask_width; ++k)
        mask_row[k] = mask[static_cast<std::size_t>(dy + r) * mask_width + k];
      // Tap k of the mask row reads padded[i + k * channels] for value i: the value k - R pixels
      // to its right.
      add_mask_row(out.data() + static_cast<std::size_t>(y) * row, padded.data(),
                   static_cast<std::size_t>(channels), mask_row.data(), mask_width, row);
    }
  }
  return out;
}

std::uint8_t to_8bit(double v) {
  return static_cast<std::uint8_t>(std::floor(std::clamp(v, 0.0, 255.0) + 0.5));
}

std::vector<std::uint8_t> conv2d_8bit_cpu(const std::vector<std::uint8_t>& in, int width,
                                          int height, int channels, const std::vector<float>& mask,
                                          int mask_width) {
  const std::vector<float> as_float(in.begin(), in.end());
  const std::vector<double> sums = conv2d_cpu(as_float, width, height, channels, mask, mask_width);
  std::vector<std::uint8_t> out(sums.size());
  std::transform(sums.begin(), sums.end(), out.begin(), [](double v) { return to_8bit(v); });
  return out;
}

cudalab::Tolerance conv2d_tolerance(const std::vector<float>& mask, int mask_width,
                                    double max_abs_x) {
  const double n = static_cast<double>(mask_width) * mask_width;
  const double u = std::ldexp(1.0, -24);
  const double gamma = n * u / (1.0 - n * u);
  double sum_abs_mask = 0.0;
  for (const float m : mask) sum_abs_mask += std::fabs(m);
  return {gamma * sum_abs_mask * max_abs_x, 0.0};
}

}  // namespace lab04
