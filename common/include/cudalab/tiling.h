// The course's bandwidth reduction of tiling (seed 000): how many times fewer input loads a block
// issues when it stages its input tile in shared memory. Without tiling, each of the block's
// outputs loads mask_width inputs; with it, the block loads its input tile once (the outputs'
// inputs plus the halo).
#pragma once

namespace cudalab {

// 1D: (O_TILE_WIDTH * MASK_WIDTH) / (O_TILE_WIDTH + MASK_WIDTH - 1).
double bandwidth_reduction_1d(int o_tile_width, int mask_width);

// 2D, square tiles and masks: (O * K)^2 / (O + K - 1)^2.
double bandwidth_reduction_2d(int o_tile_width, int mask_width);

}  // namespace cudalab
