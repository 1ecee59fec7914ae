// Comparing a GPU result with a CPU reference: the tolerance rule, NaN/Inf, and the report.
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "cudalab/catch.h"
#include "cudalab/compare.h"
#include "test_support.h"

using test_support::contains;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

double just_above(double x) {
  return std::nextafter(x, kInf);
}
double just_below(double x) {
  return std::nextafter(x, -kInf);
}

}  // namespace

TEST_CASE("within_tolerance: an error exactly at atol passes and just above fails",
          "[common][compare]") {
  const cudalab::Tolerance tol{0.5, 0.0};
  // |expected| 4 or 0: the error of a neighbouring double is then exactly representable, so
  // "just above" is not rounded back onto the bound by got - expected.
  const double expected = GENERATE(4.0, -4.0, 0.0);
  CAPTURE(expected);

  CHECK(cudalab::within_tolerance(expected, expected, tol));
  CHECK(cudalab::within_tolerance(expected + 0.5, expected, tol));
  CHECK(cudalab::within_tolerance(expected - 0.5, expected, tol));
  CHECK_FALSE(cudalab::within_tolerance(just_above(expected + 0.5), expected, tol));
  CHECK_FALSE(cudalab::within_tolerance(just_below(expected - 0.5), expected, tol));
}

TEST_CASE("within_tolerance: rtol scales with |expected| and adds to atol", "[common][compare]") {
  SECTION("rtol alone") {
    const cudalab::Tolerance tol{0.0, 0.25};
    const double expected = GENERATE(4.0, -4.0);
    CAPTURE(expected);
    // Bound: 0.25 * 4 = 1.
    CHECK(cudalab::within_tolerance(expected + 1.0, expected, tol));
    CHECK(cudalab::within_tolerance(expected - 1.0, expected, tol));
    CHECK_FALSE(cudalab::within_tolerance(just_above(expected + 1.0), expected, tol));
    CHECK_FALSE(cudalab::within_tolerance(just_below(expected - 1.0), expected, tol));
  }
  SECTION("rtol of a zero reference allows nothing") {
    const cudalab::Tolerance tol{0.0, 0.25};
    CHECK(cudalab::within_tolerance(0.0, 0.0, tol));
    CHECK_FALSE(cudalab::within_tolerance(1e-300, 0.0, tol));
  }
  SECTION("atol + rtol") {
    const cudalab::Tolerance tol{0.5, 0.25};
    // Bound: 0.5 + 0.25 * 4 = 1.5.
    CHECK(cudalab::within_tolerance(-2.5, -4.0, tol));
    CHECK(cudalab::within_tolerance(-5.5, -4.0, tol));
    CHECK_FALSE(cudalab::within_tolerance(just_above(-2.5), -4.0, tol));
    CHECK_FALSE(cudalab::within_tolerance(just_below(-5.5), -4.0, tol));
  }
  SECTION("zero tolerance means exact equality") {
    const cudalab::Tolerance tol{};
    CHECK(cudalab::within_tolerance(57.0, 57.0, tol));
    CHECK_FALSE(cudalab::within_tolerance(just_above(57.0), 57.0, tol));
  }
}

TEST_CASE("within_tolerance: NaN must meet NaN", "[common][compare]") {
  const cudalab::Tolerance tol{1e300, 1e300};  // huge, to show NaN is not a tolerance question
  CHECK(cudalab::within_tolerance(kNaN, kNaN, cudalab::Tolerance{}));
  CHECK(cudalab::within_tolerance(kNaN, kNaN, tol));
  CHECK_FALSE(cudalab::within_tolerance(kNaN, 1.0, tol));
  CHECK_FALSE(cudalab::within_tolerance(1.0, kNaN, tol));
  CHECK_FALSE(cudalab::within_tolerance(kNaN, kInf, tol));
  CHECK_FALSE(cudalab::within_tolerance(kInf, kNaN, tol));
}

TEST_CASE("within_tolerance: an infinity must meet the same infinity", "[common][compare]") {
  const cudalab::Tolerance tol{kInf, 1e300};  // even an infinite atol does not excuse it
  CHECK(cudalab::within_tolerance(kInf, kInf, cudalab::Tolerance{}));
  CHECK(cudalab::within_tolerance(-kInf, -kInf, cudalab::Tolerance{}));
  CHECK_FALSE(cudalab::within_tolerance(kInf, -kInf, tol));
  CHECK_FALSE(cudalab::within_tolerance(-kInf, kInf, tol));
  CHECK_FALSE(cudalab::within_tolerance(kInf, 1e300, tol));
  CHECK_FALSE(cudalab::within_tolerance(1e300, kInf, tol));
  CHECK_FALSE(cudalab::within_tolerance(-kInf, -1e300, tol));
}

