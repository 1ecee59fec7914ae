// Grading support for lab 05: the variants, the cases of both parts, running a case on guarded
// buffers against the CPU references (texture_cpu.h), and the performance workload.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cudalab/device_buffer.h"
#include "cudalab/timing.h"
#include "perf.h"

namespace lab05 {

// Part 1, one implementation of the convolution. `prepare` (null for the global variant) loads a
// host image into the implementation's texture; `run` convolves (img is unused by the texture
// variant, which reads its texture).
struct ConvVariant {
  std::string name;  // "student global", "reference texture", ...
  std::function<void(const float* host_img, int w, int h)> prepare;
  std::function<void(const float* img, const float* mask, float* out, int w, int h, int radius,
                     cudaStream_t)>
      run;
  bool texture() const { return static_cast<bool>(prepare); }
};

// Part 2, one implementation of the rotation.
struct RotationVariant {
  std::string name;
  std::function<void(const float* host_img, int w, int h, cudaTextureAddressMode)> prepare;
  std::function<void(float* out, int w, int h, float theta, cudaStream_t)> run;
};

struct ConvCase {
  std::string name;  // "course signal, 61 x 47, radius 3"
  int w = 0, h = 0, radius = 0;
  std::vector<float> img, mask;
  std::uint64_t seed = 0;  // 0: fixed data
};

struct RotationCase {
  std::string name;
  int w = 0, h = 0;
  double degrees = 0;
  cudaTextureAddressMode mode = cudaAddressModeWrap;
  std::vector<float> img;
  float theta() const;  // radians, as the GPU gets it
};

inline constexpr int kSignalDelta = 4;  // the course's test signal in every case

// The largest image of signal_cases and rotation_cases: 1024 x 768, or under a sanitizer (which
// slows every kernel down many times) kSanitizerLargest, still several blocks with partial ones.
struct CaseSize {
  int w = 1024, h = 768;
};
inline constexpr CaseSize kSanitizerLargest{200, 150};

ConvCase signal_case(int w, int h, int radius);
// The course's signal on 64 x 64, 61 x 47, 1 x 1000, 1000 x 1, `largest`, radii 0, 1, 3, 8.
std::vector<ConvCase> signal_cases(CaseSize largest = {});
// Seeded random images in [-1, 1) with random masks in [-1, 1) (not symmetric: a flipped or
// transposed mask shows), sizes up to 300 x 300, radii 0..8.
std::vector<ConvCase> random_cases(std::uint64_t seed, int count);
ConvCase largest_case(std::uint64_t seed);

RotationCase rotation_case(int w, int h, double degrees, cudaTextureAddressMode mode);
// For one address mode: 64 x 64 by 0, 90, 30 and -45 degrees, 61 x 47 by 30 and -45 degrees,
// `largest` by 30 degrees (the course's signal, delta 4).
std::vector<RotationCase> rotation_cases(cudaTextureAddressMode mode, CaseSize largest = {});

// "" when right, otherwise the first problem, naming the variant and the case. `expected`, when
// given, is conv2d_cpu's result for the case (computed once for several variants).
std::string run_conv_case(const ConvCase& c, const ConvVariant& v);
std::string run_conv_case(const ConvCase& c, const ConvVariant& v,
                          const std::vector<double>& expected);
std::string run_rotation_case(const RotationCase& c, const RotationVariant& v);
// Run every case and FAIL the current check with the first three problems.
void require_all_conv(const std::vector<ConvCase>& cases, const ConvVariant& v);
void require_all_rotation(const std::vector<RotationCase>& cases, const RotationVariant& v);

// The performance workload: the course's signal on 4096 x 4096, radius 4 (a 9 x 9 Gaussian).
struct ConvPerfCase {
  static constexpr int kSide = 4096;
  static constexpr int kRadius = 4;
  explicit ConvPerfCase(int side = kSide, int radius = kRadius);
  ConvCase data;
  cudalab::DeviceBuffer<float> img, mask, out;
  // Loads the texture (untimed) if the variant has one, from a private copy of the image
  // (throws std::runtime_error when prepare wrote to it), then returns its launch, which writes
  // `output` (`out` by default).
  cudalab::Launch launch(const ConvVariant& v);
  cudalab::Launch launch(const ConvVariant& v, float* output);
  cudalab::grade::Workload workload() const;
};

// Times the candidate against the reference (same kind) on fresh images, after an untimed run of
// each whose outputs must match (grade_performance).
// `executed`, when set: the lab's technique at the timed size (perf.h, TimedRunChecks::executed),
// over ConvPerfCase's kSide x kSide outputs and a mask of radius kRadius.
void grade_conv_performance(const std::string& lab, const ConvVariant& candidate,
                            const ConvVariant& reference,
                            const cudalab::grade::ExecutionSignature& executed = nullptr);

}  // namespace lab05
