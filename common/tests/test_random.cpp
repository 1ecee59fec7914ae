// Seeded input generators: reproducible, in range, covering the range, portable.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/catch.h"
#include "cudalab/random.h"
#include "test_support.h"

namespace {

// Sets (or unsets, for nullptr) CUDALAB_SEED and restores the previous state on destruction.
struct ScopedSeedEnv : test_support::ScopedEnv {
  explicit ScopedSeedEnv(const char* value) : ScopedEnv("CUDALAB_SEED", value) {}
};

}  // namespace

TEST_CASE("random_floats: the same seed gives the same values and another seed others",
          "[common][random]") {
  const std::uint64_t seed = GENERATE(std::uint64_t{0}, std::uint64_t{42}, std::uint64_t{2024});
  CAPTURE(seed);

  const std::vector<float> a = cudalab::random_floats(1000, seed);
  const std::vector<float> b = cudalab::random_floats(1000, seed);
  const std::vector<float> c = cudalab::random_floats(1000, seed + 1);
  CHECK(a == b);
  CHECK(a != c);
  // A shorter request is a prefix of a longer one.
  const std::vector<float> prefix = cudalab::random_floats(10, seed);
  CHECK(std::vector<float>(a.begin(), a.begin() + 10) == prefix);
}

TEST_CASE("random_floats: first values for seed 42 are pinned (portability)", "[common][random]") {
  // Computed once on x86-64 Linux with g++; any other platform must produce the same bits.
  const std::vector<float> v = cudalab::random_floats(3, 42);
  REQUIRE(v.size() == 3);
  CHECK(v[0] == 0x1.05477cp-1f);  // 0.510311007
  CHECK(v[1] == 0x1.1cbc78p-2f);  // 0.278062701
  CHECK(v[2] == 0x1.023258p-1f);  // 0.504290342
}

TEST_CASE("random_floats: values lie in the half-open range lo..hi and spread over it",
          "[common][random]") {
  const std::uint64_t seed = 7;
  const float lo = GENERATE(-1.0f, -2.0f, 0.0f);
  const float hi = lo + GENERATE(2.0f, 5.0f, 1e-3f);
  CAPTURE(seed, lo, hi);

  const std::vector<float> v = cudalab::random_floats(20000, seed, lo, hi);
  const auto [smallest, largest] = std::minmax_element(v.begin(), v.end());
  CAPTURE(*smallest, *largest);
  CHECK(*smallest >= lo);
  CHECK(*largest < hi);
  // Spread over the range rather than clustered: both ends within 0.1 % of the width.
  CHECK(*smallest < lo + 0.001f * (hi - lo));
  CHECK(*largest > hi - 0.001f * (hi - lo));
}

TEST_CASE("random_floats: the default range is -1 (included) to 1 (excluded)", "[common][random]") {
  const std::vector<float> v = cudalab::random_floats(20000, 7);
  const auto [smallest, largest] = std::minmax_element(v.begin(), v.end());
  CAPTURE(*smallest, *largest);
  CHECK(*smallest >= -1.0f);
  CHECK(*largest < 1.0f);
  CHECK(v == cudalab::random_floats(20000, 7, -1.0f, 1.0f));
  CHECK(cudalab::random_floats(0, 7).empty());
}

TEST_CASE("random_small_ints: integers from lo to hi inclusive with every value appearing",
          "[common][random]") {
  const std::uint64_t seed = GENERATE(std::uint64_t{1}, std::uint64_t{99});
  const int lo = -3, hi = 3;
  CAPTURE(seed, lo, hi);

  const std::vector<float> v = cudalab::random_small_ints(5000, seed, lo, hi);
  const std::set<float> seen(v.begin(), v.end());
  CAPTURE(seen);
  for (float x : seen) {
    CAPTURE(x);
    CHECK(x == std::round(x));
    CHECK(x >= static_cast<float>(lo));
    CHECK(x <= static_cast<float>(hi));
  }
  CHECK(seen.size() == static_cast<std::size_t>(hi - lo + 1));
  CHECK(cudalab::random_small_ints(5000, seed, lo, hi) == v);
}

TEST_CASE("random_small_ints: a one-value range and an empty range", "[common][random]") {
  CHECK(cudalab::random_small_ints(100, 5, 4, 4) == std::vector<float>(100, 4.0f));
  REQUIRE_THROWS_AS(cudalab::random_small_ints(10, 5, 3, 2), std::invalid_argument);
}

