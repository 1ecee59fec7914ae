// Summary statistics for timing samples (host only, unit-tested).
#pragma once

#include <vector>

namespace cudalab {

double median(std::vector<double> samples);  // by value: sorts a copy
double mean(const std::vector<double>& samples);
double stddev(const std::vector<double>& samples);  // sample standard deviation (n - 1)
// Relative standard error of the mean: stddev / sqrt(n) / mean. 0 for fewer than 2 samples.
double relative_standard_error(const std::vector<double>& samples);
// Relative standard error of the median, distribution-free: the 95% confidence interval of the
// median runs between the order statistics of ranks n/2 -+ 0.98 sqrt(n) (the binomial's normal
// approximation); the standard error is half its width over 1.96, divided by the median. Robust to
// the odd slow sample that inflates the mean's. 0 for fewer than 2 samples; 1 (not settled) while
// the interval runs off either end.
double median_relative_standard_error(std::vector<double> samples);

}  // namespace cudalab
