// The parts of lab 09's grading support that fail a Catch2 check (the runner links the rest).
#include <string>
#include <vector>

#include "grading.h"
#include "nbody_check.h"

namespace lab09 {

using namespace cudalab::grade;

namespace {

void fail_with(const std::vector<std::string>& problems, std::size_t total) {
  if (problems.empty()) return;
  std::string message =
      std::to_string(problems.size()) + " of " + std::to_string(total) + " case(s) failed";
  for (std::size_t i = 0; i < problems.size() && i < 3; ++i) message += "\n" + problems[i];
  FAIL(message);
}

}  // namespace

void require_all_acc(const std::vector<AccCase>& cases, AccFn f, const std::string& kernel) {
  std::vector<std::string> problems;
  for (const auto& c : cases)
    if (std::string p = run_acc_case(c, f, kernel); !p.empty()) problems.push_back(p);
  fail_with(problems, cases.size());
}

void require_all_steps(const std::vector<StepCase>& cases, StepFn step) {
  std::vector<std::string> problems;
  for (const auto& c : cases)
    if (std::string p = run_step_case(c, step); !p.empty()) problems.push_back(p);
  fail_with(problems, cases.size());
}

void grade_nbody_performance(const std::string& lab, AccFn candidate, AccFn reference) {
  PerfCase perf(base_seed());
  // Correctness first, on this very workload (sampled: a CPU reference of 2^36 interactions would
  // take minutes); it also warms the candidate up.
  if (const std::string p = run_acc_case(perf.data, candidate, "tiled"); !p.empty())
    FAIL("not timed: the output must be correct first\n" + p);
  grade_performance(lab, perf.launch(candidate), perf.launch(reference), PerfCase::workload());
}

}  // namespace lab09
