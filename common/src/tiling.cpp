#include "cudalab/tiling.h"

#include <stdexcept>

namespace cudalab {

double bandwidth_reduction_1d(int o_tile_width, int mask_width) {
  if (o_tile_width < 1 || mask_width < 1)
    throw std::invalid_argument("bandwidth_reduction: tile and mask widths must be positive");
  const double loads_without_tiling = static_cast<double>(o_tile_width) * mask_width;
  const double loads_with_tiling = o_tile_width + mask_width - 1.0;
  return loads_without_tiling / loads_with_tiling;
}

double bandwidth_reduction_2d(int o_tile_width, int mask_width) {
  const double r = bandwidth_reduction_1d(o_tile_width, mask_width);
  return r * r;
}

}  // namespace cudalab
