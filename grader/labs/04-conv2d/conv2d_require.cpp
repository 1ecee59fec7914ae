// The parts of lab 04's grading support that FAIL the current Catch2 check; in a file of their
// own so that the runner, which links the rest of the support library, needs no Catch2.
#include "conv2d_check.h"
#include "conv2d_cpu.h"
#include "cudalab/device_data.h"
#include "cudalab/random.h"
#include "grading.h"

namespace lab04 {

using cudalab::derive_seed;
using namespace cudalab::grade;

void require_all_pass(const std::vector<FloatCase>& cases, const Conv2dVariant& v) {
  cudalab::grade::require_all_cases(cases, [&](const FloatCase& c) { return run_case(c, v); });
}
void require_all_pass(const std::vector<ByteCase>& cases, const Conv2dVariant& v) {
  cudalab::grade::require_all_cases(cases, [&](const ByteCase& c) { return run_case(c, v); });
}

void grade_conv2d_performance(const Conv2dVariant& candidate, const Conv2dVariant& reference,
                              const ExecutionSignature& executed) {
  // The image is made on the device and no CPU result is needed: grade_performance first runs
  // both on the same fresh image and compares the outputs (the correctness checks compared the
  // same code with the CPU's results).
  PerfCase perf(base_seed());
  // The mask is set once, before timing, in each implementation's own constant memory (set_mask is
  // the untimed step), so it stays; the image the timed call reads does not: every sample reads a
  // fresh `in` in [-1, 1) (the same for the candidate's sample and the reference's after it), and
  // each implementation writes its own output, compared with the other's after every sample.
  cudalab::DeviceBuffer<float> out_reference(perf.out.size());
  const std::uint64_t seed = derive_seed(base_seed(), 902);
  TimedRunChecks checks;
  checks.executed = executed;
  checks.fresh_inputs = [&](std::uint64_t sample, cudaStream_t s) {
    cudalab::fill_uniform_async(perf.in.data(), perf.in.size(), derive_seed(seed, sample), -1.0f,
                                1.0f, s);
  };
  // Each output is within conv2d_tolerance of the exact sum.
  checks.outputs = {{"out", perf.out.data(), out_reference.data(), perf.out.size(),
                     between_results(conv2d_tolerance(perf.mask, perf.mask_width, 1.0))}};
  // Candidate and reference keep their masks in different namespaces' constant memory, so their
  // runs can interleave. launch() throws when set_mask wrote to its host mask (the message says
  // so) or failed.
  const cudalab::Launch candidate_launch = prepared_launch([&] { return perf.launch(candidate); });
  const cudalab::Launch reference_launch = perf.launch(reference, out_reference.data());
  grade_performance("04", candidate_launch, reference_launch, perf.workload(), checks);
}

}  // namespace lab04
