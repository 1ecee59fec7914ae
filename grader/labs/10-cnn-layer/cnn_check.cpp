#include "cnn_check.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "cudalab/device_data.h"
#include "cudalab/random.h"
#include "grading.h"
#include "harness.h"

#ifndef CUDALAB_DATA_DIR_DEFAULT
#define CUDALAB_DATA_DIR_DEFAULT "data"
#endif

namespace lab10 {

using cudalab::derive_seed;
using namespace cudalab::grade;

namespace {

double max_abs(const std::vector<float>& v) {
  double m = 0.0;
  for (const float x : v) m = std::max(m, static_cast<double>(std::fabs(x)));
  return m;
}

CaseInfo info_of(const std::string& variant, Kernel kernel, const LayerCase& c) {
  return {variant + " " + kernel_name(kernel) + ", " + c.name, c.seed, c.shape.text()};
}

// "y[b=0][m=3][h=5][w=7]" for a flat index of y.
std::string where(std::size_t index, const LayerShape& s) {
  const std::size_t wo = s.wo(), ho = s.ho();
  const std::size_t w = index % wo, h = index / wo % ho, m = index / (wo * ho) % s.M,
                    b = index / (wo * ho * s.M);
  return "y[b=" + std::to_string(b) + "][m=" + std::to_string(m) + "][h=" + std::to_string(h) +
         "][w=" + std::to_string(w) + "]";
}

LayerCase random_case(const std::string& name, const LayerShape& s, std::uint64_t seed,
                      bool integer_valued) {
  LayerCase c{name, s, {}, {}, seed, integer_valued};
  if (integer_valued) {
    c.x = cudalab::random_small_ints(s.x_count(), seed, -9, 9);
    c.k = cudalab::random_small_ints(s.k_count(), seed + 1, -4, 4);
  } else {
    c.x = cudalab::random_floats(s.x_count(), seed);
    c.k = cudalab::random_floats(s.k_count(), seed + 1);
  }
  return c;
}

}  // namespace

const char* kernel_name(Kernel kernel) {
  return kernel == Kernel::direct ? "conv_forward_direct" : "conv_forward_fast";
}

ConvFn function_of(const CnnVariant& v, Kernel kernel) {
  return kernel == Kernel::direct ? v.direct : v.fast;
}

std::string prepare(const CnnVariant& v, Kernel kernel, const std::vector<float>& k,
                    const LayerShape& s, const CaseInfo& info) {
  if (kernel != Kernel::fast || v.prepare_weights == nullptr) return "";
  std::vector<float> handed = k;  // the candidate's copy: a write through a cast is seen here
  v.prepare_weights(handed.data(), s.M, s.C, s.K);
  CUDA_CHECK(cudaDeviceSynchronize());
  return check_host_input_unchanged(info, "prepare_weights", handed, k);
}

// ---------------------------------------------------------------------------------------------
// Cases

std::vector<LayerCase> shape_cases(std::uint64_t seed) {
  //  B   C   M    H    W  K : 1 x 1 outputs, odd sizes, C = 1, M = 1 .. 30 (not multiples of
  //  4, 8 or 12), K = 1 to 7, a wide and a tall image, the network's two layers.
  const LayerShape shapes[] = {
      {1, 1, 1, 1, 1, 1},     {1, 1, 1, 7, 7, 7},    {2, 5, 1, 7, 7, 7},    {3, 1, 5, 13, 17, 3},
      {2, 3, 7, 9, 11, 7},    {4, 2, 30, 19, 23, 1}, {2, 1, 12, 28, 28, 5}, {2, 12, 24, 12, 12, 5},
      {2, 12, 13, 33, 33, 5}, {3, 4, 25, 40, 37, 3}, {2, 16, 9, 21, 15, 5}, {1, 3, 4, 100, 130, 3},
      {2, 1, 12, 8, 300, 5},  {1, 2, 6, 257, 9, 7},  {5, 7, 17, 6, 6, 5},   {3, 6, 11, 10, 14, 2},
      {2, 3, 3, 15, 12, 4},   {1, 9, 10, 20, 20, 6}};
  std::vector<LayerCase> cases;
  int i = 0;
  for (const LayerShape& s : shapes) {
    cases.push_back(random_case("shape " + std::to_string(i + 1) + ", integer values", s,
                                derive_seed(seed, 100 + i), true));
    ++i;
  }
  return cases;
}

std::vector<LayerCase> random_float_cases(std::uint64_t seed) {
  std::vector<LayerCase> cases;
  int i = 0;
  for (const int K : {1, 3, 5, 7}) {
    const std::uint64_t cs = derive_seed(seed, 200 + i++);
    const int B = static_cast<int>(cudalab::random_int(cs + 10, 1, 4));
    const int C = static_cast<int>(cudalab::random_int(cs + 11, 1, 8));
    const int M = static_cast<int>(cudalab::random_int(cs + 12, 1, 20));
    const int H = static_cast<int>(cudalab::random_int(cs + 13, K, 45));
    const int W = static_cast<int>(cudalab::random_int(cs + 14, K, 45));
    cases.push_back(
        random_case("random floats, K = " + std::to_string(K), {B, C, M, H, W, K}, cs, false));
  }
  return cases;
}

std::vector<LayerCase> course_shape_cases(std::uint64_t seed, int batch) {
  return {random_case("course layer 1", course_layer(1, batch), derive_seed(seed, 300), false),
          random_case("course layer 2", course_layer(2, batch), derive_seed(seed, 301), false)};
}

// ---------------------------------------------------------------------------------------------
// Running cases

std::string run_case(const LayerCase& c, const CnnVariant& v, Kernel kernel) {
  const CaseInfo info = info_of(v.name, kernel, c);
  const LayerShape& s = c.shape;
  GuardedBuffer<float> x("x", c.x.size()), k("k", c.k.size()), y("y", s.y_count());
  x.upload(c.x);
  k.upload(c.k);
  cudalab::Stream stream;
  try {
    if (std::string p = prepare(v, kernel, c.k, s, info); !p.empty()) return p;
    function_of(v, kernel)(x.data(), k.data(), y.data(), s.B, s.C, s.M, s.H, s.W, s.K,
                           stream.get());
  } catch (const std::exception& e) {
    return info.header() + ": threw " + e.what();
  }
  if (std::string p = check_cuda_errors(info); !p.empty()) return p;
  // On a line of its own: Catch wraps long lines, and the phrase must stay whole.
  if (std::string p = y.check_guards(); !p.empty()) return info.header() + ":\n  " + p;
  const std::vector<double> expected = conv_forward_cpu(c.x, c.k, s);
  const cudalab::Tolerance tol =
      c.integer_valued ? cudalab::Tolerance{0.0, 0.0} : conv_tolerance(c.k, s, max_abs(c.x));
  const std::vector<float> got = y.download();
  const cudalab::CompareResult r = cudalab::compare(got, expected, tol);
  if (!r.ok()) {
    std::string message = info.header() + ": output y is wrong: " + cudalab::describe(r, tol) +
                          "\n  first wrong value at " + where(r.first.front().index, s);
    if (const std::string mistake = diagnose(got, c.x, c.k, s, tol); !mistake.empty())
      message += "\n" + mistake;
    return message;
  }
  if (std::string p = check_unchanged(info, x, c.x); !p.empty()) return p;
  return check_unchanged(info, k, c.k);
}

// ---------------------------------------------------------------------------------------------
// Performance

PerfCase::PerfCase(int layer, std::uint64_t seed, int batch)
    : PerfCase(course_layer(layer, batch), derive_seed(seed, 900 + layer),
               derive_seed(seed, 910 + layer)) {}

PerfCase::PerfCase(const LayerShape& s, std::uint64_t x_seed, std::uint64_t k_seed)
    : shape(s),
      host_k(cudalab::random_floats(s.k_count(), k_seed)),
      x(s.x_count()),
      k(host_k),
      y(s.y_count()) {
  cudalab::Stream stream;
  cudalab::fill_uniform_async(x.data(), x.size(), x_seed, -1.0f, 1.0f, stream.get());
  stream.synchronize();  // x is there before any other stream reads it
}

cudalab::Launch PerfCase::launch(const CnnVariant& v, Kernel kernel, float* out) {
  const LayerCase c{"performance case", shape, {}, {}, base_seed(), false};
  if (std::string p = prepare(v, kernel, host_k, shape, info_of(v.name, kernel, c)); !p.empty())
    throw std::runtime_error(p);
  return [this, run = function_of(v, kernel), out](cudaStream_t stream) {
    const LayerShape& s = shape;
    run(x.data(), k.data(), out != nullptr ? out : y.data(), s.B, s.C, s.M, s.H, s.W, s.K, stream);
  };
}

void PerfCase::fresh_x(std::uint64_t seed, std::uint64_t sample, cudaStream_t stream) {
  cudalab::fill_uniform_async(x.data(), x.size(), derive_seed(seed, sample), -1.0f, 1.0f, stream);
}

cudalab::Tolerance PerfCase::timed_tolerance() const {
  // Each run is within conv_tolerance of the exact layer (max |x| <= 1 for every fresh x).
  return cudalab::grade::between_results(conv_tolerance(host_k, shape, 1.0));
}

cudalab::grade::Workload PerfCase::workload() const {
  // Minimum DRAM traffic: x read once, k read once, y written once, 4 bytes a value.
  // Operations: 2 * B * M * C * K * K * Ho * Wo (a multiply and an add per weight and output).
  const double bytes =
      4.0 * (static_cast<double>(shape.x_count()) + shape.k_count() + shape.y_count());
  return {"course layer " + shape.text() + " (" + std::to_string(shape.ho()) + " x " +
              std::to_string(shape.wo()) + " out)",
          bytes, shape.flops(), true};
}

std::string PerfCase::validate(const CnnVariant& v, Kernel kernel) {
  const LayerCase c{"performance case", shape, {}, {}, base_seed(), false};
  const CaseInfo info = info_of(v.name, kernel, c);
  cudalab::Stream stream;
  CUDA_CHECK(cudaMemset(y.data(), 0xFF, y.bytes()));
  CUDA_CHECK(cudaDeviceSynchronize());
  try {
    if (std::string p = prepare(v, kernel, host_k, shape, info); !p.empty()) return p;
    const LayerShape& s = shape;
    function_of(v, kernel)(x.data(), k.data(), y.data(), s.B, s.C, s.M, s.H, s.W, s.K,
                           stream.get());
  } catch (const std::exception& e) {
    return info.header() + ": threw " + e.what();
  }
  if (std::string p = check_cuda_errors(info); !p.empty()) return p;
  LayerShape one = shape;  // one image
  one.B = 1;
  const std::size_t per_image = one.y_count(), x_per_image = one.x_count();
  for (const int b : {0, shape.B / 2, shape.B - 1}) {
    std::vector<float> image(x_per_image), got(per_image);
    CUDA_CHECK(cudaMemcpy(image.data(), x.data() + b * x_per_image, x_per_image * sizeof(float),
                          cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(got.data(), y.data() + b * per_image, per_image * sizeof(float),
                          cudaMemcpyDeviceToHost));
    // The bound of conv_tolerance with this image's max |x| (each output reads its image only).
    const cudalab::Tolerance tol = conv_tolerance(host_k, shape, max_abs(image));
    const std::vector<double> expected = conv_forward_cpu(image, host_k, one);
    const cudalab::CompareResult r = cudalab::compare(got, expected, tol);
    if (!r.ok())
      return info.header() + ": output y is wrong for image " + std::to_string(b) + ": " +
             cudalab::describe(r, tol);
  }
  return "";
}

std::string data_dir() {
  if (const char* env = std::getenv("CUDALAB_DATA_DIR"); env != nullptr && *env != '\0') return env;
  return CUDALAB_DATA_DIR_DEFAULT;
}

}  // namespace lab10