TEST_CASE("compare counts mismatches and keeps the first max_report in index order",
          "[common][compare]") {
  // prepare: 20 elements equal except at 3, 7, 8 and 15
  std::vector<double> expected(20);
  for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = static_cast<double>(i) - 5.0;
  std::vector<float> got(expected.begin(), expected.end());
  got[3] += 1.0f;
  got[7] -= 2.0f;
  got[8] += 0.5f;
  got[15] += 4.0f;
  const cudalab::Tolerance tol{0.25, 0.0};

  SECTION("max_report 2") {
    const cudalab::CompareResult r = cudalab::compare(got, expected, tol, 2);
    CHECK(r.count == 20);
    CHECK(r.mismatches == 4);
    CHECK_FALSE(r.ok());
    REQUIRE(r.first.size() == 2);
    CHECK(r.first[0].index == 3);
    CHECK(r.first[0].expected == -2.0);
    CHECK(r.first[0].got == -1.0);
    CHECK(r.first[1].index == 7);
    CHECK(r.first[1].expected == 2.0);
    CHECK(r.first[1].got == 0.0);
  }
  SECTION("default max_report keeps all four") {
    const cudalab::CompareResult r = cudalab::compare(got, expected, tol);
    REQUIRE(r.first.size() == 4);
    CHECK(r.first[0].index == 3);
    CHECK(r.first[1].index == 7);
    CHECK(r.first[2].index == 8);
    CHECK(r.first[3].index == 15);
  }
  SECTION("max_report 0 still counts") {
    const cudalab::CompareResult r = cudalab::compare(got, expected, tol, 0);
    CHECK(r.mismatches == 4);
    CHECK(r.first.empty());
  }
  SECTION("the largest error and its index") {
    const cudalab::CompareResult r = cudalab::compare(got, expected, tol);
    CHECK(r.max_abs_error == 4.0);
    CHECK(r.max_error_index == 15);
  }
  SECTION("the pointer overload agrees with the vector overload") {
    const cudalab::CompareResult a = cudalab::compare(got, expected, tol, 3);
    const cudalab::CompareResult b =
        cudalab::compare(got.data(), expected.data(), got.size(), tol, 3);
    CHECK(a.count == b.count);
    CHECK(a.mismatches == b.mismatches);
    CHECK(a.max_abs_error == b.max_abs_error);
    CHECK(a.max_error_index == b.max_error_index);
    REQUIRE(a.first.size() == b.first.size());
    for (std::size_t i = 0; i < a.first.size(); ++i) CHECK(a.first[i].index == b.first[i].index);
  }
}

TEST_CASE("compare of equal data is ok with zero error", "[common][compare]") {
  const std::vector<double> expected{1.0, -2.0, 3.5, kNaN, kInf};
  const std::vector<float> got{1.0f, -2.0f, 3.5f, std::numeric_limits<float>::quiet_NaN(),
                               std::numeric_limits<float>::infinity()};
  const cudalab::CompareResult r = cudalab::compare(got, expected, cudalab::Tolerance{});
  CHECK(r.ok());
  CHECK(r.count == 5);
  CHECK(r.mismatches == 0);
  CHECK(r.first.empty());
  CHECK(r.max_abs_error == 0.0);
}

TEST_CASE("compare: max_abs_error counts finite pairs only", "[common][compare]") {
  const std::vector<double> expected{1.0, 2.0, 3.0, 4.0};
  const std::vector<float> got{1.5f, std::numeric_limits<float>::quiet_NaN(),
                               std::numeric_limits<float>::infinity(), 4.0f};
  const cudalab::CompareResult r = cudalab::compare(got, expected, cudalab::Tolerance{});
  CHECK(r.mismatches == 3);
  CHECK(r.max_abs_error == 0.5);
  CHECK(r.max_error_index == 0);
}

