#include "conv1d_cpu.h"

#include <cstdint>

namespace conv1d {

std::vector<double> conv1d_cpu(const std::vector<float>& x, const std::vector<float>& mask) {
  const auto width = static_cast<std::int64_t>(x.size());
  const auto mask_width = static_cast<std::int64_t>(mask.size());
  std::vector<double> y(x.size());
  for (std::int64_t i = 0; i < width; ++i) {
    const std::int64_t start = i - mask_width / 2;
    double sum = 0.0;
    for (std::int64_t j = 0; j < mask_width; ++j) {
      const std::int64_t k = start + j;
      if (k >= 0 && k < width) sum += static_cast<double>(mask[j]) * static_cast<double>(x[k]);
    }
    y[i] = sum;
  }
  return y;
}

cudalab::Tolerance conv1d_tolerance(int mask_width, double max_abs_mask, double max_abs_x) {
  constexpr double u = 1.0 / (1 << 24);  // unit roundoff of float32
  const double k = mask_width;
  return {2.0 * k * k * u * max_abs_mask * max_abs_x, 0.0};
}

}  // namespace conv1d
