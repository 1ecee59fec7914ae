#include "conv_tiles.h"

#include <cuda_runtime.h>

#include "cudalab/check.h"
#include "grading.h"

namespace lab06 {

SharedLimits device_shared_limits() {
  int device = 0, default_bytes = 0, optin_bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&default_bytes, cudaDevAttrMaxSharedMemoryPerBlock, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  return {static_cast<std::size_t>(default_bytes), static_cast<std::size_t>(optin_bytes)};
}

int largest_tile_within(const SharedBytes& bytes, int mask_width, std::size_t limit, int hi) {
  if (hi < 1 || bytes(1, mask_width) > limit) return 0;
  int lo = 1;  // bytes(lo) <= limit
  while (lo < hi) {
    const int mid = lo + (hi - lo + 1) / 2;
    if (bytes(mid, mask_width) <= limit) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

std::string tile_label(int tile_width) {
  return tile_width == 0 ? "tile 0 (chosen)" : "tile " + std::to_string(tile_width);
}

void require_all_pass_tiled(const std::vector<TiledCase>& cases, const ConvAtTile& variant_at) {
  cudalab::grade::require_cases_pass(cases, [&](const TiledCase& c) {
    conv1d::Conv1dCase named = c.data;
    named.name = tile_label(c.tile_width) + ": " + c.data.name;
    return conv1d::run_case(named, variant_at(c.tile_width));
  });
}

void require_all_pass_at_tiles(const std::vector<conv1d::Conv1dCase>& cases,
                               const std::vector<int>& tiles, const ConvAtTile& variant_at) {
  std::vector<TiledCase> tiled;
  for (const int t : tiles)
    for (const auto& c : cases) tiled.push_back({c, t});
  require_all_pass_tiled(tiled, variant_at);
}

}  // namespace lab06
