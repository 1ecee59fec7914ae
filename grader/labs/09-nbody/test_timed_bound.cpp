// Host tests of lab 09's timed-size bound (nbody_timed.h): float sums in the orders a kernel may
// use stay within (c + 8 sqrt(n)) u S, with a wide margin; a candidate that sums every second
// source body with twice its mass (grader/labs/09-nbody/variants/
// cheat-half-sources-double-mass.patch), or leaves out a tenth of the sources, does not, at
// n = 4096 and at the timed size n = 2^18; the sample and the message.
#include <algorithm>
#include <cmath>
#include <functional>
#include <regex>
#include <set>

#include "cudalab/catch.h"
#include "nbody_check.h"
#include "nbody_timed.h"

namespace {

enum class Order { forward, reverse, chunks_of_32 };

// Body i's acceleration as a float kernel computes it: each term m_j w(j) d / (|d|^2 + eps^2)^(3/2)
// with 1/sqrtf, summed in float in `order` (chunks_of_32: 32 terms at a time into a partial sum,
// the partial sums added in turn, as the reference's pairs kernel and source-split tiles do).
// w(j) = 0 leaves source j out. 3 floats for each body of `only`.
std::vector<float> float_sums(
    const lab09::System& s, float eps, const std::vector<int>& only, Order order,
    const std::function<float(int)>& weight = [](int) { return 1.0f; }) {
  const int n = s.n();
  std::vector<float> out;
  for (const int i : only) {
    const auto term = [&](int j, float* a) {
      const float w = weight(j);
      if (w == 0.0f) return;
      float d[3];
      for (int c = 0; c < 3; ++c) d[c] = s.bodies[4 * j + c] - s.bodies[4 * i + c];
      const float q = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps * eps;
      const float inv = 1.0f / std::sqrt(q);
      const float f = (s.bodies[4 * j + 3] * w) * inv * inv * inv;
      for (int c = 0; c < 3; ++c) a[c] += d[c] * f;
    };
    float a[3] = {0, 0, 0};
    if (order == Order::forward)
      for (int j = 0; j < n; ++j) term(j, a);
    else if (order == Order::reverse)
      for (int j = n - 1; j >= 0; --j) term(j, a);
    else
      for (int start = 0; start < n; start += 32) {
        float partial[3] = {0, 0, 0};
        for (int j = start; j < std::min(n, start + 32); ++j) term(j, partial);
        for (int c = 0; c < 3; ++c) a[c] += partial[c];
      }
    for (const float v : a) out.push_back(v);
  }
  return out;
}

float every_second_doubled(int j) {
  return j % 2 == 0 ? 2.0f : 0.0f;
}
float nine_tenths(int j) {
  return j % 10 == 9 ? 0.0f : 10.0f / 9.0f;
}

// The variant's Expect (its message in grade_nbody_performance).
const std::regex kVariantMessage("timed size.+beyond the rounding bound");

}  // namespace

TEST_CASE("timed bound formula: (64 + kappa sqrt(n)) u S", "[lab09][host]") {
  CHECK(lab09::timed_acc_bound(1 << 18, 1.0) == Approx((64.0 + 8.0 * 512.0) / 16777216.0));
  CHECK(lab09::timed_acc_bound(4096, 2.0, 20.0) == Approx(2.0 * (64.0 + 20.0 * 64.0) / 16777216.0));
  // Against the worst case (n + 64) u S of the correctness checks: 63 times tighter at 2^18.
  CHECK(lab09::acc_tolerance(1 << 18, 1.0) / lab09::timed_acc_bound(1 << 18, 1.0) > 63.0);
  CHECK(lab09::timed_between_atol(1 << 18, 1.0, 8.0) ==
        Approx(2.0 * lab09::timed_acc_bound(1 << 18, 1.25, 8.0)));
  // 2 exp(-kappa^2 / 2), the chance that one sum's rounding exceeds kappa sqrt(n) u S, is below
  // 1e-13: over ~8e8 compared components (2^18 x 3 x 500 samples x 2 results) ~1e-4.
  CHECK(2.0 * std::exp(-lab09::kRoundingSigmas * lab09::kRoundingSigmas / 2.0) < 1e-13);
}

TEST_CASE("rounding_units: the error in units of u sqrt(n) S", "[lab09][host]") {
  CHECK(lab09::rounding_units(0.0, 100, 0.0) == 0.0);
  CHECK(lab09::rounding_units(10.0 / 16777216.0, 100, 1.0) == Approx(1.0));
  CHECK(lab09::rounding_units(-10.0 / 16777216.0, 100, 1.0) == Approx(1.0));
  CHECK(std::isinf(lab09::rounding_units(NAN, 100, 1.0)));
  CHECK(std::isinf(lab09::rounding_units(1e-3, 100, 0.0)));
}

