#include "conv2d_check.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "conv2d_cpu.h"
#include "cudalab/device_data.h"
#include "cudalab/random.h"
#include "grading.h"
#include "harness.h"
#include "image_io.h"

#ifndef CUDALAB_DATA_DIR_DEFAULT
#define CUDALAB_DATA_DIR_DEFAULT "data"
#endif

namespace lab04 {

using cudalab::derive_seed;
using namespace cudalab::grade;

namespace {

std::string size_text(int w, int h, int channels) {
  return std::to_string(w) + " x " + std::to_string(h) + (channels == 3 ? " RGB" : " gray");
}

// "pixel (x = 3, y = 7)" or "pixel (x = 3, y = 7), channel 2" for a flat index.
std::string where(std::size_t index, int width, int channels) {
  const std::size_t pixel = index / static_cast<std::size_t>(channels);
  std::string s = "pixel (x = " + std::to_string(pixel % static_cast<std::size_t>(width)) +
                  ", y = " + std::to_string(pixel / static_cast<std::size_t>(width)) + ")";
  if (channels > 1) s += ", channel " + std::to_string(index % static_cast<std::size_t>(channels));
  return s;
}

std::vector<std::uint8_t> random_bytes(std::size_t count, std::uint64_t seed) {
  const std::vector<float> v = cudalab::random_small_ints(count, seed, 0, 255);
  return {v.begin(), v.end()};
}

std::vector<float> random_byte_values(std::size_t count, std::uint64_t seed) {
  return cudalab::random_small_ints(count, seed, 0, 255);
}

// The large images' generators: the distributions of random_byte_values and
// cudalab::random_floats (uniform in [0, 255], integers; uniform in [-1, 1), 24 random bits), from
// splitmix64 (derive_seed of the seed and a counter) instead of one std::mt19937_64 draw (and a
// division) per value: several times faster on tens of millions of values.
std::vector<float> fast_random_byte_values(std::size_t count, std::uint64_t seed) {
  std::vector<float> v(count);
  for (std::size_t i = 0; i < count; i += 8) {  // 8 values from each 64-bit draw
    std::uint64_t bits = derive_seed(seed, i / 8);
    for (std::size_t j = i; j < std::min(count, i + 8); ++j, bits >>= 8)
      v[j] = static_cast<float>(bits & 0xFF);
  }
  return v;
}

std::vector<float> fast_random_floats(std::size_t count, std::uint64_t seed) {
  std::vector<float> v(count);
  for (std::size_t i = 0; i < count; ++i)  // -1 + 2 k / 2^24: exact, in [-1, 1)
    v[i] = -1.0f + 2.0f * (static_cast<float>(derive_seed(seed, i) >> 40) * (1.0f / 16777216.0f));
  return v;
}

std::size_t values_of(int w, int h, int channels) {
  return static_cast<std::size_t>(w) * h * channels;
}

double max_abs(const std::vector<float>& v) {
  double m = 0.0;
  for (const float x : v) m = std::max(m, static_cast<double>(std::fabs(x)));
  return m;
}

CaseInfo info_of(const std::string& variant, const std::string& name, std::uint64_t seed, int w,
                 int h, int channels, int mask_width) {
  return {variant + ", " + name, seed,
          "width=" + std::to_string(w) + " height=" + std::to_string(h) + " channels=" +
              std::to_string(channels) + " mask_width=" + std::to_string(mask_width)};
}

FloatCase filter_float_case(const Filter& f, int w, int h, int channels, std::uint64_t seed) {
  return {f.name + " on " + size_text(w, h, channels),
          w,
          h,
          channels,
          random_byte_values(values_of(w, h, channels), seed),
          f.mask,
          f.width,
          seed,
          false};
}

ByteCase filter_byte_case(const Filter& f, int w, int h, int channels, std::uint64_t seed) {
  return {f.name + " on " + size_text(w, h, channels) + ", 8-bit", w,      h,       channels,
          random_bytes(values_of(w, h, channels), seed),           f.mask, f.width, seed};
}

FloatCase random_float_case(const std::string& name, int w, int h, int channels, int mask_width,
                            std::uint64_t seed) {
  return {name + ", " + size_text(w, h, channels) + ", random " + std::to_string(mask_width) +
              " x " + std::to_string(mask_width) + " mask",
          w,
          h,
          channels,
          cudalab::random_floats(values_of(w, h, channels), seed),
          cudalab::random_floats(static_cast<std::size_t>(mask_width) * mask_width, seed + 1),
          mask_width,
          seed,
          false};
}

// set_mask gets a private copy of the host mask, compared with the original afterwards: a
// set_mask that wrote through its const pointer would otherwise change the mask the CPU
// reference reads (and every later case's). "" or the problem.
std::string set_mask_from_copy(const Conv2dVariant& v, const std::vector<float>& mask,
                               int mask_width, const CaseInfo& info) {
  std::vector<float> handed = mask;
  v.set_mask(handed.data(), mask_width);
  CUDA_CHECK(cudaDeviceSynchronize());  // the mask copied from pageable memory has landed
  return check_host_input_unchanged(info, "set_mask", handed, mask);
}

// Thrown by PerfCase::launch when set_mask wrote to its host mask; the message says so.
class HostInputWritten : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Exact comparison of 8-bit outputs: "" or a report of the first 10 differences.
std::string compare_bytes(const std::vector<std::uint8_t>& got,
                          const std::vector<std::uint8_t>& expected, int width, int channels) {
  std::size_t differ = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (got[i] == expected[i]) continue;
    if (++differ <= 10)
      first << "\n  " << where(i, width, channels) << ": expected " << int(expected[i]) << ", got "
            << int(got[i]);
  }
  if (differ == 0) return "";
  return std::to_string(differ) + " of " + std::to_string(got.size()) +
         " values differ (exact comparison)" + first.str();
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Cases

FloatCase worked_example_float() {
  const Filter& sharpen = filter_by_name("sharpen");
  return {"course worked example (5 x 5 patch, sharpen; 89 at x = 1, y = 1)",
          kWorkedExampleSide,
          kWorkedExampleSide,
          1,
          worked_example_image(),
          sharpen.mask,
          sharpen.width,
          0,
          true};
}

ByteCase worked_example_8bit() {
  const FloatCase f = worked_example_float();
  return {f.name + ", 8-bit", f.width, f.height, 1, {f.image.begin(), f.image.end()}, f.mask,
          f.mask_width,       0};
}

namespace {

// Every course filter on a 61 x 47 grayscale and a 45 x 37 RGB image, seeded from salt + k and
// salt + 20 + k for the k-th filter.
template <typename Case>
std::vector<Case> filter_cases(std::uint64_t seed, int salt,
                               Case (*make)(const Filter&, int, int, int, std::uint64_t)) {
  std::vector<Case> cases;
  int k = 0;
  for (const Filter& f : course_filters()) {
    cases.push_back(make(f, 61, 47, 1, derive_seed(seed, salt + k)));
    cases.push_back(make(f, 45, 37, 3, derive_seed(seed, salt + 20 + k)));
    ++k;
  }
  return cases;
}

}  // namespace

std::vector<FloatCase> filter_float_cases(std::uint64_t seed) {
  return filter_cases(seed, 400, filter_float_case);
}

std::vector<ByteCase> filter_8bit_cases(std::uint64_t seed) {
  return filter_cases(seed, 440, filter_byte_case);
}

std::vector<FloatCase> shape_cases(std::uint64_t seed) {
  // width, height, channels, mask width: 1 x 1, a row, a column, narrower than the mask,
  // non-square, sizes around and between tile multiples (16, 32, 64), grayscale and RGB.
  const int shapes[][4] = {{1, 1, 1, 3},     {1, 1, 3, 9},   {300, 1, 1, 5},  {1, 300, 1, 5},
                           {1000, 1, 3, 9},  {1, 777, 3, 7}, {2, 3, 1, 9},    {7, 4, 3, 5},
                           {17, 13, 1, 3},   {97, 61, 1, 5}, {61, 97, 3, 5},  {65, 63, 1, 9},
                           {129, 3, 3, 7},   {3, 129, 1, 7}, {256, 64, 1, 5}, {257, 65, 3, 3},
                           {640, 427, 3, 5}, {1023, 5, 1, 9}};
  std::vector<FloatCase> cases;
  int k = 0;
  for (const auto& s : shapes) {
    const std::uint64_t cs = derive_seed(seed, 300 + k++);
    FloatCase c = random_float_case("shape", s[0], s[1], s[2], s[3], cs);
    // Integer values: every sum is exact in float, so a wrong tap shows whatever the order.
    c.image = cudalab::random_small_ints(c.image.size(), cs + 2, -9, 9);
    c.mask = cudalab::random_small_ints(c.mask.size(), cs + 3, -4, 4);
    c.integer_valued = true;
    cases.push_back(std::move(c));
  }
  return cases;
}

std::vector<FloatCase> random_mask_cases(std::uint64_t seed) {
  std::vector<FloatCase> cases;
  int k = 0;
  for (const int mask_width : {1, 3, 5, 7, 9})
    for (const int channels : {1, 3}) {
      const std::uint64_t cs = derive_seed(seed, 200 + k++);
      const auto w = static_cast<int>(cudalab::random_int(cs + 10, 1, 400));
      const auto h = static_cast<int>(cudalab::random_int(cs + 11, 1, 300));
      cases.push_back(random_float_case("random", w, h, channels, mask_width, cs));
    }
  return cases;
}

std::vector<ByteCase> clamp_and_rounding_cases() {
  std::vector<ByteCase> cases;
  // A checkerboard of 0 and 255: sharpen gives 255 * 5 = 1275 on the bright squares and
  // -1020 on the dark ones, both clamped; the edge detectors likewise.
  for (const char* name : {"sharpen", "edge-detect-2", "edge-detect-3", "unsharp-5x5"}) {
    const Filter& f = filter_by_name(name);
    for (const int channels : {1, 3}) {
      const int w = 37, h = 23;
      std::vector<std::uint8_t> img(values_of(w, h, channels));
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
          for (int c = 0; c < channels; ++c)
            img[(static_cast<std::size_t>(y) * w + x) * channels + c] =
                ((x + y + c) % 2 == 0) ? 255 : 0;
      cases.push_back({f.name + " on a 0/255 checkerboard, " + size_text(w, h, channels) +
                           " (values far outside [0, 255] must clamp)",
                       w, h, channels, std::move(img), f.mask, f.width, 0});
    }
  }
  // Ties: an impulse of value v under the 3 x 3 Gaussian gives v/16 at the corners, v/8 at the
  // edges and v/4 at the centre: 8 -> 0.5, 1, 2 and 40 -> 2.5, 5, 10. Half up gives 1 and 3
  // at the corners; truncation gives 0 and 2, round-half-to-even 0 and 2.
  const Filter& g3 = filter_by_name("gaussian-3x3");
  for (const int v : {8, 40, 24}) {
    const int w = 9, h = 7;
    std::vector<std::uint8_t> img(values_of(w, h, 1), 0);
    img[3 * w + 4] = static_cast<std::uint8_t>(v);
    cases.push_back({"gaussian-3x3 on an impulse of " + std::to_string(v) + " (" +
                         cudalab::format_value(v / 16.0) + " at the corners: ties round half up)",
                     w, h, 1, std::move(img), g3.mask, g3.width, 0});
  }
  return cases;
}

std::vector<FloatCase> new_mask_cases(std::uint64_t seed) {
  const std::uint64_t s = derive_seed(seed, 600);
  std::vector<FloatCase> cases = {random_float_case("first mask", 300, 200, 1, 9, s),
                                  random_float_case("second mask", 300, 200, 1, 9, s + 5),
                                  random_float_case("third mask, narrower", 300, 200, 3, 3, s + 9)};
  return cases;
}

std::vector<FloatCase> large_cases(std::uint64_t seed) {
  // As filter_float_case and random_float_case make them, with the fast generators.
  const Filter& g5 = filter_by_name("gaussian-5x5");
  const int w = 4099, h = 3001;
  const std::uint64_t rgb = derive_seed(seed, 700), gray = derive_seed(seed, 701);
  FloatCase a{"large: " + g5.name + " on " + size_text(w, h, 3),
              w,
              h,
              3,
              fast_random_byte_values(values_of(w, h, 3), rgb),
              g5.mask,
              g5.width,
              rgb,
              false};
  FloatCase b{"large, " + size_text(w, h, 1) + ", random 9 x 9 mask",
              w,
              h,
              1,
              fast_random_floats(values_of(w, h, 1), gray),
              cudalab::random_floats(81, gray + 1),
              9,
              gray,
              false};
  return {std::move(a), std::move(b)};
}

std::string data_dir() {
  if (const char* env = std::getenv("CUDALAB_DATA_DIR"); env != nullptr && *env != '\0') return env;
  return CUDALAB_DATA_DIR_DEFAULT;
}

std::vector<ByteCase> photo_cases(std::vector<std::string>* missing) {
  static const char* const photos[] = {"camera.png", "coins.png", "astronaut.png",
                                       "grace_hopper.jpg", "china.jpg"};
  std::vector<ByteCase> cases;
  for (const char* photo : photos) {
    const std::string path = data_dir() + "/images/" + photo;
    if (!std::filesystem::exists(path)) {
      missing->push_back(path);
      continue;
    }
    Image image = load_image(path);
    for (const char* filter : {"sharpen", "gaussian-5x5"}) {
      const Filter& f = filter_by_name(filter);
      cases.push_back({f.name + " on " + photo + " (" +
                           size_text(image.width, image.height, image.channels) + ")",
                       image.width, image.height, image.channels, image.pixels, f.mask, f.width,
                       0});
    }
  }
  return cases;
}

std::vector<ByteCase> center_crops(const std::vector<ByteCase>& cases, int max_width,
                                   int max_height) {
  std::vector<ByteCase> crops;
  for (const ByteCase& c : cases) {
    const int w = std::min(c.width, max_width), h = std::min(c.height, max_height);
    const int x0 = (c.width - w) / 2, y0 = (c.height - h) / 2;
    ByteCase crop = c;
    crop.name = c.name + ", its centre " + size_text(w, h, c.channels);
    crop.width = w;
    crop.height = h;
    crop.image.resize(values_of(w, h, c.channels));
    const std::size_t row = static_cast<std::size_t>(w) * c.channels;
    for (int y = 0; y < h; ++y) {
      const auto from =
          c.image.begin() + static_cast<std::ptrdiff_t>(values_of(c.width, y0 + y, c.channels) +
                                                        static_cast<std::size_t>(x0) * c.channels);
      std::copy(from, from + static_cast<std::ptrdiff_t>(row),
                crop.image.begin() + static_cast<std::ptrdiff_t>(y * row));
    }
    crops.push_back(std::move(crop));
  }
  return crops;
}

// ---------------------------------------------------------------------------------------------
// Running cases

std::string run_case(const FloatCase& c, const Conv2dVariant& v) {
  const CaseInfo info =
      info_of(v.name, c.name, c.seed, c.width, c.height, c.channels, c.mask_width);
  GuardedBuffer<float> in("in", c.image.size()), out("out", c.image.size());
  in.upload(c.image);
  cudalab::Stream stream;
  std::string mask_problem;
  try {
    mask_problem = set_mask_from_copy(v, c.mask, c.mask_width, info);
    if (mask_problem.empty())
      v.conv2d(in.data(), out.data(), c.width, c.height, c.channels, stream.get());
  } catch (const std::exception& e) {
    return info.header() + ": threw " + e.what();
  }
  if (!mask_problem.empty()) return mask_problem;
  if (std::string p = check_cuda_errors(info); !p.empty()) return p;
  if (std::string p = out.check_guards(); !p.empty()) return info.header() + ": " + p;
  const std::vector<double> expected =
      conv2d_cpu(c.image, c.width, c.height, c.channels, c.mask, c.mask_width);
  const cudalab::Tolerance tol = c.integer_valued
                                     ? cudalab::Tolerance{0.0, 0.0}
                                     : conv2d_tolerance(c.mask, c.mask_width, max_abs(c.image));
  const cudalab::CompareResult r = cudalab::compare(out.download(), expected, tol);
  if (!r.ok())
    return info.header() + ": output out is wrong: " + cudalab::describe(r, tol) +
           "\n  first wrong value at " + where(r.first.front().index, c.width, c.channels);
  return check_unchanged(info, in, c.image);
}

std::string run_case(const ByteCase& c, const Conv2dVariant& v) {
  const CaseInfo info =
      info_of(v.name, c.name, c.seed, c.width, c.height, c.channels, c.mask_width);
  GuardedBuffer<std::uint8_t> in("in", c.image.size()), out("out", c.image.size());
  in.upload(c.image);
  const std::vector<std::uint8_t> expected =
      conv2d_8bit_cpu(c.image, c.width, c.height, c.channels, c.mask, c.mask_width);
  cudalab::Stream stream;
  for (const int fill : {0xFF, 0x00}) {
    CUDA_CHECK(cudaMemset(out.data(), fill, out.size()));
    std::string mask_problem;
    try {
      // Synchronizes: the fill and the mask have landed.
      mask_problem = set_mask_from_copy(v, c.mask, c.mask_width, info);
      if (mask_problem.empty())
        v.conv2d_8bit(in.data(), out.data(), c.width, c.height, c.channels, stream.get());
    } catch (const std::exception& e) {
      return info.header() + ": threw " + e.what();
    }
    if (!mask_problem.empty()) return mask_problem;
    if (std::string p = check_cuda_errors(info); !p.empty()) return p;
    if (std::string p = out.check_guards(); !p.empty()) return info.header() + ": " + p;
    if (std::string p = compare_bytes(out.download(), expected, c.width, c.channels); !p.empty())
      return info.header() + ": 8-bit output out is wrong (output filled with " +
             std::to_string(fill) + " before the run): " + p;
  }
  if (std::string p = in.check_guards(); !p.empty()) return info.header() + ": " + p;
  if (in.download() != c.image)
    return info.header() + ": input in was modified; inputs are read-only";
  return "";
}

// ---------------------------------------------------------------------------------------------
// Performance

PerfCase::PerfCase(std::uint64_t seed, int side_, int mask_width_, int channels_)
    : side(side_),
      mask_width(mask_width_),
      channels(channels_),
      mask(cudalab::random_floats(static_cast<std::size_t>(mask_width_) * mask_width_,
                                  derive_seed(seed, 901))),
      in(values_of(side_, side_, channels_)),
      out(values_of(side_, side_, channels_)) {
  // The image, uniform in [-1, 1), made on the device: the CPU never needs all of it.
  cudalab::fill_uniform_async(in.data(), in.size(), derive_seed(seed, 900), -1.0f, 1.0f, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
}

cudalab::Launch PerfCase::launch(const Conv2dVariant& v) {
  return launch(v, out.data());
}

cudalab::Launch PerfCase::launch(const Conv2dVariant& v, float* output) {
  const CaseInfo info =
      info_of(v.name, "performance case", base_seed(), side, side, channels, mask_width);
  if (std::string p = set_mask_from_copy(v, mask, mask_width, info); !p.empty())
    throw HostInputWritten(p);
  return [this, output, run = v.conv2d](cudaStream_t stream) {
    run(in.data(), output, side, side, channels, stream);
  };
}

Workload PerfCase::workload() const {
  const double values = static_cast<double>(side) * side * channels;
  const double k2 = static_cast<double>(mask_width) * mask_width;
  // Minimum DRAM traffic: the image read once and the output written once, 4 bytes a value
  // (the mask is 100 bytes). Operations: a multiply and an add per mask value and output.
  return {std::to_string(side) + " x " + std::to_string(side) + (channels == 3 ? " RGB" : " gray") +
              " float, " + std::to_string(mask_width) + " x " + std::to_string(mask_width) +
              " mask",
          2.0 * sizeof(float) * values, 2.0 * k2 * values, true};
}

std::string PerfCase::validate(const Conv2dVariant& v) {
  const CaseInfo info =
      info_of(v.name, "performance case", base_seed(), side, side, channels, mask_width);
  // The image the variant reads, for the CPU reference (before the run: a variant that wrote to
  // it is still checked against what it was given).
  std::vector<float> image(in.size());
  CUDA_CHECK(cudaMemcpy(image.data(), in.data(), in.bytes(), cudaMemcpyDeviceToHost));
  cudalab::Stream stream;
  CUDA_CHECK(cudaMemset(out.data(), 0xFF, out.bytes()));
  CUDA_CHECK(cudaDeviceSynchronize());
  try {
    launch(v)(stream.get());
  } catch (const HostInputWritten& e) {
    return e.what();
  } catch (const std::exception& e) {
    return info.header() + ": threw " + e.what();
  }
  if (std::string p = check_cuda_errors(info); !p.empty()) return p;
  std::vector<float> got(image.size());
  CUDA_CHECK(cudaMemcpy(got.data(), out.data(), out.bytes(), cudaMemcpyDeviceToHost));
  const int r = mask_width / 2;
  const std::size_t row = static_cast<std::size_t>(side) * channels;
  const cudalab::Tolerance tol = conv2d_tolerance(mask, mask_width, max_abs(image));
  // Bands of 64 rows at the top, the middle and the bottom, each computed on the CPU from its
  // rows plus R rows above and below (where the image has them).
  for (const int band_start : {0, side / 2 - 32, side - 64}) {
    const int y0 = std::max(0, band_start), y1 = std::min(side, band_start + 64);
    const int s0 = std::max(0, y0 - r), s1 = std::min(side, y1 + r);
    const std::vector<float> slab(image.begin() + static_cast<std::ptrdiff_t>(s0 * row),
                                  image.begin() + static_cast<std::ptrdiff_t>(s1 * row));
    const std::vector<double> full = conv2d_cpu(slab, side, s1 - s0, channels, mask, mask_width);
    const std::vector<double> expected(full.begin() + static_cast<std::ptrdiff_t>((y0 - s0) * row),
                                       full.begin() + static_cast<std::ptrdiff_t>((y1 - s0) * row));
    const cudalab::CompareResult cmp = cudalab::compare(
        got.data() + static_cast<std::size_t>(y0) * row, expected.data(), expected.size(), tol);
    if (!cmp.ok())
      return info.header() + ": output out is wrong in rows " + std::to_string(y0) + " to " +
             std::to_string(y1 - 1) + ": " + cudalab::describe(cmp, tol);
  }
  return "";
}

}  // namespace lab04
