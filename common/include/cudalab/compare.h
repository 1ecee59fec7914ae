// Element-wise comparison of a GPU result with a CPU reference.
// Pass iff |got - ref| <= atol + rtol * |ref| for every element; NaN must meet NaN and an
// infinity the same infinity. A failure report names the number of mismatches, the first few
// (index, expected, got) and the largest error.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cudalab {

struct Tolerance {
  double atol = 0.0;
  double rtol = 0.0;
};

struct Mismatch {
  std::size_t index;
  double expected;
  double got;
};

struct CompareResult {
  std::size_t count = 0;       // elements compared
  std::size_t mismatches = 0;  // elements outside the tolerance
  std::size_t unwritten = 0;   // mismatches where got is NaN and a number was expected
  double max_abs_error = 0.0;  // over pairs of finite values
  std::size_t max_error_index = 0;
  std::vector<Mismatch> first;  // the first `max_report` mismatches
  bool ok() const { return mismatches == 0; }
};

// True iff `got` is within the tolerance of `expected` (NaN/Inf rules above).
bool within_tolerance(double got, double expected, Tolerance tol);

CompareResult compare(const float* got, const double* expected, std::size_t count, Tolerance tol,
                      std::size_t max_report = 10);
CompareResult compare(const std::vector<float>& got, const std::vector<double>& expected,
                      Tolerance tol, std::size_t max_report = 10);

// Multi-line report, e.g.
//   3 of 1000 elements differ (atol 0, rtol 0); max |error| 2 at index 999
//     index 997: expected 57, got 0
// The max error is left out when no finite value was wrong, and NaN outputs where numbers were
// expected are counted separately: they usually were never written.
std::string describe(const CompareResult& result, Tolerance tol);

// "nan" for a float whose bits are the all-ones sentinel, shortest round-trip text otherwise.
std::string format_value(double v);

}  // namespace cudalab
