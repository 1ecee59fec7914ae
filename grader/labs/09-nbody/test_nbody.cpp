// Host tests of lab 09's grading support: the CPU reference against values worked by hand, the
// tolerance against its error analysis (a float computation fits, half precision and a missing
// term do not), the generated systems, and the energy check's power to tell the leapfrog from a
// wrong order of updates.
#include <cmath>
#include <set>

#include "cudalab/catch.h"
#include "nbody_check.h"
#include "nbody_cpu.h"

namespace {

// What a plain float kernel computes for body i: terms in order, 1/sqrt, float sums. With `half`
// every partial sum is rounded to 11 significant bits (half precision); with `skip` >= 0 that
// source body is left out.
std::vector<float> float_accelerations(const lab09::System& s, float eps, bool half = false,
                                       int skip = -1) {
  const int n = s.n();
  const auto round_half = [](float x) {
    int e = 0;
    const float m = std::frexp(x, &e);
    return std::ldexp(std::nearbyint(m * 2048.0f) / 2048.0f, e);
  };
  std::vector<float> a(3 * static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    float acc[3] = {0, 0, 0};
    for (int j = 0; j < n; ++j) {
      if (j == skip) continue;
      float d[3];
      for (int c = 0; c < 3; ++c) d[c] = s.bodies[4 * j + c] - s.bodies[4 * i + c];
      const float q = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps * eps;
      const float inv = 1.0f / std::sqrt(q);
      const float f = s.bodies[4 * j + 3] * inv * inv * inv;
      for (int c = 0; c < 3; ++c) {
        acc[c] += d[c] * f;
        if (half) acc[c] = round_half(acc[c]);
      }
    }
    for (int c = 0; c < 3; ++c) a[3 * i + c] = acc[c];
  }
  return a;
}

lab09::Labelled labelled_all(const lab09::System& s, double eps) {
  const lab09::AccReference r = lab09::accelerations_cpu(s.bodies, eps);
  lab09::Labelled l;
  for (int i = 0; i < s.n(); ++i)
    for (int c = 0; c < 3; ++c) {
      l.expected.push_back(r.acc[3 * i + c]);
      l.tol.push_back(lab09::acc_tolerance(s.n(), r.scale[3 * i + c]));
      l.labels.push_back(lab09::component_label(i, c));
    }
  return l;
}

}  // namespace

TEST_CASE("CPU reference: two bodies 1 apart, by hand", "[lab09][host]") {
  lab09::System two;
  two.bodies = {0, 0, 0, 2, 1, 0, 0, 3};
  const auto r = lab09::accelerations_cpu(two.bodies, 0.5);
  // a_0x = m_1 * 1 / (1 + 0.25)^(3/2), a_1x = -m_0 / 1.25^(3/2)
  CHECK(r.acc[0] == Approx(2.1466252583997).epsilon(1e-12));
  CHECK(r.acc[3] == Approx(-1.4310835055998).epsilon(1e-12));
  CHECK(r.acc[1] == 0.0);
  CHECK(r.acc[5] == 0.0);
  CHECK(r.scale[0] == Approx(2.1466252583997).epsilon(1e-12));
}

TEST_CASE("CPU reference: one body and coincident bodies give 0, not NaN", "[lab09][host]") {
  const auto one = lab09::accelerations_cpu(lab09::random_system(1, 3).bodies, 0.05);
  for (const double a : one.acc) CHECK(a == 0.0);
  const lab09::System point = lab09::coincident_system(50, 1, 9);
  for (const double a : lab09::accelerations_cpu(point.bodies, 0.05).acc) CHECK(a == 0.0);
  const lab09::System few = lab09::coincident_system(200, 5, 11);
  std::set<std::vector<float>> distinct;
  for (int i = 0; i < few.n(); ++i)
    distinct.insert({few.bodies[4 * i], few.bodies[4 * i + 1], few.bodies[4 * i + 2]});
  CHECK(distinct.size() <= 5);
  for (const double a : lab09::accelerations_cpu(few.bodies, 0.05).acc) CHECK(std::isfinite(a));
}

