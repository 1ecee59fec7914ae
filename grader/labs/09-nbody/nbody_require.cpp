// The parts of lab 09's grading support that fail a Catch2 check (the runner links the rest).
#include <cstdint>
#include <string>
#include <vector>

#include "grading.h"
#include "nbody_check.h"

namespace lab09 {

using namespace cudalab::grade;

void require_all_acc(const std::vector<AccCase>& cases, AccFn f, const std::string& kernel) {
  require_cases_pass(cases, [&](const AccCase& c) { return run_acc_case(c, f, kernel); });
}

void require_all_steps(const std::vector<StepCase>& cases, StepFn step) {
  require_cases_pass(cases, [&](const StepCase& c) { return run_step_case(c, step); });
}

void grade_nbody_performance(const std::string& lab, AccFn candidate, AccFn reference,
                             const ExecutionSignature& executed) {
  // The bodies are drawn on the device; grade_performance runs the candidate and the reference
  // once, untimed, on the same fresh bodies and compares every acceleration before timing them
  // (the correctness checks, the [large] one included, compared this code with the CPU).
  PerfCase perf(base_seed());
  cudalab::DeviceBuffer<float> acc_reference(perf.acc.size());
  // First, at the timed size, the candidate and the reference against the CPU in double on
  // sampled bodies of a draw that no timed run gets, within the probabilistic rounding bound
  // (c + kappa sqrt(n)) u S (nbody_timed.h): the worst case (n + c) u S is too loose at this n to
  // tell a full sum from half of one.
  const PerfCase::TimedSizeCheck at_size =
      perf.check_timed_size(candidate, reference, acc_reference.data());
  measure("reference_rounding_units", at_size.verdict.reference_units);
  measure("candidate_rounding_units", at_size.verdict.candidate_units);
  measure("timed_kappa", at_size.verdict.kappa);
  if (!at_size.problem.empty()) FAIL(at_size.problem);
  // Every timed run gets fresh bodies (the reference's run after the candidate's the same ones);
  // each writes its own acc, and every component of every timed acc is compared with the
  // reference's within twice the same bound at the largest S (a run that skips sources on some
  // calls only fails there).
  const cudalab::Tolerance tol = at_size.tol;
  measure("timed_atol", tol.atol);
  TimedRunChecks checks;
  checks.executed = executed;
  checks.fresh_inputs = [&perf](std::uint64_t sample, cudaStream_t s) {
    perf.fresh_bodies(sample, s);
  };
  checks.outputs = {{"acc", perf.acc.data(), acc_reference.data(), perf.acc.size(), tol}};
  grade_performance(lab, perf.launch(candidate), perf.launch(reference, acc_reference.data()),
                    PerfCase::workload(), checks);
}

}  // namespace lab09
