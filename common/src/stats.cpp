#include "cudalab/stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cudalab {

double median(std::vector<double> s) {
  if (s.empty()) throw std::invalid_argument("median of no samples");
  const std::size_t mid = s.size() / 2;
  std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(mid), s.end());
  const double upper = s[mid];
  if (s.size() % 2 == 1) return upper;
  const double lower = *std::max_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower + upper);
}

double mean(const std::vector<double>& s) {
  if (s.empty()) throw std::invalid_argument("mean of no samples");
  double sum = 0.0;
  for (double x : s) sum += x;
  return sum / static_cast<double>(s.size());
}

double stddev(const std::vector<double>& s) {
  if (s.size() < 2) return 0.0;
  const double m = mean(s);
  double ss = 0.0;
  for (double x : s) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(s.size() - 1));
}

double relative_standard_error(const std::vector<double>& s) {
  if (s.size() < 2) return 0.0;
  const double m = mean(s);
  if (m == 0.0) return 0.0;
  return stddev(s) / std::sqrt(static_cast<double>(s.size())) / std::fabs(m);
}

double median_relative_standard_error(std::vector<double> s) {
  const std::size_t n = s.size();
  if (n < 2) return 0.0;
  std::sort(s.begin(), s.end());
  const double half_width = 0.98 * std::sqrt(static_cast<double>(n));
  const double lo_rank = std::floor(n / 2.0 - half_width);  // 0-based ranks
  const double hi_rank = std::ceil(n / 2.0 + half_width) - 1.0;
  if (lo_rank < 0.0 || hi_rank > static_cast<double>(n - 1)) return 1.0;
  const double m = median(s);
  if (m == 0.0) return 0.0;
  const double width = s[static_cast<std::size_t>(hi_rank)] - s[static_cast<std::size_t>(lo_rank)];
  return width / 2.0 / 1.96 / std::fabs(m);
}

}  // namespace cudalab
