// Timing policy without a GPU: the sampling stopping rule and argument checks before CUDA calls.
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/catch.h"
#include "cudalab/stats.h"
#include "cudalab/timing.h"

namespace {

cudalab::TimingOptions small_options() {
  cudalab::TimingOptions options;
  options.min_samples = 5;
  options.max_samples = 10;
  options.target_rse = 0.01;
  options.time_cap_s = 2.0;
  return options;
}

std::vector<double> quiet(std::size_t n) {
  return std::vector<double>(n, 1.0);
}

// Alternating 1 and 3: RSE around 0.5 / sqrt(n), far above 1 %.
std::vector<double> noisy(std::size_t n) {
  std::vector<double> s(n);
  for (std::size_t i = 0; i < n; ++i) s[i] = (i % 2 == 0) ? 1.0 : 3.0;
  return s;
}

}  // namespace

TEST_CASE("sampling_done: no candidates means nothing to wait for", "[common][timing]") {
  CHECK(cudalab::sampling_done({}, 0.0, small_options()));
}

TEST_CASE("sampling_done: fewer than min_samples never stops", "[common][timing]") {
  const cudalab::TimingOptions options = small_options();
  const std::size_t n = GENERATE(std::size_t{0}, std::size_t{1}, std::size_t{4});
  CAPTURE(n);
  CHECK_FALSE(cudalab::sampling_done({quiet(n)}, 0.0, options));
  CHECK_FALSE(cudalab::sampling_done({quiet(n), quiet(n)}, 0.0, options));
  // min_samples comes first, even past the time cap.
  CHECK_FALSE(cudalab::sampling_done({quiet(n)}, 100.0, options));
}

TEST_CASE("sampling_done: max_samples stops even noisy candidates", "[common][timing]") {
  const cudalab::TimingOptions options = small_options();
  const std::size_t n = GENERATE(std::size_t{10}, std::size_t{11});
  CAPTURE(n);
  CHECK(cudalab::sampling_done({noisy(n), noisy(n)}, 0.0, options));
}

TEST_CASE("sampling_done: the time cap stops noisy candidates", "[common][timing]") {
  const cudalab::TimingOptions options = small_options();
  const std::vector<std::vector<double>> samples{noisy(6), quiet(6)};
  CHECK_FALSE(cudalab::sampling_done(samples, 1.999, options));
  CHECK(cudalab::sampling_done(samples, 2.0, options));
  CHECK(cudalab::sampling_done(samples, 50.0, options));
}

TEST_CASE("sampling_done: stops when every candidate's median RSE is within the target",
          "[common][timing]") {
  const cudalab::TimingOptions options = small_options();
  const std::size_t n = GENERATE(std::size_t{5}, std::size_t{9});
  CAPTURE(n);

  SECTION("all quiet") {
    CHECK(cudalab::sampling_done({quiet(n), quiet(n), quiet(n)}, 0.0, options));
  }
  SECTION("one noisy candidate keeps sampling") {
    CHECK_FALSE(cudalab::sampling_done({quiet(n), noisy(n), quiet(n)}, 0.0, options));
    CHECK_FALSE(cudalab::sampling_done({quiet(n), quiet(n), noisy(n)}, 0.0, options));
  }
}

TEST_CASE("sampling_done: a median RSE exactly at the target is good enough", "[common][timing]") {
  cudalab::TimingOptions options = small_options();
  const std::vector<double> samples{1.0, 1.01, 0.99, 1.02, 0.98, 1.0};
  const double rse = cudalab::median_relative_standard_error(samples);
  CAPTURE(rse);

  options.target_rse = rse;
  CHECK(cudalab::sampling_done({samples}, 0.0, options));
  options.target_rse = std::nextafter(rse, 0.0);
  CHECK_FALSE(cudalab::sampling_done({samples}, 0.0, options));
}

