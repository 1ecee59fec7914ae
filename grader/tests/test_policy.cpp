// The grading policy: performance credit from a time ratio, and the per-lab thresholds table.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "cudalab/catch.h"
#include "perf.h"
#include "policy.h"

using cudalab::grade::kLabPolicies;
using cudalab::grade::lab_policy;
using cudalab::grade::perf_credit;

TEST_CASE("perf_credit is full at r_full, none at r_zero and linear between", "[grader][policy]") {
  const double r_full = 1.3, r_zero = 3.0;
  CHECK(perf_credit(1.0, r_full, r_zero) == 1.0);
  CHECK(perf_credit(0.5, r_full, r_zero) == 1.0);  // faster than the reference
  CHECK(perf_credit(r_full, r_full, r_zero) == 1.0);
  CHECK(perf_credit(r_zero, r_full, r_zero) == 0.0);
  CHECK(perf_credit(10.0, r_full, r_zero) == 0.0);
  CHECK(perf_credit((r_full + r_zero) / 2, r_full, r_zero) == Approx(0.5));
  CHECK(perf_credit(r_full + 0.25 * (r_zero - r_full), r_full, r_zero) == Approx(0.75));
  CHECK(perf_credit(std::numeric_limits<double>::infinity(), r_full, r_zero) == 0.0);
}

TEST_CASE("perf_credit gives nothing for a NaN ratio", "[grader][policy]") {
  CHECK(perf_credit(std::numeric_limits<double>::quiet_NaN(), 1.3, 3.0) == 0.0);
}

TEST_CASE("lab_policy finds a known lab", "[grader][policy]") {
  const auto& p = lab_policy("01");
  CHECK(std::string(p.lab) == "01");
  CHECK(p.r_full < p.r_zero);
  CHECK(p.sanitizer_points > 0);
}

TEST_CASE("lab_policy rejects an unknown lab", "[grader][policy]") {
  REQUIRE_THROWS_AS(lab_policy("99"), std::out_of_range);
  REQUIRE_THROWS_AS(lab_policy(""), std::out_of_range);
}

TEST_CASE("every policy row has 1 <= r_full < r_zero", "[grader][policy]") {
  for (const auto& p : kLabPolicies) {
    CAPTURE(p.lab, p.r_full, p.r_zero, p.sanitizer_points);
    CHECK(p.r_full >= 1.0);
    CHECK(p.r_full < p.r_zero);
    CHECK(p.sanitizer_points >= 0);
    CHECK(&lab_policy(p.lab) == &p);  // lab ids are unique
  }
}

TEST_CASE("the self-check window is [0.9, 1.1]", "[grader][policy]") {
  CHECK(cudalab::grade::kSelfCheckLow == 0.9);
  CHECK(cudalab::grade::kSelfCheckHigh == 1.1);
}

TEST_CASE("work the stream's events do not see fails the performance check", "[grader][perf]") {
  using cudalab::grade::outside_stream_problem;
  // Reference: 1 ms on the stream, 1.02 ms device-wide (launch and sync overhead).
  CHECK(outside_stream_problem(1.0, 1.02, 1.0, 1.02).empty());
  CHECK(outside_stream_problem(2.0, 2.1, 1.0, 1.02).empty());  // within the margin
  // A slow kernel on the legacy default stream: nothing on the given stream, 3 ms device-wide.
  const std::string p = outside_stream_problem(0.01, 3.0, 1.0, 1.02);
  CHECK(p.find("work launched outside the given stream") == 0);
  CHECK(p.find("2.98") != std::string::npos);
}

TEST_CASE("a rate beyond the hardware is implausible", "[grader][perf]") {
  using cudalab::grade::implausible_problem;
  CHECK(implausible_problem(3000, 2600, 0, 60000).empty());  // 1.15x the copy rate: a real kernel
  CHECK(implausible_problem(0, 2600, 50000, 60000).empty());
  CHECK(implausible_problem(4000, 2600, 0, 60000).find("implausible: 4000 GB/s") == 0);
  CHECK(implausible_problem(0, 2600, 95000, 60000).find("implausible: 95000 GFLOP/s") == 0);
  CHECK(implausible_problem(0, 0, 0, 0).empty());  // nothing measured, nothing claimed
}

TEST_CASE("a timed output that differs from the reference's is named with its first difference",
          "[grader][perf]") {
  using cudalab::grade::timed_output_problem;
  CHECK(timed_output_problem(0, 20, "y", 0, 0.0, 0.0).empty());
  const std::string p = timed_output_problem(4096, 20, "y", 17, std::nan(""), 0.25);
  CHECK(p.find("a timed run's output differs from the reference's on the same inputs") == 0);
  CHECK(p.find("4096 element(s) over 20 timed runs, the first at y[17] (nan, the reference "
               "gives 0.25)") != std::string::npos);
  // Exact outputs (and differences the last sample no longer shows) give no values.
  CHECK(timed_output_problem(3, 20, "levels", 5, std::nan(""), std::nan(""))
            .find("the first at levels[5]. Every timed call") != std::string::npos);
  // The untimed run before the timing (0 samples compared) says so.
  CHECK(timed_output_problem(2, 0, "y", 3, 1.0, 0.5)
            .find("the output differs from the reference's on the same inputs: 2 element(s), the "
                  "first at y[3] (1, the reference gives 0.5)") == 0);
}