TEST_CASE("central_bodies and timed_sample", "[lab09][host]") {
  lab09::System s = lab09::random_system(1000, 5);
  // Three bodies moved near the centre: they must be among the 16 nearest.
  for (const int i : {17, 500, 998})
    for (int c = 0; c < 3; ++c) s.bodies[4 * i + c] = 1e-3f * static_cast<float>(c + 1);
  const std::vector<int> central = lab09::central_bodies(s.bodies, 16);
  CHECK(central.size() == 16);
  const std::set<int> set(central.begin(), central.end());
  for (const int i : {17, 500, 998}) CHECK(set.count(i) == 1);
  // Every other body is at least as far as the farthest of them.
  double farthest = 0;
  const auto r2 = [&s](int i) {
    double r = 0;
    for (int c = 0; c < 3; ++c) r += static_cast<double>(s.bodies[4 * i + c]) * s.bodies[4 * i + c];
    return r;
  };
  for (const int i : central) farthest = std::max(farthest, r2(i));
  for (int i = 0; i < s.n(); ++i)
    if (set.count(i) == 0) CHECK(r2(i) >= farthest);
  CHECK(lab09::central_bodies(s.bodies, 5000).size() == 1000);

  const std::vector<int> sample = lab09::timed_sample(s.bodies, 256, 42);
  const std::set<int> all(sample.begin(), sample.end());
  CHECK(all.size() == sample.size());  // no repeats
  const std::set<int> first16(sample.begin(), sample.begin() + 16);
  CHECK(first16 == set);  // the central bodies first
  for (const int i : {0, 7, 936, 999}) CHECK(all.count(i) == 1);
  CHECK(sample.size() >= 16 + 72 + 200);
  CHECK(lab09::timed_sample(s.bodies, 256, 42) == sample);  // seeded
  CHECK(lab09::timed_sample(s.bodies, 256, 43) != sample);
}

TEST_CASE("timed bound at n = 4096: float sums in any order pass, half the sources do not",
          "[lab09][host]") {
  const int n = 4096;
  const float eps = 0.05f;
  const lab09::System s = lab09::random_system(n, 4096);
  const std::vector<int> sample = lab09::timed_sample(s.bodies, 256, 7);
  const lab09::AccReference exact = lab09::accelerations_cpu(s.bodies, eps, sample);
  const std::vector<float> reference = float_sums(s, eps, sample, Order::chunks_of_32);
  for (const Order order : {Order::forward, Order::reverse, Order::chunks_of_32}) {
    const lab09::TimedSizeVerdict v =
        lab09::judge_timed_size(float_sums(s, eps, sample, order), reference, exact, n);
    CAPTURE(static_cast<int>(order), v.candidate_units, v.reference_units, v.problem);
    CHECK(v.problem.empty());
    CHECK(v.kappa == lab09::kRoundingSigmas);
    CHECK(v.candidate_units < lab09::kRoundingSigmas / 4);  // a margin of 4 at least
  }
  // Every second source with twice its mass: the same total mass, half the interactions.
  const lab09::TimedSizeVerdict half = lab09::judge_timed_size(
      float_sums(s, eps, sample, Order::forward, every_second_doubled), reference, exact, n);
  CAPTURE(half.candidate_units, half.problem);
  CHECK(half.candidate_units > 50 * lab09::kRoundingSigmas);
  CHECK(std::regex_search(half.problem, kVariantMessage));
  // Most of the compared components are beyond the bound, not one by chance.
  const std::size_t components = 3 * sample.size();
  CHECK(std::stoul(half.problem.substr(half.problem.find("): ") + 3)) > components * 9 / 10);
  // A tenth of the sources left out, the others' masses raised to make up for it.
  const lab09::TimedSizeVerdict tenth = lab09::judge_timed_size(
      float_sums(s, eps, sample, Order::forward, nine_tenths), reference, exact, n);
  CHECK(tenth.candidate_units > 10 * lab09::kRoundingSigmas);
  CHECK(std::regex_search(tenth.problem, kVariantMessage));
}

