#include "nbody_cpu.h"

#include <algorithm>
#include <cmath>
#include <random>

#include "cudalab/compare.h"
#include "cudalab/parallel.h"

namespace lab09 {

namespace {

// At least 1e5 interactions per thread (a thread costs ~20 us to start).
constexpr double kWorkPerThread = 1e5;

// Uniform double in [0, 1) from the standard-specified mt19937_64: the same on every platform.
double uniform01(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * (1.0 / 9007199254740992.0);
}

void random_direction(std::mt19937_64& rng, double length, float* out) {
  const double z = 2.0 * uniform01(rng) - 1.0;
  const double phi = 2.0 * M_PI * uniform01(rng);
  const double rxy = std::sqrt(std::max(0.0, 1.0 - z * z));
  out[0] = static_cast<float>(length * rxy * std::cos(phi));
  out[1] = static_cast<float>(length * rxy * std::sin(phi));
  out[2] = static_cast<float>(length * z);
}

// Accelerations of every body of a double-precision state (for the double leapfrog).
void accelerations_double(const std::vector<double>& pos, const std::vector<double>& mass,
                          double eps2, std::vector<double>& acc) {
  const std::size_t n = mass.size();
  cudalab::parallel_ranges(
      n, static_cast<double>(n), kWorkPerThread, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          double ax = 0, ay = 0, az = 0;
          for (std::size_t j = 0; j < n; ++j) {
            const double dx = pos[3 * j] - pos[3 * i], dy = pos[3 * j + 1] - pos[3 * i + 1],
                         dz = pos[3 * j + 2] - pos[3 * i + 2];
            const double s = dx * dx + dy * dy + dz * dz + eps2;
            const double f = mass[j] / (s * std::sqrt(s));
            ax += dx * f;
            ay += dy * f;
            az += dz * f;
          }
          acc[3 * i] = ax;
          acc[3 * i + 1] = ay;
          acc[3 * i + 2] = az;
        }
      });
}

double energy_double(const std::vector<double>& pos, const std::vector<double>& vel,
                     const std::vector<double>& mass, double eps2) {
  const std::size_t n = mass.size();
  // Body i's share of the potential, -sum_{j>i} m_i m_j / r_ij, computed on several threads, then
  // summed in order.
  std::vector<double> share(n);
  cudalab::parallel_ranges(
      n, 0.5 * static_cast<double>(n), kWorkPerThread, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) {
          double p = 0;
          for (std::size_t j = i + 1; j < n; ++j) {
            const double dx = pos[3 * j] - pos[3 * i], dy = pos[3 * j + 1] - pos[3 * i + 1],
                         dz = pos[3 * j + 2] - pos[3 * i + 2];
            p -= mass[i] * mass[j] / std::sqrt(dx * dx + dy * dy + dz * dz + eps2);
          }
          share[i] = p;
        }
      });
  double kinetic = 0, potential = 0;
  for (std::size_t i = 0; i < n; ++i) {
    kinetic += 0.5 * mass[i] *
               (vel[3 * i] * vel[3 * i] + vel[3 * i + 1] * vel[3 * i + 1] +
                vel[3 * i + 2] * vel[3 * i + 2]);
    potential += share[i];
  }
  return kinetic + potential;
}

// n bodies at the origin, of mass 0 and at rest: the sizes filled in, the values left to the
// caller.
System empty_system(int n) {
  System s;
  s.bodies.resize(4 * static_cast<std::size_t>(n));
  s.vel.resize(3 * static_cast<std::size_t>(n));
  return s;
}

// |v|^2 of body i, in double.
double speed_squared(const System& s, int i) {
  double v2 = 0;
  for (int c = 0; c < 3; ++c) v2 += static_cast<double>(s.vel[3 * i + c]) * s.vel[3 * i + c];
  return v2;
}

}  // namespace

AccReference accelerations_cpu(const std::vector<float>& bodies, double softening,
                               const std::vector<int>& only) {
  const int n = static_cast<int>(bodies.size() / 4);
  AccReference r;
  if (only.empty()) {
    r.bodies.resize(n);
    for (int i = 0; i < n; ++i) r.bodies[i] = i;
  } else {
    r.bodies = only;
  }
  const double eps2 = softening * softening;
  r.acc.assign(3 * r.bodies.size(), 0.0);
  r.scale.assign(3 * r.bodies.size(), 0.0);
  cudalab::parallel_ranges(r.bodies.size(), static_cast<double>(n), kWorkPerThread,
                           [&](std::size_t begin, std::size_t end) {
                             for (std::size_t k = begin; k < end; ++k) {
                               const std::size_t i = static_cast<std::size_t>(r.bodies[k]);
                               const double xi = bodies[4 * i], yi = bodies[4 * i + 1],
                                            zi = bodies[4 * i + 2];
                               double a[3] = {0, 0, 0}, s[3] = {0, 0, 0};
                               for (int j = 0; j < n; ++j) {
                                 const double d[3] = {bodies[4 * j] - xi, bodies[4 * j + 1] - yi,
                                                      bodies[4 * j + 2] - zi};
                                 const double q = d[0] * d[0] + d[1] * d[1] + d[2] * d[2] + eps2;
                                 const double f = bodies[4 * j + 3] / (q * std::sqrt(q));
                                 for (int c = 0; c < 3; ++c) {
                                   a[c] += d[c] * f;
                                   s[c] += std::fabs(d[c] * f);
                                 }
                               }
                               for (int c = 0; c < 3; ++c) {
                                 r.acc[3 * k + c] = a[c];
                                 r.scale[3 * k + c] = s[c];
                               }
                             }
                           });
  return r;
}

