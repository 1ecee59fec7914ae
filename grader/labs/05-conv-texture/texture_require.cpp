// The parts of lab 05's grading support that FAIL the current Catch2 check; in a file of their
// own so that the runner, which links the rest of the support library, needs no Catch2.
#include "cudalab/device_data.h"
#include "cudalab/random.h"
#include "grading.h"
#include "texture_check.h"
#include "texture_cpu.h"

namespace lab05 {

using namespace cudalab::grade;

void require_all_conv(const std::vector<ConvCase>& cases, const ConvVariant& v) {
  require_cases_pass(cases, [&](const ConvCase& c) { return run_conv_case(c, v); });
}

void require_all_rotation(const std::vector<RotationCase>& cases, const RotationVariant& v) {
  require_cases_pass(cases, [&](const RotationCase& c) { return run_rotation_case(c, v); });
}

void grade_conv_performance(const std::string& lab, const ConvVariant& candidate,
                            const ConvVariant& reference) {
  ConvPerfCase perf;
  // Correctness first, on this very workload (it also warms the candidate up).
  if (const std::string p = run_conv_case(perf.data, candidate); !p.empty())
    FAIL("not timed: the output must be correct first\n" + p);
  // Every sample reads a fresh image in [-1, 1) (the same for the candidate's sample and the
  // reference's after it), and each variant writes its own output, compared with the other's
  // after every sample. The global variants read the image `img` itself. The texture variants
  // read the texture their prepare step made from a host image, which a device write cannot
  // change: before each sample, the variant about to run (the candidate first: its sample is the
  // one with a new number) prepares its texture again (untimed) from the fresh image, copied to
  // the host. Each prepare gets that copy afresh, so one that wrote to it (the perf setup and the
  // correctness checks catch that) cannot change what the other reads.
  const std::size_t pixels = perf.img.size();
  cudalab::DeviceBuffer<float> out_reference(pixels);
  std::vector<float> handed(pixels);
  std::uint64_t prepared = 0;  // the last sample whose image the candidate's texture got
  const std::uint64_t seed = cudalab::derive_seed(base_seed(), 595);
  TimedRunChecks checks;
  checks.fresh_inputs = [&](std::uint64_t sample, cudaStream_t s) {
    cudalab::fill_uniform_async(perf.img.data(), pixels, cudalab::derive_seed(seed, sample), -1.0f,
                                1.0f, s);
    if (!candidate.texture()) return;
    CUDA_CHECK(cudaMemcpyAsync(handed.data(), perf.img.data(), pixels * sizeof(float),
                               cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    const ConvVariant& next = sample != prepared ? candidate : reference;
    prepared = sample;
    next.prepare(handed.data(), perf.data.w, perf.data.h);
  };
  // Each output is within conv2d_tolerance of the exact sum.
  checks.outputs = {{"out", perf.out.data(), out_reference.data(), pixels,
                     between_results(conv2d_tolerance(perf.data.mask, 1.0))}};
  // Each variant loads its own texture before it is timed (the candidate's run_conv_case above
  // already did; the reference's is loaded here).
  const cudalab::Launch c = perf.launch(candidate);
  const cudalab::Launch r = perf.launch(reference, out_reference.data());
  grade_performance(lab, c, r, perf.workload(), checks);
}

}  // namespace lab05
