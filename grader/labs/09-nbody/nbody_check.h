// Lab 09 grading support on the device: the cases, running a candidate on guarded buffers and
// comparing with the CPU reference (nbody_cpu.h), the simulation behind the momentum and energy
// checks, and the performance workload.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/device_buffer.h"
#include "cudalab/timing.h"
#include "nbody_cpu.h"
#include "nbody_timed.h"
#include "perf.h"

namespace lab09 {

using AccFn = void (*)(const float4* bodies, float3* acc, int n, float softening,
                       cudaStream_t stream);
using StepFn = void (*)(float4* bodies, float3* vel, float3* acc, int n, float dt, float softening,
                        cudaStream_t stream);

// One implementation of the interface: the candidate's or the reference's functions.
struct NbodyVariant {
  std::string name;
  AccFn naive;
  AccFn tiled;
  StepFn step;
};

// ---------------------------------------------------------------------------------------------
// Accelerations

struct AccCase {
  std::string name;
  System system;  // velocities unused
  float softening = 0.05f;
  std::uint64_t seed = 0;  // 0: fixed data
  int sample = 0;          // 0: compare every body; otherwise sample_bodies(n, sample, seed)
};

// Bodies 0..7, the last 64 (the last tile) and `count` seeded others, sorted, no repeats.
std::vector<int> sample_bodies(int n, int count, std::uint64_t seed);

// Runs `f` on guarded buffers (acc pre-filled with NaN): "" when every compared component is
// within its tolerance, the guards are intact and the bodies unchanged; otherwise the first
// problem, naming the case and the kernel. `reference`: the case's CPU reference when the caller
// has it already (cpu_reference(c), for several kernels on one case); computed here otherwise.
std::string run_acc_case(const AccCase& c, AccFn f, const std::string& kernel,
                         const AccReference* reference = nullptr);
// The CPU reference of the bodies a case compares (all of them, or its sample).
AccReference cpu_reference(const AccCase& c);
// Runs every case and FAILs the current check with the first three problems.
void require_all_acc(const std::vector<AccCase>& cases, AccFn f, const std::string& kernel);

AccCase random_case(int n, float softening, std::uint64_t seed);
// Sizes around the tile sizes a kernel may use (32 .. 1024), 1 to 3, primes, and one size
// (12289) where the reference takes its Newton's-third-law kernel.
// `sanitized`, for compute-sanitizer: the sizes up to 1025, and 2049 (one tile, full tiles,
// several tiles with a partial last one, for every tile size of 32 to 1024), each with the same
// data as unsanitized. Not 2047, 2048 and 12289: racecheck's time grows with the shared-memory
// reads of a tiled kernel, n^2 (with 12289, 94% of the sum of n^2, the tiled check of the plain
// answer, tiles of 256 bodies, took 22 s under racecheck on an H100).
std::vector<AccCase> size_cases(std::uint64_t seed, bool sanitized = false);
// `count` seeded sizes in [1, max_n] with seeded softening in [0.01, 0.2].
std::vector<AccCase> random_size_cases(std::uint64_t seed, int count, int max_n);
// n = 1, two bodies 1 apart (a_x = m / (1 + eps^2)^(3/2), by hand), coincident bodies.
std::vector<AccCase> finite_cases(std::uint64_t seed);
// n = 2^16 + 3, compared on 1024 sampled bodies and the last tile.
AccCase largest_case(std::uint64_t seed);

// ---------------------------------------------------------------------------------------------
// One leapfrog step

struct StepCase {
  std::string name;
  System system;
  std::vector<float> acc;  // the accelerations at the starting positions (CPU, rounded to float)
  float dt = 0.01f;
  float softening = 0.05f;
  std::uint64_t seed = 0;
};
StepCase step_case(const std::string& name, System s, float dt, float softening,
                   std::uint64_t seed);
std::vector<StepCase> step_cases(std::uint64_t seed);
std::string run_step_case(const StepCase& c, StepFn step);
void require_all_steps(const std::vector<StepCase>& cases, StepFn step);

// ---------------------------------------------------------------------------------------------
// Many steps: momentum and energy

struct Simulation {
  static constexpr int kN = 1000;  // not a multiple of any tile size
  static constexpr int kSteps = 200;
  static constexpr int kEvery = 20;  // steps between checkpoints
  static constexpr float kSoftening = 0.05f;
  static constexpr float kDt = 0.01f;
  std::string problem;  // a CUDA error, damaged guards or NaN; "" otherwise
  System initial;
  std::vector<int> steps;              // checkpoints
  std::vector<double> energy_drift;    // |E - E0| / |E0| at each checkpoint
  std::vector<double> momentum_error;  // |P - P0| at each checkpoint
  std::vector<double> momentum_bound;  // its bound at each checkpoint
  std::string describe_case() const;
};
// The candidate's tiled accelerations once, then its leapfrog_step kSteps times on a Plummer
// sphere, the state read back every kEvery steps.
Simulation simulate(const NbodyVariant& v, std::uint64_t seed);

// ---------------------------------------------------------------------------------------------
// Performance: accelerations_tiled at n = 2^18

// The bodies are drawn on the device (fresh_bodies): no host-side system, and the CPU reference
// in double of a sample of bodies only (check_timed_size); every timed run is compared with the
// reference's on the device.
struct PerfCase {
  static constexpr int kN = 1 << 18;
  static constexpr float kSoftening = 0.05f;
  static constexpr int kSampled = 256;  // seeded bodies of the check in double (and 88 more)
  // `bodies` holds the draw of run 0 (fresh_bodies(0)), which no timed run gets: the self-check
  // times it, and check_timed_size() runs on it.
  explicit PerfCase(std::uint64_t grading_seed);
  std::uint64_t seed;         // of the draws: derive_seed(grading_seed, 701)
  std::uint64_t sample_seed;  // of the bodies check_timed_size compares: derive_seed(.., 702)
  cudalab::DeviceBuffer<float> bodies, acc;
  cudalab::DeviceBuffer<float> staging;         // 3 floats a body, for fresh_bodies
  cudalab::Launch launch(AccFn f);              // into acc
  cudalab::Launch launch(AccFn f, float* out);  // into out (3 floats a body)
  // Writes into `bodies`, on `stream`, the bodies of timed run `sample`: drawn from (seed,
  // sample) alone, from random_system's distribution (positions uniform in [-1, 1)^3, masses in
  // [0.5, 1.5)), which the timed size's bound assumes (nbody_timed.h).
  void fresh_bodies(std::uint64_t sample, cudaStream_t stream);

