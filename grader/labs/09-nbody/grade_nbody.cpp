// Lab 09 graded checks: all-pairs N-body.
//
// Accelerations of both kernels against the CPU reference in double, every component within the
// bound (n + c) u S derived in nbody_cpu.h (S from the softening and the bodies), on sizes around
// every tile size a kernel may use, 1 to 3 bodies, seeded sizes and softenings, and coincident
// bodies, which only the softening keeps finite. One leapfrog step against the CPU, checked part by
// part (positions, accelerations at the candidate's new positions, velocities); 200 steps of a
// Plummer sphere for momentum (conserved up to round-off) and energy (bounded drift). The
// technique check reads the candidate's PTX (no GPU needed): nbody_tiled_kernel must stage its
// source bodies in shared memory between barriers, and on a GPU what it executed must be a
// tile's (global and shared loads per interaction, read from the performance counters).
// Solutions only ([selfcheck], 0 points): the timing harness against itself, and every kernel of
// the reference forced, on any GPU, against the CPU reference (reference_kernels.h).
#include <algorithm>
#include <cstdint>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/random.h"
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

namespace {

// What a kernel that reuses each source body it loads executes over `interactions`
// interactions: global loads and texture fetches at most 0.25 per interaction (a tile of 8 bodies
// and more), where reading the sources from global memory in the inner loop makes 1.
cudalab::grade::ExecutionSignature reuse_signature(double interactions) {
  using namespace cudalab::grade;
  return [=](const ExecutedWork& w, std::string* summary) {
    *summary = executed_summary(w.all, interactions, "interaction");
    const std::string p = global_and_texture_problem(w, interactions, 0.25, "interaction");
    return p.empty() ? p
                     : p + ": each source body must come from global memory once per tile, not "
                           "once per interaction";
  };
}

// reuse_signature, and the tile in shared memory: shared loads at least 0.05 per interaction (a
// thread keeping up to 20 destinations).
cudalab::grade::ExecutionSignature tiled_signature(double interactions) {
  using namespace cudalab::grade;
  return [=](const ExecutedWork& w, std::string* summary) {
    if (std::string p = reuse_signature(interactions)(w, summary); !p.empty()) return p;
    const std::string p =
        per_unit_problem(lanes_per_unit(ExecutedWork::of(w.named, "shared_ld"), interactions), 0.05,
                         1e9, "shared-memory loads", "interaction");
    return p.empty() ? p : p + ": the interactions must read their source bodies from the tile";
  };
}

}  // namespace

