// Grading support for part 2 of lab 06: the convolution cases of grader/support/conv1d run at
// several run-time tile widths, and the device's limits of shared memory per block.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "conv1d_check.h"

namespace lab06 {

struct SharedLimits {
  std::size_t default_bytes =
      0;                        // per block without opting in (cudaDevAttrMaxSharedMemoryPerBlock)
  std::size_t optin_bytes = 0;  // with the opt-in (cudaDevAttrMaxSharedMemoryPerBlockOptin)
};
// The current device's.
SharedLimits device_shared_limits();

// An implementation's conv_shared_bytes(tile_width, mask_width).
using SharedBytes = std::function<std::size_t(int tile_width, int mask_width)>;

// The largest tile width in [1, hi] whose bytes(tile, mask_width) are at most `limit`, found by
// bisection (bytes are non-decreasing in the tile width); 0 when even tile 1 needs more.
int largest_tile_within(const SharedBytes& bytes, int mask_width, std::size_t limit, int hi);

// A lab-06 implementation's conv1d_dynamic with a fixed tile width (0: its own choice).
using ConvAtTile = std::function<conv1d::Conv1dVariant(int tile_width)>;

// "tile 257" or "tile 0 (chosen)": how a case names its tile.
std::string tile_label(int tile_width);

// Runs every case at every tile width, each case named "<tile label>: <case name>", and FAILs
// the current check with the first three problems.
void require_all_pass_at_tiles(const std::vector<conv1d::Conv1dCase>& cases,
                               const std::vector<int>& tiles, const ConvAtTile& variant_at);

// Runs (case, tile) pairs; the same reporting.
struct TiledCase {
  conv1d::Conv1dCase data;
  int tile_width;
};
void require_all_pass_tiled(const std::vector<TiledCase>& cases, const ConvAtTile& variant_at);

}  // namespace lab06