TEST_CASE("CPU reference: the forces cancel in pairs (sum of m a is 0)", "[lab09][host]") {
  const lab09::System s = lab09::random_system(500, 21);
  const auto r = lab09::accelerations_cpu(s.bodies, 0.05);
  for (int c = 0; c < 3; ++c) {
    double total = 0, scale = 0;
    for (int i = 0; i < s.n(); ++i) {
      total += s.bodies[4 * i + 3] * r.acc[3 * i + c];
      scale += s.bodies[4 * i + 3] * r.scale[3 * i + c];
    }
    CHECK(std::fabs(total) <= 1e-12 * scale);
  }
}

TEST_CASE("the softening bounds S: S <= 0.385 M / eps^2", "[lab09][host]") {
  const lab09::System s = lab09::random_system(300, 5);
  double mass = 0;
  for (int i = 0; i < s.n(); ++i) mass += s.bodies[4 * i + 3];
  for (const double eps : {0.01, 0.05, 0.5}) {
    const auto r = lab09::accelerations_cpu(s.bodies, eps);
    for (const double sc : r.scale) REQUIRE(sc <= 0.3849002 * mass / (eps * eps));
  }
}

TEST_CASE("tolerance: a float computation fits the bound", "[lab09][host]") {
  for (const int n : {1, 2, 257, 1000}) {
    CAPTURE(n);
    const lab09::System s = lab09::random_system(n, 40 + n);
    CHECK(
        lab09::describe_mismatches(float_accelerations(s, 0.05f), labelled_all(s, 0.05f)).empty());
  }
  const lab09::System p = lab09::plummer_system(1000, 3);
  CHECK(lab09::describe_mismatches(float_accelerations(p, 0.02f), labelled_all(p, 0.02f)).empty());
  const lab09::System c = lab09::coincident_system(300, 100, 8);
  CHECK(lab09::describe_mismatches(float_accelerations(c, 0.05f), labelled_all(c, 0.05f)).empty());
}

TEST_CASE("tolerance: half-precision sums and a missing term do not fit", "[lab09][host]") {
  const lab09::System s = lab09::random_system(1000, 77);
  const std::string half =
      lab09::describe_mismatches(float_accelerations(s, 0.05f, true), labelled_all(s, 0.05f));
  CHECK(half.find("values differ") != std::string::npos);
  // Leaving out the last body (a tail tile one short) shows in most components.
  const std::string skipped =
      lab09::describe_mismatches(float_accelerations(s, 0.05f, false, 999), labelled_all(s, 0.05f));
  REQUIRE(skipped.find("values differ") != std::string::npos);
  CHECK(std::stoi(skipped) > 2000);
}

TEST_CASE("tolerance formula: (n + 64) u S", "[lab09][host]") {
  CHECK(lab09::acc_tolerance(1000, 1.0) == Approx(1064.0 / 16777216.0));
  CHECK(lab09::acc_tolerance(1, 0.0) == 0.0);
}

TEST_CASE("describe_mismatches names bodies, NaN and the tolerance", "[lab09][host]") {
  lab09::Labelled ref{{1.0, 2.0, 3.0}, {0.0, 0.5, 0.0}, {"body 0 ax", "body 0 ay", "body 0 az"}};
  CHECK(lab09::describe_mismatches({1.0f, 2.4f, 3.0f}, ref).empty());
  const std::string d = lab09::describe_mismatches({1.0f, NAN, 4.0f}, ref);
  CHECK(d.find("2 of 3 values differ") == 0);
  CHECK(d.find("1 hold NaN") != std::string::npos);
  CHECK(d.find("body 0 ay: expected 2, got nan (tolerance 0.5)") != std::string::npos);
  CHECK(d.find("largest error 1 at body 0 az") != std::string::npos);
  CHECK(lab09::describe_mismatches({1.0f}, ref) == "size 1, expected 3");
}