GRADED_CHECK("tiled kernel stages source bodies in shared memory", "[lab09][technique]", 10,
             Needs::host) {
  using namespace cudalab::grade;
  // On a GPU, what ran: n = 1000 bodies (no multiple of any tile), n^2 = 10^6 interactions. A
  // tiled kernel loads each source body (one float4) from global memory once per block and tile,
  // and each destination once: with tiles of P bodies about 1/P + 1/n global loads per
  // interaction (a warp's load counted for its 32 lanes; the plain answer's P = 256: 0.005, the
  // reference's 64-body tiles: 0.03), where reading the sources from global memory in the inner
  // loop makes 1 (a warp reads one body for its 32 destinations; 4 with scalar loads). The bound,
  // 0.25, passes tiles of 8 bodies and more. Each interaction reads its source from the tile: one
  // shared load per lane (a float4), 1/K when a thread keeps K destinations (the reference's K
  // is 1 to 4); the floor, 0.05, passes K up to 20, where a token read once per thread makes 1/n.
  constexpr int n = 1000;
  const double interactions = static_cast<double>(n) * n;
  TechniqueRule rule = shared_tile_rule("nbody_tiled_kernel", "each tile of source bodies");
  rule.executed = tiled_signature(interactions);
  const LaunchTrace trace = trace_launches(
      [] {
        lab09::run_acc_case(lab09::random_case(n, 0.01f, base_seed()), lab09::kCandidate.tiled,
                            "tiled");
      },
      Counting::on);
  require_candidate_technique(rule, trace);
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

GRADED_CHECK("performance vs reference", "[lab09][perf][profile]", 15, Needs::gpu) {
  // The kernel timed must reuse each source body it loads too (perf.h, TimedRunChecks::executed):
  // the technique check's bound on global loads at 2^18 bodies, 2^36 interactions. Not its floor
  // on shared loads: at this size the reference's own kernel meets its bodies in registers,
  // passed between lanes by shuffles (Newton's third law, no shared memory; on an H200 0.002
  // global loads and no shared load per interaction).
  constexpr double n = lab09::PerfCase::kN;
  lab09::grade_nbody_performance("09", lab09::kCandidate.tiled, lab09::kReference.tiled,
                                 reuse_signature(n * n));
}

GRADED_CHECK("timing harness self-check", "[lab09][selfcheck]", 0, Needs::gpu) {
  lab09::PerfCase perf(base_seed());
  cudalab::grade::check_timing_harness(perf.launch(lab09::kReference.tiled),
                                       lab09::PerfCase::workload());
}

namespace {

// What the next forced run launches: run_acc_case takes a plain function.
lab09::ReferenceKernel forced_kernel = lab09::ReferenceKernel::naive;
int forced_sms = 0;  // the launch shape of a GPU of this many SMs; 0: this device's

void forced_accelerations(const float4* bodies, float3* acc, int n, float softening,
                          cudaStream_t stream) {
  lab09::reference::accelerations_forced(forced_kernel, bodies, acc, n, softening, forced_sms,
                                         stream);
}

using lab09::ReferenceKernel;
constexpr ReferenceKernel kEveryKernel[] = {
    ReferenceKernel::naive,       ReferenceKernel::tiled_64x1,  ReferenceKernel::tiled_128x1,
    ReferenceKernel::tiled_128x2, ReferenceKernel::tiled_128x4, ReferenceKernel::pairs};

// For each kernel the dispatch chooses on a GPU of `sms` SMs, the first and the last n it is
// chosen for (n from 1 to the first n of the pairs kernel, which keeps it from there on).
std::map<ReferenceKernel, std::pair<int, int>> dispatch_ranges(int sms) {
  std::map<ReferenceKernel, std::pair<int, int>> ranges;
  for (int n = 1;; ++n) {
    const ReferenceKernel k = lab09::reference::reference_kernel_for(n, sms);
    auto [it, first] = ranges.emplace(k, std::pair{n, n});
    if (!first) it->second.second = n;
    if (k == ReferenceKernel::pairs) return ranges;
  }
}

// The largest SM count (of 1 to 64) on which the dispatch ever chooses `k`; 0 if none.
int last_sm_count_choosing(ReferenceKernel k) {
  int last = 0;
  for (int sms = 1; sms <= 64; ++sms)
    if (dispatch_ranges(sms).count(k)) last = sms;
  return last;
}

std::string sm_count_text(int sms) {
  return std::to_string(sms) + (sms == 1 ? " SM" : " SMs");
}

// One case, every kernel of `kernels` forced on it with the launch shape of `sms` SMs (0: this
// device's), against one CPU reference: the problems, "" for each run that passed.
void run_forced(const lab09::AccCase& c, const std::vector<ReferenceKernel>& kernels, int sms,
                std::vector<std::string>& problems) {
  const lab09::AccReference reference = lab09::cpu_reference(c);
  for (const ReferenceKernel k : kernels) {
    forced_kernel = k;
    forced_sms = sms;
    const std::string what = std::string(lab09::reference_kernel_name(k)) +
                             " (forced, the launch shape of " +
                             (sms > 0 ? sm_count_text(sms) : "this GPU") + ")";
    problems.push_back(lab09::run_acc_case(c, forced_accelerations, what, &reference));
  }
}

}  // namespace

// The reference's accelerations_tiled runs one kernel of several, chosen from n and the SM count
// (reference_kernels.h): on a GPU of more than 15 SMs the one-sided tiled kernels with 128-thread
// blocks (1, 2 or 4 bodies per thread) never run, so the solution's correctness checks above,
// on an H100 or H200, do not test them. Here each kernel runs forced, on any GPU: with this GPU's
// launch shape on sizes with every kind of tail, with a small GPU's launch shape on the sizes where
// that GPU's dispatch chooses it, and on 2^15 + 3 bodies, sampled; every compared component within
// the lab's tolerance of the CPU reference in double (run_acc_case, as the graded checks).
GRADED_CHECK("every reference kernel forced vs CPU reference", "[lab09][selfcheck]", 0,
             Needs::gpu) {
  using cudalab::derive_seed;
  const std::vector<ReferenceKernel> every(std::begin(kEveryKernel), std::end(kEveryKernel));
  // The dispatch as the comments of the reference, reference_kernels.h and docs/labs/09-nbody.md
  // describe it.
  const char* const moved =
      ": the reference's dispatch changed; update reference_kernels.h, the comments of "
      "solutions/09-nbody/nbody.cu and docs/labs/09-nbody.md (and the sizes here)";
  const int pairs_from = dispatch_ranges(132).at(ReferenceKernel::pairs).first;
  if (pairs_from != 11617)
    FAIL("the pairs kernel runs from n = " << pairs_from << " on 132 SMs, not 11617" << moved);
  const std::pair<ReferenceKernel, int> last_sms[] = {{ReferenceKernel::tiled_128x1, 15},
                                                      {ReferenceKernel::tiled_128x2, 4},
                                                      {ReferenceKernel::tiled_128x4, 1}};
  for (const auto& [k, expected] : last_sms)
    if (const int got = last_sm_count_choosing(k); got != expected)
      FAIL(lab09::reference_kernel_name(k)
           << " is chosen on GPUs of up to " << got << " SMs, not " << expected << moved);

  std::vector<std::string> problems;
  std::uint64_t key = 900;  // of the seeds
  // This GPU's launch shape: tails of every block (64, 128), of every destination group
  // (128 x 1, 2, 4), of the pairs kernel's chunks (32) and strips (256), one tile, several.
  for (const int n : {1,   2,   3,   5,   31,  33,  63,  64,  65,   127,  128,  129,
                      255, 256, 257, 383, 385, 511, 512, 513, 1000, 1025, 2049, 4099}) {
    const lab09::AccCase c = lab09::random_case(n, 0.05f, derive_seed(base_seed(), key++));
    run_forced(c, every, 0, problems);
  }
  // Under compute-sanitizer (run by hand: the sanitizer gate runs [correctness] checks only) the
  // sizes up to 4099 only: racecheck's time grows with n^2 shared-memory reads.
  const bool sanitized = under_sanitizer();
  // Moderate n with a seeded softening, on both sides of the pairs kernel's point on 132 SMs.
  for (const int n : {7777, 12289}) {
    const std::uint64_t seed = derive_seed(base_seed(), key++);  // the same data either way
    if (sanitized) continue;
    const float eps = 0.01f * static_cast<float>(cudalab::random_int(seed + 1, 1, 20));
    run_forced(lab09::random_case(n, eps, seed), every, 0, problems);
  }
  for (const lab09::AccCase& c : lab09::finite_cases(base_seed()))
    run_forced(c, every, 0, problems);
  // A small GPU's launch shape on the first and the last n its dispatch chooses each kernel for
  // (the pairs kernel: the first): what that GPU runs. 1 SM chooses every tiled variant.
  for (const int sms : {1, 2, 4, 15, 16}) {
    for (const auto& [kernel, range] : dispatch_ranges(sms))
      for (const int n : std::set<int>{range.first, range.second}) {
        lab09::AccCase c = lab09::random_case(n, 0.05f, derive_seed(base_seed(), key++));
        c.name += " (chosen on " + sm_count_text(sms) + ")";
        run_forced(c, {kernel}, sms, problems);
      }
  }
  // 2^15 + 3 bodies, sampled: with the launch shape of 1 SM every tiled kernel has 64
  // destination blocks or more, so no source split (each block loops over all 257 or 513 tiles
  // and stores without atomics), and the pairs kernel's 16 warps each cross many strips; then
  // this GPU's shape.
  lab09::AccCase big = lab09::random_case((1 << 15) + 3, 0.05f, derive_seed(base_seed(), key++));
  big.sample = 512;
  if (!sanitized) {
    run_forced(big, every, 1, problems);
    run_forced(big, every, 0, problems);
  }

  const std::size_t runs = problems.size();
  problems.erase(std::remove(problems.begin(), problems.end(), std::string()), problems.end());
  cudalab::grade::measure("forced_runs", static_cast<double>(runs));
  cudalab::grade::require_no_failed_cases(problems, runs);
}
