// Summary statistics of timing samples: median, mean, sample standard deviation, RSE.
#include <cmath>
#include <stdexcept>
#include <vector>

#include "cudalab/catch.h"
#include "cudalab/stats.h"

TEST_CASE("median of odd and even and unsorted samples", "[common][stats]") {
  CHECK(cudalab::median({7.0}) == 7.0);
  CHECK(cudalab::median({3.0, 1.0, 2.0}) == 2.0);
  CHECK(cudalab::median({4.0, 1.0, 3.0, 2.0}) == 2.5);
  CHECK(cudalab::median({10.0, -1.0}) == 4.5);
  CHECK(cudalab::median({5.0, 9.0, 5.0, 1.0}) == 5.0);               // duplicates in the middle
  CHECK(cudalab::median({9.0, 8.0, 7.0, 6.0, 5.0, 4.0}) == 6.5);     // reverse sorted
  CHECK(cudalab::median({0.5, 100.0, 0.25, 0.75, 1000.0}) == 0.75);  // outliers do not pull it
}

TEST_CASE("median leaves the caller's samples untouched", "[common][stats]") {
  const std::vector<double> samples{3.0, 1.0, 2.0, 5.0};
  const std::vector<double> copy = samples;
  CHECK(cudalab::median(samples) == 2.5);
  CHECK(samples == copy);
}

TEST_CASE("mean of samples", "[common][stats]") {
  CHECK(cudalab::mean({4.0}) == 4.0);
  CHECK(cudalab::mean({1.0, 2.0, 3.0, 4.0}) == 2.5);
  CHECK(cudalab::mean({-1.0, 1.0}) == 0.0);
  CHECK(cudalab::mean({0.1, 0.2, 0.3}) == Approx(0.2));
}

TEST_CASE("stddev is the sample standard deviation (divides by n - 1)", "[common][stats]") {
  // {2,4,4,4,5,5,7,9}: mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32; 32/7.
  CHECK(cudalab::stddev({2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}) == Approx(std::sqrt(32.0 / 7.0)));
  CHECK(cudalab::stddev({9.0, 10.0, 11.0}) == Approx(1.0));  // squared deviations 2, over 2
  CHECK(cudalab::stddev({1.0, 3.0}) == Approx(std::sqrt(2.0)));
  CHECK(cudalab::stddev({3.0, 3.0, 3.0}) == 0.0);
  CHECK(cudalab::stddev({42.0}) == 0.0);
  CHECK(cudalab::stddev({}) == 0.0);
}

TEST_CASE("relative_standard_error is stddev / sqrt(n) / mean", "[common][stats]") {
  // {9,10,11}: stddev 1, n 3, mean 10 -> 1 / sqrt(3) / 10 = 0.0577350269...
  CHECK(cudalab::relative_standard_error({9.0, 10.0, 11.0}) == Approx(0.05773502691896258));
  // {2,4,4,4,5,5,7,9}: sqrt(32/7) / sqrt(8) / 5 = sqrt(4/7) / 5 = 0.1511857892...
  CHECK(cudalab::relative_standard_error({2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}) ==
        Approx(0.15118578920369088));
  // A negative mean still gives a non-negative RSE: |mean|.
  CHECK(cudalab::relative_standard_error({-9.0, -10.0, -11.0}) == Approx(0.05773502691896258));
  CHECK(cudalab::relative_standard_error({2.0, 2.0, 2.0, 2.0}) == 0.0);
}

TEST_CASE("relative_standard_error of fewer than two samples is 0", "[common][stats]") {
  CHECK(cudalab::relative_standard_error({1.25}) == 0.0);
  CHECK(cudalab::relative_standard_error({}) == 0.0);
}

TEST_CASE("median_relative_standard_error: from the median's distribution-free interval",
          "[common][stats]") {
  // 1..100: ranks 40 and 59 (0-based) bound the 95% interval, values 41 and 60: (19 / 2) / 1.96
  // over the median 50.5.
  std::vector<double> ramp;
  for (int i = 1; i <= 100; ++i) ramp.push_back(i);
  CHECK(cudalab::median_relative_standard_error(ramp) == Approx(19.0 / 2.0 / 1.96 / 50.5));
  // One slow sample among twenty equal ones: the median's error is 0, the mean's is not.
  std::vector<double> outlier(19, 10.0);
  outlier.push_back(1000.0);
  CHECK(cudalab::median_relative_standard_error(outlier) == 0.0);
  CHECK(cudalab::relative_standard_error(outlier) > 0.2);
  // Too few samples for the interval (it runs off the ends): not settled.
  CHECK(cudalab::median_relative_standard_error({9.0, 10.0, 11.0}) == 1.0);
  CHECK(cudalab::median_relative_standard_error({1.0}) == 0.0);
}

TEST_CASE("median and mean of no samples throw std::invalid_argument", "[common][stats]") {
  REQUIRE_THROWS_AS(cudalab::median({}), std::invalid_argument);
  REQUIRE_THROWS_AS(cudalab::mean({}), std::invalid_argument);
}
