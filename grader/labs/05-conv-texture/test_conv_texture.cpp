// Host tests of lab 05's CPU references and tolerances (no GPU): the course's mask and signal,
// the clamped convolution, the address modes, and the rotation tolerance against models of the
// hardware (weights rounded or truncated to 1/256: must pass) and of mistakes (point filtering,
// no half-texel offset, swapped axes: must fail).
#include <algorithm>
#include <cmath>

#include "cudalab/catch.h"
#include "texture_check.h"
#include "texture_cpu.h"

using namespace lab05;

namespace {

constexpr double kPi = 3.14159265358979323846;

// Rotation results as float, the way the GPU returns them.
std::vector<float> as_float(const std::vector<double>& v) {
  return std::vector<float>(v.begin(), v.end());
}

bool within_bounds(const RotationCase& c, const std::vector<double>& got) {
  const auto expected = rotate_cpu(c.img, c.w, c.h, c.theta(), c.mode);
  const auto bounds = rotation_bounds(c.img, c.w, c.h, c.theta(), c.mode);
  return compare_with_bounds(as_float(got), expected, bounds).ok();
}

}  // namespace

TEST_CASE("the Gaussian mask is normalised and symmetric", "[lab05][host]") {
  CHECK(gaussian_mask(0) == std::vector<float>{1.0f});
  for (const int r : {1, 3, 8}) {
    const auto m = gaussian_mask(r);
    const int side = 2 * r + 1;
    REQUIRE(m.size() == static_cast<std::size_t>(side * side));
    double sum = 0;
    for (const float v : m) sum += v;
    CHECK(sum == Approx(1.0).epsilon(1e-6));
    CHECK(m[r * side + r] > m[r * side + r + 1]);   // centre largest
    CHECK(m[0] == m[side * side - 1]);              // point symmetric
    CHECK(m[1] == m[side]);                         // transpose symmetric
    CHECK(m[r * side + r + 1] / m[r * side + r] ==  // exp(-1 / delta^2)
          Approx(std::exp(-1.0 / (r * r))).epsilon(1e-6));
  }
}

TEST_CASE("the course's test signal", "[lab05][host]") {
  const auto s = test_signal(10, 6, 4);
  REQUIRE(s.size() == 60u);
  CHECK(s[0] == 0.0f);           // x = 0
  CHECK(s[3 * 10 + 0] == 0.0f);  // sin(0) in x
  CHECK(s[3 * 10 + 4] == Approx(std::sin(2 * kPi * 4 / 18) * std::sin(2 * kPi * 3 / 14)));
}

TEST_CASE("the CPU convolution clamps at the edges", "[lab05][host]") {
  // A constant image stays constant under a normalised mask, edges included (clamp, not zero).
  const std::vector<float> ones(7 * 5, 2.0f);
  for (const double v : conv2d_cpu(ones, 7, 5, gaussian_mask(3), 3))
    CHECK(v == Approx(2.0).epsilon(1e-6));
  // A 3 x 3 mask on a 3 x 1 image [1 2 3]: rows clamp to the one row, columns to the ends.
  const std::vector<float> mask{0, 0, 0, 1, 10, 100, 0, 0, 0};  // only the middle row
  const auto out = conv2d_cpu({1, 2, 3}, 3, 1, mask, 1);
  CHECK(out[0] == 1 * 1 + 10 * 1 + 100 * 2);  // x-1 clamps to 0
  CHECK(out[1] == 1 * 1 + 10 * 2 + 100 * 3);
  CHECK(out[2] == 1 * 2 + 10 * 3 + 100 * 3);  // x+1 clamps to 2
  // mask[0][*] multiplies row y-1: a 1 x 3 image [1 2 3]^T.
  const std::vector<float> col_mask{0, 1, 0, 0, 10, 0, 0, 100, 0};
  const auto col = conv2d_cpu({1, 2, 3}, 1, 3, col_mask, 1);
  CHECK(col[1] == 1 * 1 + 10 * 2 + 100 * 3);
}

TEST_CASE("the convolution tolerance follows the error bound", "[lab05][host]") {
  const auto tol = conv2d_tolerance(gaussian_mask(8), 1.0);
  CHECK(tol.atol == Approx(2.0 * 289 / (1 << 24)).epsilon(1e-5));
  CHECK(tol.rtol == 0.0);
}

TEST_CASE("address modes resolve texel indices", "[lab05][host]") {
  CHECK(resolve_index(-1, 5, cudaAddressModeWrap) == 4);
  CHECK(resolve_index(5, 5, cudaAddressModeWrap) == 0);
  CHECK(resolve_index(-7, 5, cudaAddressModeWrap) == 3);
  CHECK(resolve_index(-1, 5, cudaAddressModeClamp) == 0);
  CHECK(resolve_index(9, 5, cudaAddressModeClamp) == 4);
  CHECK(resolve_index(-1, 5, cudaAddressModeBorder) == -1);
  CHECK(resolve_index(5, 5, cudaAddressModeBorder) == -1);
  CHECK(resolve_index(3, 5, cudaAddressModeBorder) == 3);
  CHECK(resolve_index(-1, 5, cudaAddressModeMirror) == 0);
  CHECK(resolve_index(-2, 5, cudaAddressModeMirror) == 1);
  CHECK(resolve_index(5, 5, cudaAddressModeMirror) == 4);
  CHECK(resolve_index(9, 5, cudaAddressModeMirror) == 0);
  CHECK(resolve_index(10, 5, cudaAddressModeMirror) == 0);
  for (const auto mode : kModes) CHECK(parse_mode(mode_name(mode)) == mode);
  CHECK_THROWS_AS(parse_mode("repeat"), std::invalid_argument);
}

