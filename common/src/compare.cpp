#include "cudalab/compare.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace cudalab {

bool within_tolerance(double got, double expected, Tolerance tol) {
  if (std::isnan(expected) || std::isnan(got)) return std::isnan(expected) && std::isnan(got);
  if (std::isinf(expected) || std::isinf(got)) return got == expected;
  return std::fabs(got - expected) <= tol.atol + tol.rtol * std::fabs(expected);
}

CompareResult compare(const float* got, const double* expected, std::size_t count, Tolerance tol,
                      std::size_t max_report) {
  CompareResult r;
  r.count = count;
  for (std::size_t i = 0; i < count; ++i) {
    const double g = got[i];
    const double e = expected[i];
    if (std::isfinite(g) && std::isfinite(e)) {
      const double err = std::fabs(g - e);
      if (err > r.max_abs_error) {
        r.max_abs_error = err;
        r.max_error_index = i;
      }
    }
    if (!within_tolerance(g, e, tol)) {
      ++r.mismatches;
      if (std::isnan(g) && !std::isnan(e)) ++r.unwritten;
      if (r.first.size() < max_report) r.first.push_back({i, e, g});
    }
  }
  return r;
}

CompareResult compare(const std::vector<float>& got, const std::vector<double>& expected,
                      Tolerance tol, std::size_t max_report) {
  if (got.size() != expected.size()) {
    CompareResult r;
    r.count = expected.size();
    r.mismatches = expected.size() > got.size() ? expected.size() - got.size() : 1;
    return r;
  }
  return compare(got.data(), expected.data(), got.size(), tol, max_report);
}

std::string format_value(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string describe(const CompareResult& r, Tolerance tol) {
  std::ostringstream out;
  out << r.mismatches << " of " << r.count << " elements differ (atol " << format_value(tol.atol)
      << ", rtol " << format_value(tol.rtol) << ")";
  if (r.unwritten > 0) out << "; " << r.unwritten << " hold NaN (never written?)";
  if (r.max_abs_error > 0.0)
    out << "; max |error| " << format_value(r.max_abs_error) << " at index " << r.max_error_index;
  for (const auto& m : r.first) {
    out << "\n  index " << m.index << ": expected " << format_value(m.expected) << ", got "
        << format_value(m.got);
    if (std::isnan(m.got) && !std::isnan(m.expected)) out << " (never written?)";
  }
  if (r.mismatches > r.first.size()) out << "\n  ...";
  return out.str();
}

}  // namespace cudalab
