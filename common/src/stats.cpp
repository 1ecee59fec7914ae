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

}  // namespace cudalab
