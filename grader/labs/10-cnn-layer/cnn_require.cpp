// The parts of lab 10's grading support that FAIL the current Catch2 check; in a file of their
// own so that the runner, which links the rest of the support library, needs no Catch2.
#include <cstdint>

#include "cnn_check.h"
#include "cudalab/random.h"
#include "grading.h"

namespace lab10 {

using cudalab::grade::base_seed;

void require_all_pass(const std::vector<LayerCase>& cases, const CnnVariant& v, Kernel kernel) {
  cudalab::grade::require_all_cases(cases,
                                    [&](const LayerCase& c) { return run_case(c, v, kernel); });
}

void grade_layer_performance(int layer, const CnnVariant& candidate, const CnnVariant& reference) {
  // x is drawn on the device; grade_performance runs the candidate and the reference once,
  // untimed, on the same fresh x and compares every value before timing them (the correctness
  // checks, the course's layers at a batch of 500 included, compared this code with the CPU).
  PerfCase perf(layer, base_seed());
  // Every timed run gets a fresh batch in x (the reference's run after the candidate's the same
  // one); each writes its own y, and every value of every image of every timed y is compared
  // with the reference's.
  const std::uint64_t seed = cudalab::derive_seed(base_seed(), 920 + layer);
  cudalab::DeviceBuffer<float> y_reference(perf.y.size());
  cudalab::grade::TimedRunChecks checks;
  checks.fresh_inputs = [&perf, seed](std::uint64_t sample, cudaStream_t s) {
    perf.fresh_x(seed, sample, s);
  };
  checks.outputs = {
      {"y", perf.y.data(), y_reference.data(), perf.y.size(), perf.timed_tolerance()}};
  checks.unchanged = {{"k", perf.k.data(), perf.k.bytes()}};  // the weights stay the same
  // launch() prepares each variant once; the candidate's and the reference's constant memory
  // live in different namespaces, so interleaving their runs is safe.
  const cudalab::Launch candidate_launch = perf.launch(candidate, Kernel::fast);
  const cudalab::Launch reference_launch = perf.launch(reference, Kernel::fast, y_reference.data());
  grade_performance("10", candidate_launch, reference_launch, perf.workload(), checks);
}

}  // namespace lab10
