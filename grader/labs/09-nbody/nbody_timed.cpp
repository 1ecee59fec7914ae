#include "nbody_timed.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <set>
#include <stdexcept>

#include "cudalab/compare.h"
#include "nbody_check.h"

namespace lab09 {

namespace {

std::string fmt(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

}  // namespace

double timed_acc_bound(int n, double scale, double kappa) {
  return (kTermErrorUnits + kappa * std::sqrt(static_cast<double>(n))) * kUnitRoundoff * scale;
}

double rounding_units(double error, int n, double scale) {
  const double e = std::fabs(error);
  if (std::isnan(e)) return std::numeric_limits<double>::infinity();
  if (e == 0.0) return 0.0;
  const double unit = kUnitRoundoff * std::sqrt(static_cast<double>(n)) * scale;
  return unit > 0.0 ? e / unit : std::numeric_limits<double>::infinity();
}

std::vector<int> central_bodies(const std::vector<float>& bodies, int count) {
  const int n = static_cast<int>(bodies.size() / 4);
  std::vector<double> r2(static_cast<std::size_t>(n));
  for (std::size_t i = 0; i < r2.size(); ++i) {
    const float* p = &bodies[4 * i];
    r2[i] = static_cast<double>(p[0]) * p[0] + static_cast<double>(p[1]) * p[1] +
            static_cast<double>(p[2]) * p[2];
  }
  std::vector<int> all(static_cast<std::size_t>(n));
  std::iota(all.begin(), all.end(), 0);
  if (count >= n) return all;
  if (count <= 0) return {};
  // Ties broken by index, so that the choice does not depend on the library's nth_element.
  std::nth_element(all.begin(), all.begin() + (count - 1), all.end(),
                   [&r2](int i, int j) { return r2[i] < r2[j] || (r2[i] == r2[j] && i < j); });
  all.resize(static_cast<std::size_t>(count));
  return all;
}

std::vector<int> timed_sample(const std::vector<float>& bodies, int count, std::uint64_t seed) {
  const int n = static_cast<int>(bodies.size() / 4);
  std::vector<int> out = central_bodies(bodies, kCentralBodies);
  std::sort(out.begin(), out.end());
  const std::set<int> central(out.begin(), out.end());
  for (const int b : sample_bodies(n, count, seed))
    if (central.count(b) == 0) out.push_back(b);
  return out;
}

TimedSizeVerdict judge_timed_size(const std::vector<float>& candidate,
                                  const std::vector<float>& reference, const AccReference& exact,
                                  int n) {
  TimedSizeVerdict v;
  const std::size_t components = exact.acc.size();
  if (candidate.size() != components || reference.size() != components ||
      exact.scale.size() != components || 3 * exact.bodies.size() != components)
    throw std::invalid_argument("judge_timed_size: 3 values per sampled body expected");
  const auto units = [&](const std::vector<float>& got, std::size_t e) {
    return rounding_units(static_cast<double>(got[e]) - exact.acc[e], n, exact.scale[e]);
  };
  for (std::size_t e = 0; e < components; ++e)
    v.reference_units = std::max(v.reference_units, units(reference, e));
  v.kappa =
      std::max(kRoundingSigmas, std::min(kReferenceErrorFactor * v.reference_units, kMaxKappa));
  std::size_t beyond = 0, worst = 0;
  for (std::size_t e = 0; e < components; ++e) {
    const double u = units(candidate, e);
    if (u > v.candidate_units) {
      v.candidate_units = u;
      worst = e;
    }
    if (!(std::fabs(static_cast<double>(candidate[e]) - exact.acc[e]) <=
          timed_acc_bound(n, exact.scale[e], v.kappa)))
      ++beyond;
  }
  if (beyond == 0) return v;
  const int body = exact.bodies[worst / 3];
  const int component = static_cast<int>(worst % 3);
  v.problem =
      "not timed: the accelerations at the timed size are not a full sum (n = " +
      std::to_string(n) + ", " + std::to_string(exact.bodies.size()) +
      " bodies sampled, each checked in double on the CPU): " + std::to_string(beyond) + " of " +
      std::to_string(components) + " components are beyond the rounding bound (c + " +
      fmt(v.kappa) + " sqrt(n)) u S; the largest error, at " + component_label(body, component) +
      ": expected " + cudalab::format_value(exact.acc[worst]) + ", got " +
      cudalab::format_value(candidate[worst]) + ", is " + fmt(v.candidate_units) +
      " u sqrt(n) S, where rounding in float, in any order, stays within " + fmt(v.kappa) +
      " (the reference's largest on the same bodies: " + fmt(v.reference_units) +
      "). Every call must add every source body's term with its own mass: leaving sources out, "
      "even with their mass given to others, or approximating them moves each body's sum far "
      "beyond float's rounding.";
  return v;
}

double timed_between_atol(int n, double central_scale, double kappa) {
  return 2.0 * timed_acc_bound(n, 1.25 * central_scale, kappa);
}

}  // namespace lab09