TEST_CASE("sample_bodies covers the first bodies and the last tile", "[lab09][host]") {
  const auto s = lab09::sample_bodies(1000, 100, 1);
  const std::set<int> set(s.begin(), s.end());
  CHECK(set.size() == s.size());
  for (const int i : {0, 7, 936, 999}) CHECK(set.count(i) == 1);
  CHECK(s.size() >= 72);
  CHECK(lab09::sample_bodies(3, 10, 1) == std::vector<int>{0, 1, 2});
}

TEST_CASE("Plummer sphere: total mass 1, at rest, in virial equilibrium", "[lab09][host]") {
  const lab09::System s = lab09::plummer_system(2000, 12);
  double mass = 0;
  for (int i = 0; i < s.n(); ++i) mass += s.bodies[4 * i + 3];
  CHECK(mass == Approx(1.0).epsilon(1e-5));
  for (const double p : lab09::momentum(s)) CHECK(std::fabs(p) < 1e-6);
  const double k = lab09::kinetic_energy(s), w = lab09::potential_energy(s, 0.0);
  CHECK(2 * k / std::fabs(w) == Approx(1.0).margin(0.15));
  CHECK(lab09::plummer_system(100, 4).bodies == lab09::plummer_system(100, 4).bodies);
}

TEST_CASE("energy check: the leapfrog stays within the bound, explicit Euler does not",
          "[lab09][host]") {
  // The graded system (Simulation in nbody_check.h), in double on the CPU.
  using Sim = lab09::Simulation;
  const lab09::System s = lab09::plummer_system(Sim::kN, 123);
  const double leapfrog = lab09::energy_drift_cpu(s, Sim::kSoftening, Sim::kDt, Sim::kSteps);
  const double euler = lab09::energy_drift_cpu(s, Sim::kSoftening, Sim::kDt, Sim::kSteps, true);
  const double bound = lab09::energy_drift_bound(leapfrog, Sim::kSteps);
  CAPTURE(leapfrog, euler, bound);
  CHECK(leapfrog < 1e-4);
  CHECK(bound < 1e-3);
  CHECK(euler > 10 * bound);
}

TEST_CASE("step reference: a float leapfrog step fits, a drift with the old velocity does not",
          "[lab09][host]") {
  const lab09::System s = lab09::random_system(300, 31);
  const float dt = 0.01f, eps = 0.05f;
  const auto a0 = lab09::accelerations_cpu(s.bodies, eps).acc;
  const std::vector<float> acc(a0.begin(), a0.end());
  for (const bool euler : {false, true}) {
    lab09::System after = s;
    for (int i = 0; i < s.n(); ++i)
      for (int c = 0; c < 3; ++c) {
        const float v = s.vel[3 * i + c], a = acc[3 * i + c];
        const float vh = euler ? v : v + a * (0.5f * dt);
        after.bodies[4 * i + c] = s.bodies[4 * i + c] + vh * dt;
      }
    const lab09::StepReference ref = lab09::step_reference(s, acc, after.bodies, dt, eps);
    std::vector<float> positions;
    for (int i = 0; i < s.n(); ++i)
      for (int c = 0; c < 3; ++c) positions.push_back(after.bodies[4 * i + c]);
    CAPTURE(euler);
    CHECK(lab09::describe_mismatches(positions, ref.positions).empty() == !euler);
    if (euler) continue;
    const std::vector<float> a_new = float_accelerations(after, eps);
    CHECK(lab09::describe_mismatches(a_new, ref.acc).empty());
    std::vector<float> v_new;
    for (int e = 0; e < 3 * s.n(); ++e)
      v_new.push_back((s.vel[e] + acc[e] * (0.5f * dt)) + a_new[e] * (0.5f * dt));
    CHECK(lab09::describe_mismatches(v_new, ref.vel).empty());
  }
}