TEST_CASE("random_small_ints: the widest int range has no overflow", "[common][random]") {
  const int lo = std::numeric_limits<int>::min(), hi = std::numeric_limits<int>::max();
  const std::vector<float> v = cudalab::random_small_ints(1000, 3, lo, hi);
  const auto [smallest, largest] = std::minmax_element(v.begin(), v.end());
  CAPTURE(*smallest, *largest);
  CHECK(static_cast<double>(*smallest) >= static_cast<double>(lo));
  CHECK(static_cast<double>(*largest) <= static_cast<double>(hi) + 1.0);  // rounding to float
  CHECK(*smallest < 0.0f);  // both halves of the range are reached
  CHECK(*largest > 0.0f);
}

TEST_CASE("random_int: deterministic and from lo to hi inclusive with every value appearing",
          "[common][random]") {
  const std::int64_t lo = -3, hi = 3;
  std::set<std::int64_t> seen;
  bool deterministic = true;
  for (std::uint64_t case_id = 0; case_id < 2000; ++case_id) {
    const std::uint64_t seed = cudalab::derive_seed(11, case_id);
    const std::int64_t x = cudalab::random_int(seed, lo, hi);
    deterministic = deterministic && cudalab::random_int(seed, lo, hi) == x;
    seen.insert(x);
  }
  CAPTURE(seen);
  CHECK(deterministic);
  CHECK(*seen.begin() == lo);
  CHECK(*seen.rbegin() == hi);
  CHECK(seen.size() == static_cast<std::size_t>(hi - lo + 1));
}

TEST_CASE("random_int: edge ranges", "[common][random]") {
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  CHECK(cudalab::random_int(5, 9, 9) == 9);
  CHECK(cudalab::random_int(5, kMax, kMax) == kMax);
  CHECK(cudalab::random_int(5, kMin, kMin) == kMin);
  REQUIRE_THROWS_AS(cudalab::random_int(5, 2, 1), std::invalid_argument);

  SECTION("the full 64-bit range is reachable without overflow") {
    std::set<std::int64_t> signs;
    for (std::uint64_t seed = 0; seed < 64; ++seed) {
      const std::int64_t x = cudalab::random_int(seed, kMin, kMax);
      CHECK(cudalab::random_int(seed, kMin, kMax) == x);
      signs.insert(x < 0 ? -1 : 1);
    }
    CHECK(signs.size() == 2);
  }
  SECTION("a range wider than half of int64") {
    std::int64_t largest = kMin;
    for (std::uint64_t seed = 0; seed < 64; ++seed)
      largest = std::max(largest, cudalab::random_int(seed, kMin, kMax - 1));
    CHECK(largest <= kMax - 1);
    CHECK(largest > 0);
  }
}

TEST_CASE("derive_seed: deterministic and distinct per case and per base", "[common][random]") {
  CHECK(cudalab::derive_seed(42, 7) == cudalab::derive_seed(42, 7));
  CHECK(cudalab::derive_seed(42, 7) != cudalab::derive_seed(42, 8));
  CHECK(cudalab::derive_seed(42, 7) != cudalab::derive_seed(43, 7));

  std::set<std::uint64_t> seeds;
  for (std::uint64_t case_id = 0; case_id < 1000; ++case_id)
    seeds.insert(cudalab::derive_seed(42, case_id));
  CHECK(seeds.size() == 1000);
  // Neighbouring cases get unrelated streams, not shifted copies of the base seed's stream.
  CHECK(cudalab::random_floats(8, cudalab::derive_seed(42, 0)) !=
        cudalab::random_floats(8, cudalab::derive_seed(42, 1)));
}

TEST_CASE("seed_from_env: CUDALAB_SEED overrides the fallback", "[common][random]") {
  SECTION("unset -> fallback") {
    ScopedSeedEnv env(nullptr);
    CHECK(cudalab::seed_from_env(17) == 17);
  }
  SECTION("empty -> fallback") {
    ScopedSeedEnv env("");
    CHECK(cudalab::seed_from_env(17) == 17);
  }
  SECTION("a number") {
    ScopedSeedEnv env("123");
    CHECK(cudalab::seed_from_env(17) == 123);
  }
  SECTION("the largest 64-bit seed") {
    ScopedSeedEnv env("18446744073709551615");
    CHECK(cudalab::seed_from_env(17) == std::numeric_limits<std::uint64_t>::max());
  }
}

TEST_CASE("seed_from_env: a value that is not a non-negative integer throws", "[common][random]") {
  const std::string text = GENERATE(as<std::string>{}, "abc", "-5", "12abc", " -5", " 5", "+5",
                                    "1.5", "99999999999999999999999");
  CAPTURE(text);
  ScopedSeedEnv env(text.c_str());
  REQUIRE_THROWS_AS(cudalab::seed_from_env(17), std::invalid_argument);
}
