// Summary statistics for timing samples (host only, unit-tested).
#pragma once

#include <vector>

namespace cudalab {

double median(std::vector<double> samples);  // by value: sorts a copy
double mean(const std::vector<double>& samples);
double stddev(const std::vector<double>& samples);  // sample standard deviation (n - 1)
// Relative standard error of the mean: stddev / sqrt(n) / mean. 0 for fewer than 2 samples.
double relative_standard_error(const std::vector<double>& samples);

}  // namespace cudalab
