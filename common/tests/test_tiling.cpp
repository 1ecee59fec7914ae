// The bandwidth reduction of tiling reproduces the course's tables (seed 000).
#include <cmath>
#include <stdexcept>

#include "cudalab/catch.h"
#include "cudalab/tiling.h"

namespace {
double one_decimal(double v) {
  return std::round(v * 10.0) / 10.0;
}
}  // namespace

TEST_CASE("1D bandwidth reduction matches the course's table", "[common][tiling]") {
  // O_Tile_Width 16 32 64 128 256; Kernel_Width 5 and 9, as printed (one decimal).
  const int tiles[] = {16, 32, 64, 128, 256};
  const double k5[] = {4.0, 4.4, 4.7, 4.8, 4.9};
  const double k9[] = {6.0, 7.2, 8.0, 8.5, 8.7};
  for (int i = 0; i < 5; ++i) {
    CAPTURE(tiles[i]);
    CHECK(one_decimal(cudalab::bandwidth_reduction_1d(tiles[i], 5)) == Approx(k5[i]));
    CHECK(one_decimal(cudalab::bandwidth_reduction_1d(tiles[i], 9)) == Approx(k9[i]));
  }
  // Exact values behind two entries: 16*5/20 and 64*9/72.
  CHECK(cudalab::bandwidth_reduction_1d(16, 5) == 4.0);
  CHECK(cudalab::bandwidth_reduction_1d(64, 9) == 8.0);
}

TEST_CASE("the reduction approaches the mask width for wide tiles", "[common][tiling]") {
  CHECK(cudalab::bandwidth_reduction_1d(1 << 20, 9) == Approx(9.0).epsilon(1e-4));
  CHECK(cudalab::bandwidth_reduction_1d(1, 9) == Approx(1.0));  // a 1-output tile saves nothing
}

TEST_CASE("2D bandwidth reduction is the square of the 1D one", "[common][tiling]") {
  CHECK(cudalab::bandwidth_reduction_2d(16, 5) == Approx(16.0));  // (16*5)^2 / 20^2
  CHECK(cudalab::bandwidth_reduction_2d(8, 3) == Approx(576.0 / 100.0));
}

TEST_CASE("bandwidth reduction rejects non-positive sizes", "[common][tiling]") {
  REQUIRE_THROWS_AS(cudalab::bandwidth_reduction_1d(0, 5), std::invalid_argument);
  REQUIRE_THROWS_AS(cudalab::bandwidth_reduction_1d(16, -1), std::invalid_argument);
}