TEST_CASE("bilinear sampling follows the Programming Guide", "[lab05][host]") {
  const std::vector<float> t{0, 1, 2, 3};  // 2 x 2: T[0,0]=0 T[1,0]=1 T[0,1]=2 T[1,1]=3
  // Texel centres return the texel.
  CHECK(sample(t, 2, 2, 0.25, 0.25, cudaAddressModeClamp) == Approx(0.0));
  CHECK(sample(t, 2, 2, 0.75, 0.75, cudaAddressModeClamp) == Approx(3.0));
  // The centre of the image: the mean of the four.
  CHECK(sample(t, 2, 2, 0.5, 0.5, cudaAddressModeClamp) == Approx(1.5));
  // Border: half a texel outside the left edge blends T[0,0] row with 0.
  CHECK(sample(t, 2, 2, 0.0, 0.25, cudaAddressModeBorder) == Approx(0.0));
  CHECK(sample(t, 2, 2, 0.0, 0.75, cudaAddressModeBorder) == Approx(1.0));  // (0 + 2) / 2
  // Wrap: the left edge blends the first and last columns.
  CHECK(sample(t, 2, 2, 0.0, 0.25, cudaAddressModeWrap) == Approx(0.5));
  // Mirror: the left edge is the first column itself.
  CHECK(sample(t, 2, 2, 0.0, 0.25, cudaAddressModeMirror) == Approx(0.0));
  // Point filtering takes the texel the coordinate falls in.
  CHECK(sample(t, 2, 2, 0.49, 0.51, cudaAddressModeClamp, Sampler::nearest) == 2.0);
}

TEST_CASE("rotation by 0 reproduces the image", "[lab05][host]") {
  const RotationCase c = rotation_case(61, 47, 0.0, cudaAddressModeWrap);
  const auto out = rotate_cpu(c.img, c.w, c.h, c.theta(), c.mode);
  for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i] == Approx(c.img[i]).margin(1e-12));
}

TEST_CASE("the rotation tolerance accepts the hardware's 8-bit weights", "[lab05][host]") {
  for (const auto mode : kModes)
    for (const auto& c : rotation_cases(mode)) {
      if (c.w > 100) continue;  // the small cases suffice here
      CAPTURE(c.name);
      CHECK(
          within_bounds(c, rotate_cpu(c.img, c.w, c.h, c.theta(), mode, Sampler::weights_rounded)));
      CHECK(within_bounds(
          c, rotate_cpu(c.img, c.w, c.h, c.theta(), mode, Sampler::weights_truncated)));
    }
}

TEST_CASE("the rotation tolerance rejects point filtering at 30 and -45 degrees", "[lab05][host]") {
  for (const auto mode : kModes)
    for (const auto& c : rotation_cases(mode)) {
      if (c.degrees == 0.0 || c.degrees == 90.0) continue;  // pixel centres on texel centres
      CAPTURE(c.name);
      CHECK_FALSE(within_bounds(c, rotate_cpu(c.img, c.w, c.h, c.theta(), mode, Sampler::nearest)));
    }
}

TEST_CASE("the rotation tolerance rejects a sample without the half-texel offset",
          "[lab05][host]") {
  for (const auto mode : kModes)
    for (const auto& c : rotation_cases(mode)) {
      if (c.w > 100) continue;
      CAPTURE(c.name);
      // u0 = x / w - 0.5 instead of (x + 0.5) / w - 0.5 (the course's TransformKernel).
      std::vector<double> got(c.img.size());
      const double th = c.theta();
      for (int y = 0; y < c.h; ++y)
        for (int x = 0; x < c.w; ++x) {
          const double u0 = static_cast<double>(x) / c.w - 0.5,
                       v0 = static_cast<double>(y) / c.h - 0.5;
          got[y * c.w + x] = sample(c.img, c.w, c.h, u0 * std::cos(th) + v0 * std::sin(th) + 0.5,
                                    -u0 * std::sin(th) + v0 * std::cos(th) + 0.5, mode);
        }
      CHECK_FALSE(within_bounds(c, got));
    }
}

TEST_CASE("the rotation tolerance rejects swapped axes on a non-square grid", "[lab05][host]") {
  for (const auto mode : kModes) {
    const RotationCase c = rotation_case(61, 47, 30.0, mode);
    std::vector<double> got(c.img.size());
    for (int y = 0; y < c.h; ++y)
      for (int x = 0; x < c.w; ++x) {
        double u = 0, v = 0;
        rotated_coordinates(x, y, c.w, c.h, c.theta(), &u, &v);
        got[y * c.w + x] = sample(c.img, c.w, c.h, v, u, mode);  // tex2D(tex, v, u)
      }
    CAPTURE(c.name);
    CHECK_FALSE(within_bounds(c, got));
  }
}

TEST_CASE("the convolution tolerance rejects swapped axes on a non-square image", "[lab05][host]") {
  const ConvCase c = signal_case(61, 47, 3);
  // tex2D(tex, y + dy + 0.5f, x + dx + 0.5f) with the texture's clamping.
  const int r = c.radius, side = 2 * r + 1;
  std::vector<double> got(c.img.size());
  for (int y = 0; y < c.h; ++y)
    for (int x = 0; x < c.w; ++x) {
      double sum = 0;
      for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx)
          sum += c.mask[(dy + r) * side + dx + r] *
                 c.img[std::clamp(x + dx, 0, c.h - 1) * c.w + std::clamp(y + dy, 0, c.w - 1)];
      got[y * c.w + x] = sum;
    }
  const auto expected = conv2d_cpu(c.img, c.w, c.h, c.mask, c.radius);
  CHECK_FALSE(cudalab::compare(as_float(got), expected, conv2d_tolerance(c.mask, 1.0)).ok());
}
