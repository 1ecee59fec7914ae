#include "conv2d_cpu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace lab04 {

namespace {

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
  std::vector<double> out(values);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      for (int c = 0; c < channels; ++c) {
        double sum = 0.0;
        for (int dy = -r; dy <= r; ++dy) {
          const int yy = y + dy;
          if (yy < 0 || yy >= height) continue;
          for (int dx = -r; dx <= r; ++dx) {
            const int xx = x + dx;
            if (xx < 0 || xx >= width) continue;
            sum += static_cast<double>(mask[(dy + r) * mask_width + (dx + r)]) *
                   in[(static_cast<std::size_t>(yy) * width + xx) * channels + c];
          }
        }
        out[(static_cast<std::size_t>(y) * width + x) * channels + c] = sum;
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
