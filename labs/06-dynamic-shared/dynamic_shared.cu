// Lab 06 - dynamic shared memory.
//
// A __shared__ array declared with a size is STATIC: its size is fixed when the kernel is
// compiled. An unsized `extern __shared__` array is DYNAMIC: the launch gives its size in bytes,
// as the third launch parameter, kernel<<<grid, block, bytes, stream>>>(...). So the size can
// depend on the block size, the mask width or the device's limits, known only at run time.
//   Part 1 - reverse: each block reverses its chunk of the array in dynamic shared memory and
//            writes it to the mirrored place (the course's dynamicReverse, for any n).
//   Part 2 - lab 02's tiled convolution with an output tile chosen at run time: as wide as the
//            device allows, above 48 KB per block with the opt-in.
// Read docs/labs/06-dynamic-shared.md, then complete TODO(1) to TODO(11). Grade with:
//     ./cudalab grade --lab 06
// Keep the names and signatures: the grader looks for reverse_kernel and conv1d_dynamic_kernel
// in the built code, and reads their attributes through the two *_attributes() functions.
#include <stdexcept>
#include <string>

#include "cudalab/check.h"
#include "dynamic_shared.h"

namespace lab06 {
namespace CUDALAB_IMPL {

// ---------------------------------------------------------------------------------------------
// Part 1: reverse

constexpr int kReverseBlock = 256;  // threads per block when the caller passes block_size = 0

__global__ void reverse_kernel(const int* in, int* out, int n) {
  // TODO(1): declare the block's chunk: an unsized extern __shared__ array of int, whose size
  //          the launch gives (TODO(4)).
  // TODO(2): copy the block's chunk of `in`, one element per thread (the last chunk may be
  //          shorter than the block), into shared memory; then wait until it is all there.
  // TODO(3): write the chunk, reversed, to its mirrored place in out, so that out is the whole
  //          of in reversed (for any n, a short last chunk included). The reversal happens in
  //          shared memory: a warp's stores to out go to consecutive addresses.
}

void reverse(const int* in, int* out, int n, int block_size, cudaStream_t stream) {
  if (block_size < 0 || block_size > 1024)
    throw std::invalid_argument("reverse: block_size must be in [0, 1024], got " +
                                std::to_string(block_size));
  const int threads = block_size == 0 ? kReverseBlock : block_size;
  // TODO(4): one block of `threads` threads per chunk of `threads` elements, enough blocks to
  //          cover n, and the chunk's size in bytes as the third launch parameter.
  const dim3 grid(1);
  const std::size_t chunk_bytes = 0;
  reverse_kernel<<<grid, threads, chunk_bytes, stream>>>(in, out, n);
  CUDA_CHECK(cudaGetLastError());
}

// Provided: the grader checks that reverse_kernel has no static shared memory.
cudaFuncAttributes reverse_kernel_attributes() {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, reverse_kernel));
  return attributes;
}

// ---------------------------------------------------------------------------------------------
// Part 2: tiled convolution with a run-time tile

constexpr int kConvBlock = 256;  // threads per block, whatever the tile width

__global__ void conv1d_dynamic_kernel(const float* x, const float* mask, float* y, int width,
                                      int mask_width, int tile_width) {
  // TODO(5): declare the input tile: an unsized extern __shared__ array of float.
  // TODO(6): load the input tile, all threads together: the inputs under the block's output
  //          tile plus the halo on each side, with 0 for ghost inputs (outside [0, width)). The
  //          tile may be much wider than the block. Then wait until the whole tile is loaded.
  // TODO(7): compute every output of the block's tile that lies below width from the shared
  //          tile and store it in y. A tile may be much wider than the block, so a thread
  //          computes several outputs.
}

std::size_t conv_shared_bytes(int tile_width, int mask_width) {
  // TODO(8): the bytes of dynamic shared memory a block needs: its input tile.
  (void)tile_width;  // remove these two lines once you use the parameters
  (void)mask_width;
  return 0;
}

int choose_tile_width(int mask_width) {
  // TODO(9): choose the output tile from the current device's limits, as the docs page
  //          describes ("Shared memory and occupancy: choosing the tile"): the widest tile,
  //          kConvBlock times a power of two, whose shared memory stays within the default limit
  //          per block and does not lower the number of blocks an SM can hold.
  (void)mask_width;  // remove this line once you use the parameter
  return kConvBlock;
}

void conv1d_dynamic(const float* x, const float* mask, float* y, int width, int mask_width,
                    int tile_width, cudaStream_t stream) {
  // TODO(10): refuse bad requests with std::invalid_argument: a mask_width that is not odd and
  //           positive, a negative tile_width, and a tile whose conv_shared_bytes() exceed the
  //           device's opt-in limit per block; the message names the bytes and the limit.
  //           tile_width 0 means choose_tile_width(mask_width). Above the default limit per
  //           block, opt the kernel in to the larger size before the launch.
  // TODO(11): one block of kConvBlock threads per output tile, the tile's bytes as the third
  //           launch parameter.
  const dim3 grid(1);
  const std::size_t tile_bytes = 0;
  conv1d_dynamic_kernel<<<grid, kConvBlock, tile_bytes, stream>>>(x, mask, y, width, mask_width,
                                                                  tile_width);
  CUDA_CHECK(cudaGetLastError());
}

// Provided: the grader checks that conv1d_dynamic_kernel has no static shared memory.
cudaFuncAttributes conv_kernel_attributes() {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, conv1d_dynamic_kernel));
  return attributes;
}

}  // namespace CUDALAB_IMPL
}  // namespace lab06