double acc_tolerance(int n, double scale) {
  return (n + kTermErrorUnits) * kUnitRoundoff * scale;
}

std::string component_label(int body, int component, const char* prefix) {
  return "body " + std::to_string(body) + " " + prefix + "xyz"[component];
}

std::string describe_mismatches(const std::vector<float>& got, const Labelled& ref) {
  if (got.size() != ref.expected.size())
    return "size " + std::to_string(got.size()) + ", expected " +
           std::to_string(ref.expected.size());
  std::size_t bad = 0, nans = 0, worst = 0;
  double worst_error = -1;
  std::vector<std::size_t> first;
  for (std::size_t e = 0; e < got.size(); ++e) {
    const double g = got[e], x = ref.expected[e];
    if (cudalab::within_tolerance(g, x, {ref.tol[e], 0.0})) continue;
    ++bad;
    if (std::isnan(g) && !std::isnan(x)) ++nans;
    if (std::isfinite(g) && std::isfinite(x) && std::fabs(g - x) > worst_error) {
      worst_error = std::fabs(g - x);
      worst = e;
    }
    if (first.size() < 10) first.push_back(e);
  }
  if (bad == 0) return "";
  std::string s = std::to_string(bad) + " of " + std::to_string(got.size()) +
                  " values differ (tolerance from the error bound)";
  if (nans > 0)
    s += "; " + std::to_string(nans) +
         " hold NaN (never written, or 0/0 or inf - inf in the arithmetic?)";
  if (worst_error >= 0)
    s += "; largest error " + cudalab::format_value(worst_error) + " at " + ref.labels[worst];
  for (const std::size_t e : first)
    s += "\n  " + ref.labels[e] + ": expected " + cudalab::format_value(ref.expected[e]) +
         ", got " + cudalab::format_value(got[e]) + " (tolerance " +
         cudalab::format_value(ref.tol[e]) + ")";
  return s;
}

System random_system(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  System s = empty_system(n);
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) s.bodies[4 * i + c] = static_cast<float>(2 * uniform01(rng) - 1);
    s.bodies[4 * i + 3] = static_cast<float>(0.5 + uniform01(rng));
    for (int c = 0; c < 3; ++c) s.vel[3 * i + c] = static_cast<float>(2 * uniform01(rng) - 1);
  }
  return s;
}

System coincident_system(int n, int distinct, std::uint64_t seed) {
  System points = random_system(distinct, seed);
  System s = random_system(n, seed + 1);  // masses and velocities
  std::mt19937_64 rng(seed + 2);
  for (int i = 0; i < n; ++i) {
    const auto p = static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(distinct));
    for (int c = 0; c < 3; ++c) s.bodies[4 * i + c] = points.bodies[4 * p + c];
  }
  return s;
}

System plummer_system(int n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  System s = empty_system(n);
  for (int i = 0; i < n; ++i) {
    double r;
    do {  // inverse of the cumulative mass M(r) = r^3 / (1 + r^2)^(3/2)
      const double x = std::max(uniform01(rng), 1e-12);
      r = 1.0 / std::sqrt(std::pow(x, -2.0 / 3.0) - 1.0);
    } while (r > 10.0);
    random_direction(rng, r, &s.bodies[4 * i]);
    s.bodies[4 * i + 3] = static_cast<float>(1.0 / n);
    double q, y;
    do {  // speed as a fraction q of the escape speed: density q^2 (1 - q^2)^(7/2)
      q = uniform01(rng);
      y = 0.1 * uniform01(rng);
    } while (y > q * q * std::pow(1.0 - q * q, 3.5));
    random_direction(rng, q * std::sqrt(2.0) * std::pow(1.0 + r * r, -0.25), &s.vel[3 * i]);
  }
  // Centre-of-mass frame: no drift of the whole cluster, total momentum (nearly) 0.
  double cm[6] = {0, 0, 0, 0, 0, 0};
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) {
      cm[c] += s.bodies[4 * i + c] / n;
      cm[3 + c] += s.vel[3 * i + c] / n;
    }
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) {
      s.bodies[4 * i + c] = static_cast<float>(s.bodies[4 * i + c] - cm[c]);
      s.vel[3 * i + c] = static_cast<float>(s.vel[3 * i + c] - cm[3 + c]);
    }
  return s;
}

