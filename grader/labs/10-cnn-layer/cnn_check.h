// Lab 10 grading support: an implementation as a CnnVariant, the cases, running one case on
// guarded device buffers against the CPU reference, and the performance workload.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cnn_cpu.h"
#include "cudalab/device_buffer.h"
#include "cudalab/timing.h"
#include "harness.h"
#include "perf.h"

namespace lab10 {

using ConvFn = void (*)(const float* x, const float* k, float* y, int B, int C, int M, int H, int W,
                        int K, cudaStream_t stream);

// One implementation of cnn_layer.h (the student's, the reference, a baseline).
struct CnnVariant {
  std::string name;
  void (*prepare_weights)(const float* host_k, int M, int C, int K);
  ConvFn direct;
  ConvFn fast;
};

// Which of the two kernels a case runs.
enum class Kernel { direct, fast };
const char* kernel_name(Kernel kernel);  // "conv_forward_direct" / "conv_forward_fast"
// prepare_weights() for the fast kernel (nothing for the direct one) on a COPY of the host
// weights `k`, then the device synchronized (the copy to constant memory must have landed). ""
// or, when prepare_weights wrote to the weights it was handed, the problem, naming `info`'s case
// (check_host_input_unchanged); `k` itself stays as it was either way.
std::string prepare(const CnnVariant& v, Kernel kernel, const std::vector<float>& k,
                    const LayerShape& s, const cudalab::grade::CaseInfo& info);
ConvFn function_of(const CnnVariant& v, Kernel kernel);

struct LayerCase {
  std::string name;
  LayerShape shape;
  std::vector<float> x, k;
  std::uint64_t seed = 0;
  bool integer_valued = false;  // exact comparison
};

// Shapes with small-integer values (exact): 1 x 1 outputs, odd sizes, C = 1, M not a multiple
// of 4, 8 or 12, K = 1 to 7, wide and tall images, B > 1.
std::vector<LayerCase> shape_cases(std::uint64_t seed);
// Random floats in [-1, 1] with K = 1, 3, 5 and 7 (tolerance of conv_tolerance).
std::vector<LayerCase> random_float_cases(std::uint64_t seed);
// The course's two layers at a batch of 16 (random floats).
std::vector<LayerCase> course_shape_cases(std::uint64_t seed, int batch = 16);

// "" when the output is right, inputs unchanged, guards intact and no CUDA error; otherwise the
// problem, naming the case and the kernel (with a diagnosis of a common mistake when one fits).
std::string run_case(const LayerCase& c, const CnnVariant& v, Kernel kernel);
// Runs every case and FAILs the current check with the first three problems.
void require_all_pass(const std::vector<LayerCase>& cases, const CnnVariant& v, Kernel kernel);

// The performance workload: one of the course's layers at B = 10000, random inputs and weights.
// x is drawn on the device (uniform in [-1, 1)): no host copy of it, no CPU reference of the
// whole workload. The timed runs get fresh inputs in x (fresh_x, alike), the same weights.
struct PerfCase {
  PerfCase(int layer, std::uint64_t seed, int batch = 10000);
  // Any shape: x drawn from `x_seed` on the device, the weights from `k_seed` on the host.
  PerfCase(const LayerShape& shape, std::uint64_t x_seed, std::uint64_t k_seed);
  LayerShape shape;
  std::vector<float> host_k;
  cudalab::DeviceBuffer<float> x, k, y;
  // Prepares the variant (untimed; throws when prepare_weights writes to its host weights) and
  // returns its launch, into `out` (y_count() floats; y when null).
  cudalab::Launch launch(const CnnVariant& v, Kernel kernel, float* out = nullptr);
  // Writes into x, on `stream`, the images of timed run `sample`, drawn from (seed, sample) alone.
  void fresh_x(std::uint64_t seed, std::uint64_t sample, cudaStream_t stream);
  // The tolerance of a timed run's y against the reference's on the same fresh x.
  cudalab::Tolerance timed_tolerance() const;
  cudalab::grade::Workload workload() const;
  // The output checked against the CPU reference on the first, a middle and the last image (all
  // maps and pixels; those images of x read back from the device): "" or why. For the runner:
  // the performance check compares the candidate with the reference on the device instead.
  std::string validate(const CnnVariant& v, Kernel kernel);
};

void grade_layer_performance(int layer, const CnnVariant& candidate, const CnnVariant& reference);

std::string data_dir();  // CUDALAB_DATA_DIR, or <source>/data

}  // namespace lab10