TEST_CASE("timed bound at the timed size n = 2^18: the half-sources result fails it",
          "[lab09][host]") {
  // The performance case's distribution (PerfCase::fresh_bodies: positions in [-1, 1)^3, masses
  // in [0.5, 1.5)), on 16 central bodies and 16 others: the ones with the largest S and |a|.
  const int n = lab09::PerfCase::kN;
  const float eps = lab09::PerfCase::kSoftening;
  const lab09::System s = lab09::random_system(n, 2026);
  std::vector<int> sample = lab09::central_bodies(s.bodies, 16);
  for (const int i : {0, 1, 1000, 77777, 131072, 200000, 262000, 262143}) sample.push_back(i);
  const lab09::AccReference exact = lab09::accelerations_cpu(s.bodies, eps, sample);
  const std::vector<float> reference = float_sums(s, eps, sample, Order::chunks_of_32);
  const std::vector<float> plain = float_sums(s, eps, sample, Order::forward);
  const std::vector<float> half = float_sums(s, eps, sample, Order::forward, every_second_doubled);

  const lab09::TimedSizeVerdict ok = lab09::judge_timed_size(plain, reference, exact, n);
  CAPTURE(ok.candidate_units, ok.reference_units, ok.problem);
  CHECK(ok.problem.empty());
  CHECK(ok.candidate_units < lab09::kRoundingSigmas / 4);
  CHECK(ok.reference_units < lab09::kRoundingSigmas / 4);

  const lab09::TimedSizeVerdict cheat = lab09::judge_timed_size(half, reference, exact, n);
  CAPTURE(cheat.candidate_units, cheat.problem);
  CHECK(std::regex_search(cheat.problem, kVariantMessage));
  CHECK(cheat.candidate_units > 10 * lab09::kRoundingSigmas);
  // A reference that came back as NaN (or far off) opens the bound to kMaxKappa, no further, and
  // the half-sources result is still beyond it.
  const std::vector<float> broken(reference.size(), NAN);
  const lab09::TimedSizeVerdict wide = lab09::judge_timed_size(half, broken, exact, n);
  CHECK(wide.kappa == lab09::kMaxKappa);
  CHECK(std::regex_search(wide.problem, kVariantMessage));
  CHECK(lab09::judge_timed_size(plain, broken, exact, n).problem.empty());

  // The timed comparison on the device: before, 2 (n + c) u 1.25 S_max let the half-sources
  // result through on these bodies; now 2 (c + 8 sqrt(n)) u 1.25 S_max does not, while the plain
  // float sum stays far inside it.
  const double s_max = *std::max_element(exact.scale.begin(), exact.scale.begin() + 3 * 16);
  const double old_atol = 2.0 * lab09::acc_tolerance(n, 1.25 * s_max);
  const double new_atol = lab09::timed_between_atol(n, s_max, lab09::kRoundingSigmas);
  double half_largest = 0, plain_largest = 0;
  const double widest_atol = lab09::timed_between_atol(n, s_max, lab09::kMaxKappa);
  std::size_t half_beyond = 0, half_beyond_widest = 0;
  for (std::size_t e = 0; e < half.size(); ++e) {
    const double d = std::fabs(static_cast<double>(half[e]) - reference[e]);
    half_largest = std::max(half_largest, d);
    plain_largest =
        std::max(plain_largest, std::fabs(static_cast<double>(plain[e]) - reference[e]));
    if (d > new_atol) ++half_beyond;
    if (d > widest_atol) ++half_beyond_widest;
  }
  CAPTURE(old_atol, new_atol, half_largest, plain_largest, half_beyond, half_beyond_widest);
  CHECK(half_largest < old_atol);
  CHECK(half_beyond > half.size() / 2);
  CHECK(half_beyond_widest > half.size() / 4);  // the bound opened to kMaxKappa
  CHECK(plain_largest < new_atol / 10);
}

TEST_CASE("judge_timed_size: NaN fails, a reference beyond kappa / 4 widens the bound",
          "[lab09][host]") {
  const int n = 1000;
  const lab09::System s = lab09::random_system(n, 99);
  const std::vector<int> sample = lab09::timed_sample(s.bodies, 32, 1);
  const lab09::AccReference exact = lab09::accelerations_cpu(s.bodies, 0.05, sample);
  const std::vector<float> right = float_sums(s, 0.05f, sample, Order::forward);
  std::vector<float> unwritten = right;
  unwritten[5] = NAN;
  const lab09::TimedSizeVerdict v = lab09::judge_timed_size(unwritten, right, exact, n);
  CHECK(std::isinf(v.candidate_units));
  CHECK(v.problem.find("got nan") != std::string::npos);
  CHECK(v.problem.find(lab09::component_label(sample[1], 2)) != std::string::npos);
  // A reference off by 5 units: kappa becomes 20; a candidate 15 units off then passes.
  std::vector<float> reference(exact.acc.size()), candidate(exact.acc.size());
  const double unit = std::sqrt(static_cast<double>(n)) / 16777216.0;
  for (std::size_t e = 0; e < exact.acc.size(); ++e) {
    reference[e] = static_cast<float>(exact.acc[e] + 5.0 * unit * exact.scale[e]);
    candidate[e] = static_cast<float>(exact.acc[e] - 15.0 * unit * exact.scale[e]);
  }
  const lab09::TimedSizeVerdict wide = lab09::judge_timed_size(candidate, reference, exact, n);
  CHECK(wide.kappa == Approx(20.0).margin(0.2));  // the reference rounded to float
  CHECK(wide.problem.empty());
  CHECK_THROWS(lab09::judge_timed_size({1.0f}, reference, exact, n));
}