double kinetic_energy(const System& s) {
  double e = 0;
  for (int i = 0; i < s.n(); ++i) e += 0.5 * s.bodies[4 * i + 3] * speed_squared(s, i);
  return e;
}

double potential_energy(const System& s, double softening) {
  const int n = s.n();
  double e = 0;
  for (int i = 0; i < n; ++i)
    for (int j = i + 1; j < n; ++j) {
      double r2 = softening * softening;
      for (int c = 0; c < 3; ++c) {
        const double d = static_cast<double>(s.bodies[4 * j + c]) - s.bodies[4 * i + c];
        r2 += d * d;
      }
      e -= static_cast<double>(s.bodies[4 * i + 3]) * s.bodies[4 * j + 3] / std::sqrt(r2);
    }
  return e;
}

double total_energy(const System& s, double softening) {
  return kinetic_energy(s) + potential_energy(s, softening);
}

std::array<double, 3> momentum(const System& s) {
  std::array<double, 3> p{0, 0, 0};
  for (int i = 0; i < s.n(); ++i)
    for (int c = 0; c < 3; ++c) p[c] += static_cast<double>(s.bodies[4 * i + 3]) * s.vel[3 * i + c];
  return p;
}

double momentum_scale(const System& s) {
  double m = 0;
  for (int i = 0; i < s.n(); ++i) m += s.bodies[4 * i + 3] * std::sqrt(speed_squared(s, i));
  return m;
}

double force_error_scale(const System& s, double softening) {
  const AccReference r = accelerations_cpu(s.bodies, softening);
  double total = 0;
  for (int i = 0; i < s.n(); ++i)
    for (int c = 0; c < 3; ++c) total += s.bodies[4 * i + 3] * r.scale[3 * i + c];
  return total;
}

double energy_drift_cpu(const System& s, double softening, double dt, int steps,
                        bool forward_euler) {
  const int n = s.n();
  std::vector<double> pos(3 * n), vel(3 * n), mass(n), acc(3 * n);
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < 3; ++c) {
      pos[3 * i + c] = s.bodies[4 * i + c];
      vel[3 * i + c] = s.vel[3 * i + c];
    }
    mass[i] = s.bodies[4 * i + 3];
  }
  const double eps2 = softening * softening;
  const double e0 = energy_double(pos, vel, mass, eps2);
  double drift = 0;
  accelerations_double(pos, mass, eps2, acc);
  for (int step = 0; step < steps; ++step) {
    if (forward_euler) {
      for (int k = 0; k < 3 * n; ++k) {
        pos[k] += vel[k] * dt;
        vel[k] += acc[k] * dt;
      }
      accelerations_double(pos, mass, eps2, acc);
    } else {
      for (int k = 0; k < 3 * n; ++k) {
        vel[k] += acc[k] * 0.5 * dt;
        pos[k] += vel[k] * dt;
      }
      accelerations_double(pos, mass, eps2, acc);
      for (int k = 0; k < 3 * n; ++k) vel[k] += acc[k] * 0.5 * dt;
    }
    drift = std::max(drift, std::fabs(energy_double(pos, vel, mass, eps2) - e0) / std::fabs(e0));
  }
  return drift;
}

double energy_drift_bound(double drift_double, int steps) {
  return 4.0 * drift_double + steps * 16.0 * kUnitRoundoff;
}

StepReference step_reference(const System& before, const std::vector<float>& acc_before,
                             const std::vector<float>& candidate_bodies_after, double dt,
                             double softening) {
  const int n = before.n();
  const double u = kUnitRoundoff;
  StepReference r;
  const AccReference after = accelerations_cpu(candidate_bodies_after, softening);
  for (Labelled* l : {&r.positions, &r.acc, &r.vel}) {
    l->expected.resize(3 * n);
    l->tol.resize(3 * n);
    l->labels.resize(3 * n);
  }
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < 3; ++c) {
      const int e = 3 * i + c;
      const double x = before.bodies[4 * i + c], v = before.vel[e], a = acc_before[e];
      const double a_new = after.acc[e];
      const double a_tol = acc_tolerance(n, after.scale[e]);
      // Each float update rounds once or twice per operation; 8u per term is generous.
      r.positions.expected[e] = x + (v + 0.5 * a * dt) * dt;
      r.positions.tol[e] = 8 * u * (std::fabs(x) + std::fabs(v) * dt + std::fabs(a) * dt * dt);
      r.positions.labels[e] = component_label(i, c, "r");
      r.acc.expected[e] = a_new;
      r.acc.tol[e] = a_tol;
      r.acc.labels[e] = component_label(i, c, "a");
      r.vel.expected[e] = v + 0.5 * (a + a_new) * dt;
      r.vel.tol[e] =
          8 * u * (std::fabs(v) + (std::fabs(a) + std::fabs(a_new)) * dt) + 0.5 * a_tol * dt;
      r.vel.labels[e] = component_label(i, c, "v");
    }
  return r;
}

}  // namespace lab09