TEST_CASE("compare of vectors of different sizes reports mismatches", "[common][compare]") {
  const std::vector<double> expected{1.0, 2.0, 3.0, 4.0};

  SECTION("result too short") {
    const std::vector<float> got{1.0f, 2.0f};
    const cudalab::CompareResult r = cudalab::compare(got, expected, cudalab::Tolerance{});
    CHECK_FALSE(r.ok());
    CHECK(r.count == 4);
    CHECK(r.mismatches == 2);
  }
  SECTION("result too long") {
    const std::vector<float> got{1.0f, 2.0f, 3.0f, 4.0f, 5.0f};
    const cudalab::CompareResult r = cudalab::compare(got, expected, cudalab::Tolerance{});
    CHECK_FALSE(r.ok());
    CHECK(r.mismatches >= 1);
  }
  SECTION("empty result") {
    const cudalab::CompareResult r =
        cudalab::compare(std::vector<float>{}, expected, cudalab::Tolerance{});
    CHECK_FALSE(r.ok());
    CHECK(r.mismatches == 4);
  }
}

TEST_CASE("describe names the counts and tolerance and largest error and each reported mismatch",
          "[common][compare]") {
  std::vector<double> expected(8, 1.0);
  expected[3] = 57.0;
  std::vector<float> got(expected.begin(), expected.end());

  SECTION("a wrong value") {
    got[3] = 0.0f;
    const cudalab::Tolerance tol{0.0, 0.0};
    const std::string text = cudalab::describe(cudalab::compare(got, expected, tol), tol);
    CAPTURE(text);
    test_support::check_contains_all(
        text, {"1 of 8 elements differ", "atol 0, rtol 0", "max |error| 57 at index 3",
               "index 3: expected 57, got 0"});
    CHECK_FALSE(contains(text, "never written"));
    CHECK_FALSE(contains(text, "..."));
    CHECK(text ==
          "1 of 8 elements differ (atol 0, rtol 0); max |error| 57 at index 3\n"
          "  index 3: expected 57, got 0");
  }
  SECTION("an element never written (NaN sentinel)") {
    got[3] = std::numeric_limits<float>::quiet_NaN();
    const cudalab::Tolerance tol{1e-5, 1e-4};
    const std::string text = cudalab::describe(cudalab::compare(got, expected, tol), tol);
    CAPTURE(text);
    CHECK(contains(text, "index 3: expected 57, got nan (never written?)"));
  }
  SECTION("more mismatches than reported end with an ellipsis") {
    for (auto& g : got) g = -1.0f;
    const cudalab::Tolerance tol{};
    const std::string text = cudalab::describe(cudalab::compare(got, expected, tol, 2), tol);
    CAPTURE(text);
    CHECK(contains(text, "8 of 8 elements differ"));
    CHECK(contains(text, "index 0: expected 1, got -1"));
    CHECK(contains(text, "index 1: expected 1, got -1"));
    CHECK_FALSE(contains(text, "index 2:"));
    const std::string ellipsis = "\n  ...";
    CHECK(text.size() > ellipsis.size());
    CHECK(text.compare(text.size() - ellipsis.size(), ellipsis.size(), ellipsis) == 0);
  }
}

TEST_CASE("format_value prints nan and inf and -inf and short numbers", "[common][compare]") {
  CHECK(cudalab::format_value(kNaN) == "nan");
  CHECK(cudalab::format_value(-kNaN) == "nan");
  CHECK(cudalab::format_value(kInf) == "inf");
  CHECK(cudalab::format_value(-kInf) == "-inf");
  CHECK(cudalab::format_value(57.0) == "57");
  CHECK(cudalab::format_value(-2.5) == "-2.5");
  CHECK(cudalab::format_value(0.0) == "0");
}

TEST_CASE("format_value text reads back as the same float", "[common][compare]") {
  const float value = GENERATE(0.1f, 1.0f / 3.0f, -123456.789f, 1e-30f, 3.4e38f, 16777217.0f);
  CAPTURE(value);
  const std::string text = cudalab::format_value(value);
  CAPTURE(text);
  CHECK(std::stof(text) == value);
}

TEST_CASE("describe() counts NaN outputs apart and leaves out a meaningless max error",
          "[common][compare]") {
  const std::vector<double> expected = {1.0, 2.0, 3.0};
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> got = {nan, nan, nan};
  const auto r = cudalab::compare(got, expected, {0.0, 0.0});
  CHECK(r.unwritten == 3);
  const std::string text = cudalab::describe(r, {0.0, 0.0});
  CAPTURE(text);
  CHECK(text.find("3 hold NaN (never written?)") != std::string::npos);
  CHECK(text.find("max |error|") == std::string::npos);
}