  // The check in double at the timed size, before the timing (nbody_timed.h): the candidate runs
  // on the bodies of run 0 into `acc`, then the reference, on the same bodies drawn again
  // (whatever the candidate did to them), into `reference_out`; both are compared with the CPU in
  // double on timed_sample(bodies, kSampled, sample_seed). `problem`: "" or why the candidate
  // fails (a CUDA error, an exception, or judge_timed_size's verdict); `tol`: the tolerance of the
  // timed runs against the reference's (timed_between_atol, from S at the 16 central bodies and
  // the verdict's kappa).
  struct TimedSizeCheck {
    std::string problem;
    TimedSizeVerdict verdict;
    cudalab::Tolerance tol;
    double central_scale = 0.0;  // the largest S_ik at the central bodies
  };
  TimedSizeCheck check_timed_size(AccFn candidate, AccFn reference, float* reference_out);
  static cudalab::grade::Workload workload();
};

// 20 flops per interaction, n^2 interactions (the count is in solutions/09-nbody/nbody.cu).
inline constexpr double kFlopsPerInteraction = 20.0;

// Checks the candidate's tiled kernel at the timed size in double on sampled bodies
// (check_timed_size), then times it against the reference's on fresh bodies every run, every
// output compared with the reference's on the device within the timed size's bound
// (grade_performance).
// `executed`, when set: the lab's technique at the timed size (perf.h, TimedRunChecks::executed),
// over PerfCase::kN^2 interactions.
void grade_nbody_performance(const std::string& lab, AccFn candidate, AccFn reference,
                             const cudalab::grade::ExecutionSignature& executed = nullptr);

}  // namespace lab09
