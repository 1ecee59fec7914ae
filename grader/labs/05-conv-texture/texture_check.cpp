#include "texture_check.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "cudalab/random.h"
#include "harness.h"
#include "texture_cpu.h"

namespace lab05 {

using cudalab::derive_seed;
using namespace cudalab::grade;

namespace {

std::string size_text(int w, int h) {
  return std::to_string(w) + " x " + std::to_string(h);
}

double max_abs(const std::vector<float>& v) {
  double m = 0.0;
  for (const float x : v) m = std::max(m, static_cast<double>(std::fabs(x)));
  return m;
}

// The pixel of a flat index, for failure messages.
std::string pixel_of(std::size_t index, int w) {
  return "x = " + std::to_string(index % static_cast<std::size_t>(w)) +
         ", y = " + std::to_string(index / static_cast<std::size_t>(w));
}

}  // namespace

float RotationCase::theta() const {
  return static_cast<float>(degrees * 3.14159265358979323846 / 180.0);
}

ConvCase signal_case(int w, int h, int radius) {
  return {"course signal, " + size_text(w, h) + ", radius " + std::to_string(radius),
          w,
          h,
          radius,
          test_signal(w, h, kSignalDelta),
          gaussian_mask(radius),
          0};
}

std::vector<ConvCase> signal_cases(CaseSize largest) {
  std::vector<ConvCase> cases;
  const int sizes[][2] = {{64, 64}, {61, 47}, {1, 1000}, {1000, 1}, {largest.w, largest.h}};
  for (const auto& s : sizes)
    for (const int r : {0, 1, 3, 8}) cases.push_back(signal_case(s[0], s[1], r));
  return cases;
}

std::vector<ConvCase> random_cases(std::uint64_t seed, int count) {
  std::vector<ConvCase> cases;
  for (int k = 0; k < count; ++k) {
    const std::uint64_t s = derive_seed(seed, 500 + k);
    const auto w = static_cast<int>(cudalab::random_int(s, 1, 300));
    const auto h = static_cast<int>(cudalab::random_int(s + 1, 1, 300));
    const auto r = static_cast<int>(cudalab::random_int(s + 2, 0, 8));
    const int side = 2 * r + 1;
    cases.push_back(
        {"random #" + std::to_string(k) + ", " + size_text(w, h) + ", radius " + std::to_string(r),
         w, h, r, cudalab::random_floats(static_cast<std::size_t>(w) * h, s + 3),
         cudalab::random_floats(static_cast<std::size_t>(side) * side, s + 4), s});
  }
  return cases;
}

ConvCase largest_case(std::uint64_t seed) {
  const std::uint64_t s = derive_seed(seed, 590);
  const int w = 4093, h = 3001, r = 4;
  // Uniform in [-1, 1) with 24 random bits, like cudalab::random_floats, but from splitmix64
  // (derive_seed of the seed and the index) instead of std::mt19937_64: several times faster on
  // the 12 million pixels.
  std::vector<float> img(static_cast<std::size_t>(w) * h);
  for (std::size_t i = 0; i < img.size(); ++i)  // -1 + 2 k / 2^24: exact, in [-1, 1)
    img[i] = -1.0f + 2.0f * (static_cast<float>(derive_seed(s, i) >> 40) * (1.0f / 16777216.0f));
  return {"random, " + size_text(w, h) + ", radius 4", w, h, r, std::move(img),
          cudalab::random_floats(81, s + 1),           s};
}

RotationCase rotation_case(int w, int h, double degrees, cudaTextureAddressMode mode) {
  char angle[32];
  std::snprintf(angle, sizeof angle, "%g", degrees);
  return {"course signal, " + size_text(w, h) + " by " + angle + " degrees, " + mode_name(mode),
          w,
          h,
          degrees,
          mode,
          test_signal(w, h, kSignalDelta)};
}

std::vector<RotationCase> rotation_cases(cudaTextureAddressMode mode, CaseSize largest) {
  std::vector<RotationCase> cases;
  for (const double a : {0.0, 90.0, 30.0, -45.0}) cases.push_back(rotation_case(64, 64, a, mode));
  for (const double a : {30.0, -45.0}) cases.push_back(rotation_case(61, 47, a, mode));
  cases.push_back(rotation_case(largest.w, largest.h, 30.0, mode));
  return cases;
}

std::string run_conv_case(const ConvCase& c, const ConvVariant& v) {
  return run_conv_case(c, v, conv2d_cpu(c.img, c.w, c.h, c.mask, c.radius));
}

std::string run_conv_case(const ConvCase& c, const ConvVariant& v,
                          const std::vector<double>& expected) {
  const CaseInfo info{v.name + " convolution, " + c.name, c.seed,
                      "w=" + std::to_string(c.w) + " h=" + std::to_string(c.h) +
                          " radius=" + std::to_string(c.radius)};
  GuardedBuffer<float> img("img", c.img.size()), mask("mask", c.mask.size()),
      out("out", c.img.size());
  img.upload(c.img);
  mask.upload(c.mask);
  cudalab::Stream stream;
  // The candidate gets a copy of the host image: the CPU reference reads the original.
  std::vector<float> handed = c.img;
  try {
    if (v.texture()) v.prepare(handed.data(), c.w, c.h);
    CUDA_CHECK(cudaDeviceSynchronize());  // the texels copied from pageable memory have landed
    v.run(img.data(), mask.data(), out.data(), c.w, c.h, c.radius, stream.get());
  } catch (const std::exception& e) {
    return info.header() + ": " + e.what();
  }
  if (std::string p = check_cuda_errors(info); !p.empty()) return p;
  if (std::string p = check_host_input_unchanged(info, "prepare_texture", handed, c.img);
      !p.empty())
    return p;
  const cudalab::Tolerance tol = conv2d_tolerance(c.mask, max_abs(c.img));
  if (std::string p = out.check_guards(); !p.empty()) return info.header() + ": " + p;
  const cudalab::CompareResult r = cudalab::compare(out.download(), expected, tol);
  if (!r.ok())
    return info.header() + ": output out is wrong: " + cudalab::describe(r, tol) +
           "\n  first wrong pixel: " + pixel_of(r.first.front().index, c.w);
  if (std::string p = check_unchanged(info, img, c.img); !p.empty()) return p;
  return check_unchanged(info, mask, c.mask);
}

std::string run_rotation_case(const RotationCase& c, const RotationVariant& v) {
  const CaseInfo info{v.name + " rotation, " + c.name, 0,
                      "w=" + std::to_string(c.w) + " h=" + std::to_string(c.h) +
                          " theta=" + std::to_string(c.theta()) + " rad"};
  GuardedBuffer<float> out("out", c.img.size());
  cudalab::Stream stream;
  std::vector<float> handed = c.img;  // the candidate's copy; the CPU reference reads c.img
  try {
    v.prepare(handed.data(), c.w, c.h, c.mode);
    CUDA_CHECK(cudaDeviceSynchronize());
    v.run(out.data(), c.w, c.h, c.theta(), stream.get());
  } catch (const std::exception& e) {
    return info.header() + ": " + e.what();
  }
  if (std::string p = check_cuda_errors(info); !p.empty()) return p;
  if (std::string p = check_host_input_unchanged(info, "prepare_rotation", handed, c.img);
      !p.empty())
    return p;
  if (std::string p = out.check_guards(); !p.empty()) return info.header() + ": " + p;
  const std::vector<double> expected = rotate_cpu(c.img, c.w, c.h, c.theta(), c.mode);
  const std::vector<double> bounds = rotation_bounds(c.img, c.w, c.h, c.theta(), c.mode);
  const cudalab::CompareResult r = compare_with_bounds(out.download(), expected, bounds);
  if (r.ok()) return "";
  return info.header() + ": output out is wrong: " + describe_with_bounds(r, bounds) +
         "\n  first wrong pixel: " + pixel_of(r.first.front().index, c.w);
}

ConvPerfCase::ConvPerfCase(int side, int radius)
    : data(signal_case(side, side, radius)), img(data.img), mask(data.mask), out(data.img.size()) {
  data.name = "performance case, " + data.name;
}

cudalab::Launch ConvPerfCase::launch(const ConvVariant& v) {
  return launch(v, out.data());
}

cudalab::Launch ConvPerfCase::launch(const ConvVariant& v, float* output) {
  std::vector<float> handed = data.img;  // a private copy: data.img stays as it was
  if (v.texture()) v.prepare(handed.data(), data.w, data.h);
  CUDA_CHECK(cudaDeviceSynchronize());
  const CaseInfo info{v.name + " convolution, " + data.name, 0,
                      "w=" + std::to_string(data.w) + " h=" + std::to_string(data.h) +
                          " radius=" + std::to_string(data.radius)};
  if (std::string p = check_host_input_unchanged(info, "prepare_texture", handed, data.img);
      !p.empty())
    throw std::runtime_error(p);
  return [this, output, run = v.run](cudaStream_t stream) {
    run(img.data(), mask.data(), output, data.w, data.h, data.radius, stream);
  };
}

Workload ConvPerfCase::workload() const {
  const double pixels = static_cast<double>(data.w) * data.h;
  const double side = 2.0 * data.radius + 1;
  // Minimum DRAM traffic: the image read once and the output written once, 4 bytes each (the
  // mask is a few hundred bytes). Operations: one multiply and one add per mask element.
  return {size_text(data.w, data.h) + ", radius " + std::to_string(data.radius),
          2.0 * sizeof(float) * pixels, 2.0 * side * side * pixels, true};
}

}  // namespace lab05
