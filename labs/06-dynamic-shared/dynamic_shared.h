// Lab 06 - dynamic shared memory: the interface the grader calls.
//
// Part 1, reverse:
//   out[n - 1 - i] = in[i],   0 <= i < n
// Each block copies its chunk of `in` into shared memory sized at launch (extern __shared__ and
// the third launch parameter) and writes it, reversed, to the mirrored place in `out`.
//
// Part 2, tiled 1D convolution with the tile chosen at run time:
//   y[i] = sum_{j=0}^{mask_width-1} mask[j] * x[i - mask_width/2 + j],   0 <= i < width
// with x[k] = 0 outside [0, width) (ghost elements), as in labs 01 to 03. Each block computes
// `tile_width` consecutive outputs from an input tile (its outputs' inputs plus the halo) staged
// in dynamic shared memory, so the tile can be as wide as the device allows: above the default
// 48 KB per block with the opt-in (cudaFuncAttributeMaxDynamicSharedMemorySize).
//
// All array pointers are DEVICE pointers; `in`/`out` and `x`/`y` do not overlap. The launch
// functions only launch work on `stream` (no allocation, copy or synchronization).
//
// No include guard on purpose (see common/include/cudalab/impl.h).
#include <cuda_runtime.h>

#include <cstddef>

#include "cudalab/impl.h"

namespace lab06 {
namespace CUDALAB_IMPL {

// Part 1. `block_size` is the number of threads per block, 1 to 1024, or 0 for the
// implementation's choice. n >= 1. Throws std::invalid_argument for a block_size outside [0, 1024].
void reverse(const int* in, int* out, int n, int block_size, cudaStream_t stream);

// Part 2.
// The dynamic shared memory, in bytes, that a block of the convolution kernel needs for an
// output tile of `tile_width` outputs and a mask of `mask_width` (tile_width, mask_width >= 1).
std::size_t conv_shared_bytes(int tile_width, int mask_width);

// The output tile width conv1d_dynamic() uses when called with tile_width = 0, chosen from the
// limits of the current device. Always >= 1.
int choose_tile_width(int mask_width);

// The convolution with output tiles of `tile_width` outputs (0: choose_tile_width(mask_width)).
// Throws std::invalid_argument, with a message that names the problem, when mask_width is not
// odd and positive, when tile_width < 0, or when conv_shared_bytes(tile, mask_width) exceeds the
// device's opt-in limit of shared memory per block (cudaDevAttrMaxSharedMemoryPerBlockOptin).
void conv1d_dynamic(const float* x, const float* mask, float* y, int width, int mask_width,
                    int tile_width, cudaStream_t stream);

// The attributes (cudaFuncGetAttributes) of the kernel reverse() launches and of the kernel
// conv1d_dynamic() launches. The grader reads sharedSizeBytes, their STATIC shared memory, which
// is 0 when all of it is dynamic.
cudaFuncAttributes reverse_kernel_attributes();
cudaFuncAttributes conv_kernel_attributes();

}  // namespace CUDALAB_IMPL
}  // namespace lab06
