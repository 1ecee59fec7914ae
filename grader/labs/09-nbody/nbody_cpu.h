// Lab 09 host side: the CPU reference (double precision), the error bound that the grader's
// tolerance comes from, generated systems, and the physics the checks measure (energy, momentum).
// No device code here: the host tests use all of it without a GPU.
//
// Layouts, as on the device: bodies are 4 floats per body (x, y, z, m), velocities and
// accelerations 3 floats per body (x, y, z).
//
// The tolerance of an acceleration component (derivation, also in docs/labs/09-nbody.md):
//   one term t_j = m_j d_j / (|d_j|^2 + eps^2)^(3/2) computed in float carries a relative error of
//   at most c u, u = 2^-24: d = r_j - r_i is one rounding (u), the sum of squares plus eps^2 three
//   (3u, enters as its power -3/2: 4.5u), rsqrtf is within 2 ulp (4u, cubed: 12u), the products
//   with m_j and d two more (2u): about 23u. c = 64 leaves room for other correct ways to write
//   the term (1/sqrtf, a division, powf). Summing n terms in float, in any order, adds at most
//   (n - 1) u sum_j |t_j| (each partial sum is rounded once, and is at most sum_j |t_j|). So
//       |a_got - a_exact| <= (n + c) u S,   S = sum_j m_j |d_jk| / (|d_j|^2 + eps^2)^(3/2)
//   per component k, with S computed in double next to the reference. The softening bounds S:
//   r / (r^2 + eps^2)^(3/2) <= 2 / (3^(3/2) eps^2) = 0.385 / eps^2, so S <= 0.385 M / eps^2 for a
//   total mass M, and every term stays finite, the coincident ones included. The bound is what
//   float can do in the worst case; a half-precision sum (u = 2^-11) or a term left out (about
//   S/n, far above (n + c) u S for the sizes checked) does not fit in it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace lab09 {

inline constexpr double kUnitRoundoff = 1.0 / 16777216.0;  // u = 2^-24, float round-to-nearest
inline constexpr double kTermErrorUnits = 64.0;            // c: the error of one term, in units u

// A system of n bodies: positions and masses, velocities.
struct System {
  std::vector<float> bodies;  // 4n: x, y, z, m
  std::vector<float> vel;     // 3n
  int n() const { return static_cast<int>(bodies.size() / 4); }
};

// The CPU reference for the destination bodies `only` (all bodies when empty): acc and scale
// hold 3 values per listed body, in the order listed. scale is S of the bound above.
struct AccReference {
  std::vector<int> bodies;    // the destination bodies
  std::vector<double> acc;    // a_i, 3 per body
  std::vector<double> scale;  // S_ik, 3 per body
};
AccReference accelerations_cpu(const std::vector<float>& bodies, double softening,
                               const std::vector<int>& only = {});

// (n + c) u S: the largest error a float computation of a component may have.
double acc_tolerance(int n, double scale);

// A per-element comparison: element e passes iff |got - expected| <= tol[e]; NaN passes only
// against NaN, an infinity only against the same infinity. "" when every element passes,
// otherwise "<m> of <k> values differ (tolerance from the error bound); ..." and the first 10 as
// "<label>: expected E, got G (tolerance T)". label(e) names element e ("body 12 ay").
struct Labelled {
  std::vector<double> expected, tol;
  std::vector<std::string> labels;
};
std::string describe_mismatches(const std::vector<float>& got, const Labelled& ref);

// "body 12 ax" for element 3 * 12 + 0 of a 3-per-body array.
std::string component_label(int body, int component, const char* prefix = "a");

// Generated systems (seeded; identical on every platform).
// Positions uniform in [-1, 1)^3, masses uniform in [0.5, 1.5), velocities uniform in [-1, 1)^3.
System random_system(int n, std::uint64_t seed);
// n bodies on only `distinct` different positions (each position shared by several bodies).
System coincident_system(int n, int distinct, std::uint64_t seed);
// A Plummer sphere (G = 1, total mass 1, scale radius 1, radius cut at 10), equal masses, in
// virial equilibrium, moved to its centre-of-mass frame: a self-gravitating cluster to simulate.
System plummer_system(int n, std::uint64_t seed);

// Physics of a state, in double.
double kinetic_energy(const System& s);
double potential_energy(const System& s, double softening);  // -sum_{i<j} m_i m_j / sqrt(r^2+eps^2)
double total_energy(const System& s, double softening);
std::array<double, 3> momentum(const System& s);
double momentum_scale(const System& s);  // sum_i m_i |v_i|
// sum_i m_i sum_k S_ik: the scale of the force errors' effect on the momentum.
double force_error_scale(const System& s, double softening);

// Leapfrog (kick-drift-kick) in double: `steps` steps, returning the largest relative energy
// error max_t |E(t) - E(0)| / |E(0)| seen at every step. `forward_euler` integrates with the
// explicit Euler scheme instead (r += v dt with the old v, then v += a dt): what a wrong order of
// the updates amounts to; the host tests show that the energy check rejects it.
double energy_drift_cpu(const System& s, double softening, double dt, int steps,
                        bool forward_euler = false);

// The energy check's bound for a float run of `steps` steps: 4 times the double-precision run's
// drift (leapfrog's own truncation error, which a float run shares) plus the round-off a float
// run adds, at most 16 u of |E| per step (positions, velocities and forces are rounded once or a
// few times per step, each a relative u; leapfrog does not amplify them). On the graded system
// (Plummer, n = 1000, eps 0.05, dt 0.01, 200 steps) the double run drifts ~3e-6 and the bound is
// ~2e-4; the explicit Euler scheme drifts ~1e-2.
double energy_drift_bound(double drift_double, int steps);

// One step from the state (bodies, vel, acc) as the grader checks it: positions, then the
// accelerations at the CANDIDATE's new positions, then velocities. Each with its tolerance.
struct StepReference {
  Labelled positions;  // 3n: r + (v + a dt/2) dt
  Labelled acc;        // 3n: accelerations at the candidate's new positions
  Labelled vel;        // 3n: v + (a + a_new) dt/2
};
StepReference step_reference(const System& before, const std::vector<float>& acc_before,
                             const std::vector<float>& candidate_bodies_after, double dt,
                             double softening);

}  // namespace lab09
