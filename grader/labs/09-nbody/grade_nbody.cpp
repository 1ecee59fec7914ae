// Lab 09 graded checks: all-pairs N-body.
//
// Accelerations of both kernels against the CPU reference in double, every component within the
// bound (n + c) u S derived in nbody_cpu.h (S from the softening and the bodies), on sizes around
// every tile size a kernel may use, 1 to 3 bodies, seeded sizes and softenings, and coincident
// bodies, which only the softening keeps finite. One leapfrog step against the CPU, checked part by
// part (positions, accelerations at the candidate's new positions, velocities); 200 steps of a
// Plummer sphere for momentum (conserved up to round-off) and energy (bounded drift). The
// technique check reads the candidate's PTX (no GPU needed): nbody_tiled_kernel must stage its
// source bodies in shared memory between barriers.
#include "grading.h"
#include "impls.h"
#include "launch_trace.h"
#include "technique.h"

using cudalab::grade::base_seed;
using cudalab::grade::under_sanitizer;

namespace {

// Under compute-sanitizer the accelerations checks take smaller sizes (size_cases: up to 2049,
// not 12289): racecheck's time grows with the shared-memory reads of a tiled kernel, n^2 per case.
// The random sizes go up to 700, not 3000: still several tiles of up to 256 bodies, with a
// partial last one.
constexpr int kSanitizedRandomMaxN = 700;

}  // namespace

GRADED_CHECK("tiled kernel stages source bodies in shared memory", "[lab09][technique]", 10,
             Needs::host) {
  using namespace cudalab::grade;
  const LaunchTrace trace = trace_launches([] {
    lab09::run_acc_case(lab09::random_case(1000, 0.01f, base_seed()), lab09::kCandidate.tiled,
                        "tiled");
  });
  require_candidate_technique(shared_tile_rule("nbody_tiled_kernel", "each tile of source bodies"),
                              trace);
}

namespace {
// The sizes around the tile and block sizes, then `random` random sizes (smaller under a
// sanitizer).
std::vector<lab09::AccCase> acc_cases(int random) {
  const bool sanitized = under_sanitizer();
  auto cases = lab09::size_cases(base_seed(), sanitized);
  for (auto& c :
       lab09::random_size_cases(base_seed(), random, sanitized ? kSanitizedRandomMaxN : 3000))
    cases.push_back(std::move(c));
  return cases;
}
}  // namespace

GRADED_CHECK("naive kernel: accelerations vs CPU reference", "[lab09][correctness]", 10,
             Needs::gpu) {
  lab09::require_all_acc(acc_cases(4), lab09::kCandidate.naive, "naive");
}

GRADED_CHECK("tiled kernel: accelerations vs CPU reference", "[lab09][correctness]", 15,
             Needs::gpu) {
  lab09::require_all_acc(acc_cases(6), lab09::kCandidate.tiled, "tiled");
}

GRADED_CHECK("N = 1 and coincident bodies stay finite", "[lab09][correctness]", 10, Needs::gpu) {
  const auto cases = lab09::finite_cases(base_seed());
  lab09::require_all_acc(cases, lab09::kCandidate.naive, "naive");
  lab09::require_all_acc(cases, lab09::kCandidate.tiled, "tiled");
}

GRADED_CHECK("tiled kernel: the largest size, sampled", "[lab09][correctness][large]", 5,
             Needs::gpu) {
  lab09::require_all_acc({lab09::largest_case(base_seed())}, lab09::kCandidate.tiled, "tiled");
}

GRADED_CHECK("one leapfrog step vs CPU reference", "[lab09][correctness]", 10, Needs::gpu) {
  lab09::require_all_steps(lab09::step_cases(base_seed()), lab09::kCandidate.step);
}

GRADED_CHECK("momentum conserved over 200 steps", "[lab09][correctness][large]", 5, Needs::gpu) {
  const lab09::Simulation sim = lab09::simulate(lab09::kCandidate, base_seed());
  if (!sim.problem.empty()) FAIL(sim.problem);
  for (std::size_t k = 0; k < sim.steps.size(); ++k)
    if (!(sim.momentum_error[k] <= sim.momentum_bound[k]))
      FAIL(sim.describe_case() << ": momentum not conserved: |P - P0| = " << sim.momentum_error[k]
                               << " after step " << sim.steps[k] << ", above the round-off bound "
                               << sim.momentum_bound[k]
                               << " (every pair's forces cancel: m_i a_ij = -m_j a_ji)");
}

GRADED_CHECK("energy drift bounded over 200 steps", "[lab09][correctness][large]", 5, Needs::gpu) {
  const lab09::Simulation sim = lab09::simulate(lab09::kCandidate, base_seed());
  if (!sim.problem.empty()) FAIL(sim.problem);
  // The same system in double precision with the leapfrog: its drift is the scheme's own.
  const double reference_drift =
      lab09::energy_drift_cpu(sim.initial, lab09::Simulation::kSoftening, lab09::Simulation::kDt,
                              lab09::Simulation::kSteps);
  const double bound = lab09::energy_drift_bound(reference_drift, lab09::Simulation::kSteps);
  for (std::size_t k = 0; k < sim.steps.size(); ++k)
    if (!(sim.energy_drift[k] <= bound))
      FAIL(sim.describe_case() << ": energy drift |E - E0| / |E0| = " << sim.energy_drift[k]
                               << " after step " << sim.steps[k] << ", above the bound " << bound
                               << " (the double-precision leapfrog drifts " << reference_drift
                               << "): check the order of kick, drift and kick");
}

GRADED_CHECK("performance vs reference", "[lab09][perf]", 15, Needs::gpu) {
  lab09::grade_nbody_performance("09", lab09::kCandidate.tiled, lab09::kReference.tiled);
}

GRADED_CHECK("timing harness self-check", "[lab09][selfcheck]", 0, Needs::gpu) {
  lab09::PerfCase perf(base_seed());
  cudalab::grade::check_timing_harness(perf.launch(lab09::kReference.tiled),
                                       lab09::PerfCase::workload());
}
