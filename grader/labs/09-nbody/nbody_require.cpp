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

void grade_nbody_performance(const std::string& lab, AccFn candidate, AccFn reference) {
  // The bodies are drawn on the device; grade_performance runs the candidate and the reference
  // once, untimed, on the same fresh bodies and compares every acceleration before timing them
  // (the correctness checks, the [large] one included, compared this code with the CPU).
  PerfCase perf(base_seed());
  // Every timed run gets fresh bodies (the reference's run after the candidate's the same ones);
  // each writes its own acc, and every component of every timed acc is compared with the
  // reference's. The tolerance comes from a draw of the same kind that no timed run gets (run
  // 0, in `bodies` now).
  const cudalab::Tolerance tol = perf.timed_tolerance();  // synchronizes
  measure("timed_atol", tol.atol);
  cudalab::DeviceBuffer<float> acc_reference(perf.acc.size());
  TimedRunChecks checks;
  checks.fresh_inputs = [&perf](std::uint64_t sample, cudaStream_t s) {
    perf.fresh_bodies(sample, s);
  };
  checks.outputs = {{"acc", perf.acc.data(), acc_reference.data(), perf.acc.size(), tol}};
  grade_performance(lab, perf.launch(candidate), perf.launch(reference, acc_reference.data()),
                    PerfCase::workload(), checks);
}

}  // namespace lab09