TEST_CASE("time_interleaved checks its options before touching the device", "[common][timing]") {
  // On a machine without a GPU any CUDA call would throw CudaError instead; a launch that ran
  // would set the flag.
  bool launched = false;
  const cudalab::Launch launch = [&launched](cudaStream_t) { launched = true; };
  cudalab::TimingOptions options;

  SECTION("min_samples > max_samples") {
    options.min_samples = 20;
    options.max_samples = 10;
    REQUIRE_THROWS_AS(cudalab::time_interleaved({launch, launch}, nullptr, options),
                      std::invalid_argument);
    REQUIRE_THROWS_AS(cudalab::time_launch(launch, nullptr, options), std::invalid_argument);
  }
  SECTION("host-clock timing without fence, or with one empty call for two launches") {
    options.host_clock_overhead = {[] { return 0.2; }};
    REQUIRE_THROWS_AS(cudalab::time_interleaved({launch}, nullptr, options), std::invalid_argument);
    options.fence = true;
    REQUIRE_THROWS_AS(cudalab::time_interleaved({launch, launch}, nullptr, options),
                      std::invalid_argument);
  }
  SECTION("min_samples < 1") {
    options.min_samples = 0;
    REQUIRE_THROWS_AS(cudalab::time_interleaved({launch}, nullptr, options), std::invalid_argument);
  }
  CHECK_FALSE(launched);
}

TEST_CASE("time_interleaved of no launches returns no timings", "[common][timing]") {
  CHECK(cudalab::time_interleaved({}, nullptr).empty());
}

TEST_CASE("add_checked_row: a right row is queued for timing, a wrong one is not",
          "[common][timing]") {
  struct Row {
    std::string status;
    double ms = 0, rse = 0;
  };
  std::vector<Row> rows;
  std::vector<std::size_t> timed;
  std::vector<cudalab::Launch> launches;
  int made = 0, ran = 0;
  const auto make = [&] {
    ++made;
    return cudalab::Launch([&ran](cudaStream_t) { ++ran; });
  };
  cudalab::add_checked_row(rows, timed, launches, Row{"ok"}, "", make);
  cudalab::add_checked_row(rows, timed, launches, Row{"ok"},
                           "case 'student': 3 of 9 rows wrong\nrow 4: expected 1, got 2", make);
  cudalab::add_checked_row(rows, timed, launches, Row{"ok"}, "", make);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].status == "ok");
  CHECK(rows[1].status == "wrong: case 'student': 3 of 9 rows wrong");
  CHECK(rows[2].status == "ok");
  CHECK(timed == std::vector<std::size_t>{0, 2});
  REQUIRE(launches.size() == 2);
  CHECK(timed == cudalab::ok_rows(rows));
  CHECK(made == 2);  // not for the wrong row
  CHECK(ran == 0);   // queued, not run
}

TEST_CASE("ok_rows: the rows whose status is ok, in order", "[common][timing]") {
  struct Row {
    std::string status;
    double ms = 0, rse = 0;
  };
  const std::vector<Row> rows = {{"ok"}, {"wrong: y"}, {"ok"}, {"skipped: ELL"}, {"ok"}};
  CHECK(cudalab::ok_rows(rows) == std::vector<std::size_t>{0, 2, 4});
  CHECK(cudalab::ok_rows(std::vector<Row>{}).empty());
  CHECK(cudalab::ok_rows(std::vector<Row>{{"refused: too big"}}).empty());
}

TEST_CASE("host-clock samples: the fenced times less the empty calls' median", "[common][timing]") {
  const std::vector<double> empty{0.21, 0.19, 0.20, 0.90};  // one slow wake-up among them
  const std::vector<double> got = cudalab::host_clock_samples({1.20, 1.30, 1.25}, empty);
  REQUIRE(got.size() == 3);
  CHECK(got[0] == Approx(1.20 - 0.205));
  CHECK(got[1] == Approx(1.30 - 0.205));
  CHECK(got[2] == Approx(1.25 - 0.205));
}

TEST_CASE("host-clock samples: work lost in a call's round trip is not a time",
          "[common][timing]") {
  // The reference's "0.0000 ms" of a noisy round trip, which once gave r = 0 and r = 393958.
  CHECK_THROWS_AS(cudalab::host_clock_samples({0.20, 0.21, 0.19}, {0.20, 0.21, 0.22}),
                  cudalab::RoundTripNoise);
  CHECK_THROWS_AS(cudalab::host_clock_samples({0.20}, {}), std::invalid_argument);
  // A noisy sample under the round trip gets a floor (5% of it), never zero or less.
  const std::vector<double> got = cudalab::host_clock_samples({0.1, 1.0, 1.0}, {0.2});
  CHECK(got[0] == Approx(cudalab::kMeasurableFraction * 0.2));
  CHECK(got[1] == Approx(0.8));
}
