// Lab 09 at the timed size: the bound that the performance check holds every timed acceleration
// to, and the sampled check in double before the timing (docs/grading.md, "Lab 09: the timed
// size's bound, derived"). Host code only: the host tests use all of it without a GPU.
//
// The worst-case bound (n + c) u S of nbody_cpu.h grows with n, while what leaving out part of
// the sources does to a body's sum grows with sqrt(n) only: at n = 2^18 a candidate that sums
// every second source body with twice its mass stays inside the worst case. The rounding of a
// float sum is not the worst case, though: each addition's error is at most u |partial sum| <=
// u S, of either sign, so n of them add up like a random walk, and by the Azuma-Hoeffding
// inequality their sum exceeds kappa sqrt(n) u S with probability at most 2 exp(-kappa^2 / 2)
// (kappa = 8: 2.5e-14), whatever the order. With the terms' own error (c u S, counted as a worst
// case):
//     |a_got - a_exact| <= (c + kappa sqrt(n)) u S
// for every correct order of summation. Skipping sources, on the other hand, errs by
// sum_j (w_j - 1) t_j, about sqrt(n) rms(t) >= sqrt(n) S / n: at least 1 / (kappa u n) = 2^21 / n
// times the rounding part of the bound (8 at n = 2^18; measured, the half-sources result errs by a
// median of ~150 u sqrt(n) S, against kappa = 8).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nbody_cpu.h"

namespace lab09 {

// kappa: the rounding of a sum in units of u sqrt(n) S that no correct order exceeds (above).
inline constexpr double kRoundingSigmas = 8.0;
// The bound's kappa grows to this many times the reference's own largest error on the sample,
// should that ever be more than kRoundingSigmas / 4 (it measures ~0.1), up to kMaxKappa: a
// reference far off (or NaN) cannot open the bound further, and at kappa = 32 the half-sources
// result is still beyond it in most components.
inline constexpr double kReferenceErrorFactor = 4.0;
inline constexpr double kMaxKappa = 32.0;

// (c + kappa sqrt(n)) u S: the largest error of a float computation of a component, for any order
// of summation, but for a probability of at most 2 exp(-kappa^2 / 2).
double timed_acc_bound(int n, double scale, double kappa = kRoundingSigmas);

// |error| in units of u sqrt(n) S (the rounding scale of a sum of n terms); 0 for no error, an
// infinity for an error where S = 0 (or NaN).
double rounding_units(double error, int n, double scale);

// The `count` bodies nearest the origin (the centre of the cube), in no particular order: where S
// is largest. All of them when count >= n.
std::vector<int> central_bodies(const std::vector<float>& bodies, int count);

// The bodies the timed size's check compares: the 16 nearest the centre, then sample_bodies(n,
// count, seed) (the first 8, the last 64 and `count` seeded others) less those, no repeats.
std::vector<int> timed_sample(const std::vector<float>& bodies, int count, std::uint64_t seed);

inline constexpr int kCentralBodies = 16;

// The verdict of the check in double: the candidate's and the reference's accelerations of the
// sampled bodies (3 floats each, in the order of exact.bodies) against the CPU's.
struct TimedSizeVerdict {
  double reference_units = 0.0;  // the reference's largest error, in units of u sqrt(n) S
  double candidate_units = 0.0;  // the candidate's (an infinity for NaN)
  // max(kRoundingSigmas, min(kReferenceErrorFactor x reference_units, kMaxKappa))
  double kappa = kRoundingSigmas;
  std::string problem;  // "" or why the candidate's accelerations are not a full sum
};
TimedSizeVerdict judge_timed_size(const std::vector<float>& candidate,
                                  const std::vector<float>& reference, const AccReference& exact,
                                  int n);

// The tolerance of a timed run's accelerations against the reference's on the same bodies: each
// within timed_acc_bound of the exact sum, so twice it; one value for every component, from the
// largest S (at the centre, `central_scale`) raised by a quarter for the other draws (S varies by
// about 1% from one draw to the next).
double timed_between_atol(int n, double central_scale, double kappa);

}  // namespace lab09
