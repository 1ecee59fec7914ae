#include "reverse_data.h"

#include <random>
#include <sstream>

namespace lab06 {

std::vector<int> reverse_input(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int> v(n);
  for (auto& x : v) x = static_cast<int>(rng() >> 34);  // 30 random bits
  return v;
}

std::vector<int> reverse_cpu(const std::vector<int>& in) {
  return std::vector<int>(in.rbegin(), in.rend());
}

std::string describe_int_mismatches(const std::vector<int>& got, const std::vector<int>& expected,
                                    std::size_t max_report) {
  if (got.size() != expected.size())
    return "size " + std::to_string(got.size()) + ", expected " + std::to_string(expected.size());
  std::size_t mismatches = 0, unwritten = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] == expected[i]) continue;
    const bool sentinel = got[i] == -1;
    unwritten += sentinel ? 1 : 0;
    if (mismatches++ < max_report)
      first << "\n    index " << i << ": expected " << expected[i] << ", got " << got[i]
            << (sentinel ? " (never written?)" : "");
  }
  if (mismatches == 0) return "";
  std::ostringstream out;
  out << mismatches << " of " << got.size() << " elements differ (exact comparison)";
  if (unwritten > 0) out << "; " << unwritten << " hold -1 (never written?)";
  out << first.str();
  return out.str();
}

}  // namespace lab06
