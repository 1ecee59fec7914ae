// Lab 04 - 2D convolution on images, tiled with a halo (the course's output-stationary design).
//
// Each block computes an O_TILE_WIDTH x O_TILE_WIDTH tile of the output. To do so it needs the
// input tile: the same pixels plus a halo of R = mask_width / 2 pixels on every side. The block
// loads that input tile into shared memory once, with zeros where it falls outside the image,
// waits until it is complete, and then every thread reads its mask_width x mask_width window
// from shared memory instead of global memory. The mask is in constant memory (lab 03).
//
// Images may have 3 interleaved channels (R, G, B, R, G, B, ...): filter each channel on its own.
// A simple way to see it: a row is width * channels values, and the neighbour dx of a value is
// dx * channels values away; a value of the halo is then R * channels values left or right.
//
// Read docs/labs/04-conv2d.md, then complete TODO(1) to TODO(6). Grade with:
//     ./cudalab grade --lab 04
// Keep the names and signatures: the grader looks for conv2d_tiled_kernel in the built code
// (it must use shared memory), and calls the three functions at the bottom.
#include <stdexcept>
#include <string>

#include "conv2d.h"
#include "cudalab/check.h"

namespace lab04 {
namespace CUDALAB_IMPL {

constexpr int O_TILE_WIDTH = 16;  // outputs per block along each side; change it if you like

// TODO(1): declare the mask storage in constant memory, room for kMaxMaskWidth x kMaxMaskWidth
//          floats, e.g. __constant__ float c_mask[...];
int g_mask_width = 0;  // of the mask set_mask() stored; 0 before the first call

// The 8-bit rule of conv2d.h: clamp to [0, 255], round half up. Provided.
__device__ __forceinline__ unsigned char to_8bit(float v) {
  return static_cast<unsigned char>(floorf(fminf(fmaxf(v, 0.0f), 255.0f) + 0.5f));
}

// One kernel for both element types: In/Out are float/float or unsigned char/unsigned char.
// row_values = width * channels.
template <typename In, typename Out>
__global__ void conv2d_tiled_kernel(const In* in, Out* out, int width, int height, int channels,
                                    int mask_width) {
  // TODO(2): declare the input tile in shared memory. Its size must be known at compile time:
  //          size it for the largest mask, (O_TILE_WIDTH + kMaxMaskWidth - 1) rows of
  //          (O_TILE_WIDTH + kMaxMaskWidth - 1) * 3 values, as float (convert 8-bit values when
  //          you load them).
  // TODO(3): load the input tile: the block's output tile plus the halo, with 0 for positions
  //          outside the image. It has more values than the block has threads: let each thread
  //          load several (a loop with a stride of the block's size). Then wait for the whole
  //          tile to be in shared memory.
  // TODO(4): each thread that has an output inside the image computes it from the tile with the
  //          mask in constant memory, and stores it: as is for float, with to_8bit() for 8-bit.
  (void)in, (void)out, (void)width, (void)height, (void)channels, (void)mask_width;
}

void set_mask(const float* host_mask, int mask_width) {
  if (mask_width < 1 || mask_width > kMaxMaskWidth || mask_width % 2 == 0)
    throw std::invalid_argument("set_mask: the mask width must be odd and in [1, " +
                                std::to_string(kMaxMaskWidth) + "], got " +
                                std::to_string(mask_width));
  // TODO(5): copy the mask to constant memory (cudaMemcpyToSymbol), wrapped in CUDA_CHECK.
  (void)host_mask;
  g_mask_width = mask_width;
}

template <typename In, typename Out>
void launch(const char* what, const In* in, Out* out, int width, int height, int channels,
            cudaStream_t stream) {
  if (channels != 1 && channels != 3)
    throw std::invalid_argument(std::string(what) + ": channels must be 1 or 3, got " +
                                std::to_string(channels));
  if (width < 1 || height < 1) throw std::invalid_argument(std::string(what) + ": empty image");
  if (g_mask_width == 0) throw std::logic_error(std::string(what) + ": call set_mask() first");
  // TODO(6): the grid. With one thread per output value, a block of O_TILE_WIDTH x O_TILE_WIDTH
  //          threads covers O_TILE_WIDTH values of O_TILE_WIDTH rows (a row has width * channels
  //          values). The blocks must cover every output value, including a partial tile at the
  //          right and bottom edges: the image need not be a multiple of the tile.
  const dim3 block(O_TILE_WIDTH, O_TILE_WIDTH);
  const dim3 grid(1, 1);
  conv2d_tiled_kernel<<<grid, block, 0, stream>>>(in, out, width, height, channels, g_mask_width);
  CUDA_CHECK(cudaGetLastError());
}

void conv2d(const float* in, float* out, int width, int height, int channels, cudaStream_t stream) {
  launch("conv2d", in, out, width, height, channels, stream);
}

void conv2d_8bit(const unsigned char* in, unsigned char* out, int width, int height, int channels,
                 cudaStream_t stream) {
  launch("conv2d_8bit", in, out, width, height, channels, stream);
}

}  // namespace CUDALAB_IMPL
}  // namespace lab04
