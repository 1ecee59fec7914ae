// Host tests of the 1D convolution support: the CPU reference reproduces the course's worked
// example, treats ghost elements as zero, and the tolerance has the size its error analysis says.
#include <cmath>

#include "conv1d_cpu.h"
#include "cudalab/catch.h"

TEST_CASE("CPU reference reproduces the course's worked example", "[conv1d][host]") {
  // seed 000: X = 1..7, H = [3,4,5,4,3]; Y[2] = 57, Y[3] = 76; Y[1] uses one ghost element.
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7};
  const std::vector<float> h = {3, 4, 5, 4, 3};
  const auto y = conv1d::conv1d_cpu(x, h);
  REQUIRE(y.size() == 7);
  CHECK(y[2] == 57.0);
  CHECK(y[3] == 76.0);
  CHECK(y[1] == 0 * 3 + 1 * 4 + 2 * 5 + 3 * 4 + 4 * 3);  // 38: x[-1] is a ghost
  CHECK(y[0] == 1 * 5 + 2 * 4 + 3 * 3);                  // 22: two ghosts
  CHECK(y[6] == 5 * 3 + 6 * 4 + 7 * 5);                  // 74: two ghosts on the right
}

TEST_CASE("CPU reference: mask of width 1 scales, masks wider than x see only ghosts",
          "[conv1d][host]") {
  const std::vector<float> x = {2, -3, 5};
  CHECK(conv1d::conv1d_cpu(x, {4}) == std::vector<double>{8, -12, 20});
  // width 3 < mask width 7: every output sums all of x under the mask.
  const std::vector<float> h = {1, 2, 3, 4, 5, 6, 7};
  const auto y = conv1d::conv1d_cpu(x, h);
  CHECK(y[0] == 4 * 2 + 5 * -3 + 6 * 5);
  CHECK(y[1] == 3 * 2 + 4 * -3 + 5 * 5);
  CHECK(y[2] == 2 * 2 + 3 * -3 + 4 * 5);
}

TEST_CASE("CPU reference handles width 1 and empty input", "[conv1d][host]") {
  CHECK(conv1d::conv1d_cpu({3}, {1, 2, 1}) == std::vector<double>{6});
  CHECK(conv1d::conv1d_cpu({}, {1, 2, 1}).empty());
}

TEST_CASE("Tolerance follows the error analysis and rejects half precision", "[conv1d][host]") {
  const auto tol = conv1d::conv1d_tolerance(9, 1.0, 1.0);
  CHECK(tol.atol == Approx(2.0 * 81.0 / 16777216.0));
  CHECK(tol.rtol == 0.0);
  // One half-precision rounding of a value near 1 (2^-11) is far outside it.
  CHECK(std::ldexp(1.0, -11) > 50 * tol.atol);
  // Scales with the magnitudes of mask and input.
  CHECK(conv1d::conv1d_tolerance(9, 2.0, 3.0).atol == Approx(6.0 * tol.atol));
}
