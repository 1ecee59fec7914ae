// Lab 04 grading support: an implementation as a Conv2dVariant, the cases, running one case on
// guarded device buffers against the CPU reference, and the performance workload.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/device_buffer.h"
#include "cudalab/timing.h"
#include "perf.h"

namespace lab04 {

// One implementation of conv2d.h (the student's, the reference, a baseline).
struct Conv2dVariant {
  std::string name;
  void (*set_mask)(const float* host_mask, int mask_width);
  void (*conv2d)(const float* in, float* out, int width, int height, int channels,
                 cudaStream_t stream);
  void (*conv2d_8bit)(const unsigned char* in, unsigned char* out, int width, int height,
                      int channels, cudaStream_t stream);
};

// A float case: compared with conv2d_cpu within conv2d_tolerance (exactly when integer_valued).
struct FloatCase {
  std::string name;
  int width = 0, height = 0, channels = 1;
  std::vector<float> image;
  std::vector<float> mask;
  int mask_width = 0;
  std::uint64_t seed = 0;  // 0: fixed data
  bool integer_valued = false;
};

// An 8-bit case: compared exactly with conv2d_8bit_cpu.
struct ByteCase {
  std::string name;
  int width = 0, height = 0, channels = 1;
  std::vector<std::uint8_t> image;
  std::vector<float> mask;
  int mask_width = 0;
  std::uint64_t seed = 0;
};

// The course's 5 x 5 patch with sharpen, as floats and as 8-bit values (89 at x = 1, y = 1).
FloatCase worked_example_float();
ByteCase worked_example_8bit();
// Every named filter on seeded 8-bit-valued images, grayscale 61 x 47 and RGB 45 x 37, as float
// (exact: integer inputs) and as 8-bit cases.
std::vector<FloatCase> filter_float_cases(std::uint64_t seed);
std::vector<ByteCase> filter_8bit_cases(std::uint64_t seed);
// Shapes: 1 x 1, 1 x N, N x 1, non-square, not multiples of any tile, narrower than the mask,
// grayscale and RGB, masks 3 to 9.
std::vector<FloatCase> shape_cases(std::uint64_t seed);
// Random float masks of every odd width 1 to 9 on random float images of random sizes.
std::vector<FloatCase> random_mask_cases(std::uint64_t seed);
// Values that must be clamped (sharpen and edge detectors on 0/255 patterns) and rounding ties
// (an impulse of 8 or 40 under the 3 x 3 Gaussian gives 0.5 and 2.5: half up gives 1 and 3).
std::vector<ByteCase> clamp_and_rounding_cases();
// Three masks in a row on new images, the last narrower: a stale mask shows from the second.
std::vector<FloatCase> new_mask_cases(std::uint64_t seed);
// A large RGB image, 4099 x 3001, with gaussian-5x5, and a large grayscale one with a random
// 9 x 9 mask.
std::vector<FloatCase> large_cases(std::uint64_t seed);

// The real photos (docs/labs/04-conv2d.md, scripts/fetch-data) found in the data folder
// (CUDALAB_DATA_DIR, default <source>/data); each with sharpen and gaussian-5x5. `missing` gets
// the photos not found.
std::vector<ByteCase> photo_cases(std::vector<std::string>* missing);
// The cases on the centre max_width x max_height of their images (the whole of a smaller one),
// named so: the photo check under a sanitizer, on crops that still run every path (grayscale and
// RGB, both filters, several blocks and partial tiles).
std::vector<ByteCase> center_crops(const std::vector<ByteCase>& cases, int max_width,
                                   int max_height);
std::string data_dir();

// "" when the output is right, inputs unchanged (the host mask too: set_mask gets a copy, compared
// with the original afterwards), guards intact and no CUDA error; otherwise the problem, naming
// the case. 8-bit outputs run twice, the output first filled with 0xFF then with 0x00, so an
// unwritten pixel cannot pass as a right 255 or 0.
std::string run_case(const FloatCase& c, const Conv2dVariant& v);
std::string run_case(const ByteCase& c, const Conv2dVariant& v);
// Runs every case and FAILs the current check with the first three problems.
void require_all_pass(const std::vector<FloatCase>& cases, const Conv2dVariant& v);
void require_all_pass(const std::vector<ByteCase>& cases, const Conv2dVariant& v);

// The performance workload: a grayscale float image of 8192 x 8192 (256 MiB in, 256 MiB out),
// a random 5 x 5 mask. The image is made on the device, uniform in [-1, 1) (the graded check
// replaces it before every sample).
struct PerfCase {
  static constexpr int kSide = 8192;
  static constexpr int kMaskWidth = 5;
  PerfCase(std::uint64_t seed, int side = kSide, int mask_width = kMaskWidth, int channels = 1);
  int side, mask_width, channels;
  std::vector<float> mask;
  cudalab::DeviceBuffer<float> in, out;
  // Sets the variant's mask (untimed, from a private copy of `mask`; throws std::runtime_error
  // when set_mask wrote to it) and returns its launch, which reads `in` and writes `output`
  // (`out` by default).
  cudalab::Launch launch(const Conv2dVariant& v);
  cudalab::Launch launch(const Conv2dVariant& v, float* output);
  cudalab::grade::Workload workload() const;
  // For the runner's bench: the variant's output on this workload checked against the CPU
  // reference on a band of rows at the top, middle and bottom (the whole image would take seconds
  // on the CPU): "" or why. (The graded check compares with the reference's output on the device.)
  std::string validate(const Conv2dVariant& v);
};

// `executed`, when set: the lab's technique at the timed size (perf.h, TimedRunChecks::executed),
// over PerfCase's kSide x kSide outputs and a kMaskWidth x kMaskWidth mask.
void grade_conv2d_performance(const Conv2dVariant& candidate, const Conv2dVariant& reference,
                              const cudalab::grade::ExecutionSignature& executed = nullptr);

}  // namespace lab04
