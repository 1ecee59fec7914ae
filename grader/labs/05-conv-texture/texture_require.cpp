// The parts of lab 05's grading support that FAIL the current Catch2 check; in a file of their
// own so that the runner, which links the rest of the support library, needs no Catch2.
#include <memory>

#include "cudalab/check.h"
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

namespace {

// Page-locked host memory for the fresh images the texture variants load: copied from the device
// and then into a cudaArray before every sample, at the bus's full rate (pageable memory goes
// through a staging buffer, several times slower).
class PinnedImage {
 public:
  explicit PinnedImage(std::size_t count) {
    CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), count * sizeof(float)));
  }
  ~PinnedImage() { cudaFreeHost(data_); }  // errors ignored: a destructor must not throw
  PinnedImage(const PinnedImage&) = delete;
  PinnedImage& operator=(const PinnedImage&) = delete;
  float* data() { return data_; }

 private:
  float* data_ = nullptr;
};

}  // namespace

void grade_conv_performance(const std::string& lab, const ConvVariant& candidate,
                            const ConvVariant& reference, const ExecutionSignature& executed) {
  // No CPU result: grade_performance first runs both on the same fresh image and compares the
  // outputs (the correctness checks compared the same code with the CPU's results).
  ConvPerfCase perf;
  // Every sample reads a fresh image in [-1, 1) (the same for the candidate's sample and the
  // reference's after it), and each variant writes its own output, compared with the other's
  // after every sample. The global variants read the image `img` itself. The texture variants
  // read the texture their prepare step made from a host image, which a device write cannot
  // change: before each of its samples (grade_performance calls fresh_inputs for the candidate's
  // and the reference's in turn, the candidate's first), the variant prepares its texture again
  // (untimed) from the fresh image, copied to the host. Each prepare gets that copy afresh, so one
  // that wrote to it (the perf setup and the correctness checks catch that) cannot change what the
  // other reads.
  const std::size_t pixels = perf.img.size();
  cudalab::DeviceBuffer<float> out_reference(pixels);
  std::unique_ptr<PinnedImage> handed;
  if (candidate.texture()) handed = std::make_unique<PinnedImage>(pixels);
  bool candidate_next = true;  // whose sample the next fresh_inputs call is before
  const std::uint64_t seed = cudalab::derive_seed(base_seed(), 595);
  TimedRunChecks checks;
  checks.executed = executed;
  checks.fresh_inputs = [&](std::uint64_t sample, cudaStream_t s) {
    cudalab::fill_uniform_async(perf.img.data(), pixels, cudalab::derive_seed(seed, sample), -1.0f,
                                1.0f, s);
    if (!candidate.texture()) return;
    CUDA_CHECK(cudaMemcpyAsync(handed->data(), perf.img.data(), pixels * sizeof(float),
                               cudaMemcpyDeviceToHost, s));
    CUDA_CHECK(cudaStreamSynchronize(s));
    const ConvVariant& next = candidate_next ? candidate : reference;
    candidate_next = !candidate_next;
    next.prepare(handed->data(), perf.data.w, perf.data.h);
    CUDA_CHECK(cudaDeviceSynchronize());  // the texels have landed before the run on `s`
  };
  // Each output is within conv2d_tolerance of the exact sum.
  checks.outputs = {{"out", perf.out.data(), out_reference.data(), pixels,
                     between_results(conv2d_tolerance(perf.data.mask, 1.0))}};
  // The mask stays: a variant must not change what the other reads.
  checks.unchanged = {{"mask", perf.mask.data(), perf.mask.bytes()}};
  // Each variant loads its own texture from the course's signal first (a prepare that writes to
  // its host image fails here).
  const cudalab::Launch c = prepared_launch([&] { return perf.launch(candidate); });
  const cudalab::Launch r = perf.launch(reference, out_reference.data());
  grade_performance(lab, c, r, perf.workload(), checks);
}

}  // namespace lab05
