// A plain, correct answer to lab 06 as a student would write it from the skeleton and the docs:
// reverse with one element per thread (the course's dynamicReverse for many blocks), and lab 02's
// first block design with the tile in dynamic shared memory, 256 threads striding over a tile of
// any width, the tile chosen by the docs' rule. The grader must give it full marks: this is what
// keeps r_full honest.
#include <stdexcept>
#include <string>

#include "cudalab/check.h"
#include "dynamic_shared.h"

namespace lab06 {
namespace CUDALAB_IMPL {

constexpr int kReverseBlock = 256;

__global__ void reverse_kernel(const int* in, int* out, int n) {
  extern __shared__ int chunk[];
  const int t = threadIdx.x;
  const int start = blockIdx.x * blockDim.x;
  const int len = min(static_cast<int>(blockDim.x), n - start);
  if (t < len) chunk[t] = in[start + t];
  __syncthreads();
  if (t < len) out[n - start - len + t] = chunk[len - 1 - t];
}

void reverse(const int* in, int* out, int n, int block_size, cudaStream_t stream) {
  if (block_size < 0 || block_size > 1024)
    throw std::invalid_argument("reverse: block_size must be in [0, 1024], got " +
                                std::to_string(block_size));
  const int threads = block_size == 0 ? kReverseBlock : block_size;
  const dim3 grid((n + threads - 1) / threads);
  reverse_kernel<<<grid, threads, threads * sizeof(int), stream>>>(in, out, n);
  CUDA_CHECK(cudaGetLastError());
}

cudaFuncAttributes reverse_kernel_attributes() {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, reverse_kernel));
  return attributes;
}

constexpr int kConvBlock = 256;

__global__ void conv1d_dynamic_kernel(const float* x, const float* mask, float* y, int width,
                                      int mask_width, int tile_width) {
  extern __shared__ float tile[];
  const int tile_start = blockIdx.x * tile_width;
  const int radius = mask_width / 2;
  for (int k = threadIdx.x; k < tile_width + mask_width - 1; k += blockDim.x) {
    const int g = tile_start - radius + k;
    tile[k] = (g >= 0 && g < width) ? x[g] : 0.0f;
  }
  __syncthreads();
  for (int o = threadIdx.x; o < tile_width && tile_start + o < width; o += blockDim.x) {
    float sum = 0.0f;
    for (int j = 0; j < mask_width; ++j) sum += mask[j] * tile[o + j];
    y[tile_start + o] = sum;
  }
}

std::size_t conv_shared_bytes(int tile_width, int mask_width) {
  return (static_cast<std::size_t>(tile_width) + mask_width - 1) * sizeof(float);
}

int choose_tile_width(int mask_width) {
  int device = 0, default_bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&default_bytes, cudaDevAttrMaxSharedMemoryPerBlock, device));
  const auto blocks_per_sm = [&](int tile) {
    int blocks = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks, conv1d_dynamic_kernel, kConvBlock, conv_shared_bytes(tile, mask_width)));
    return blocks;
  };
  int tile = kConvBlock;
  if (conv_shared_bytes(tile, mask_width) > static_cast<std::size_t>(default_bytes)) return tile;
  const int most = blocks_per_sm(tile);
  while (conv_shared_bytes(2 * tile, mask_width) <= static_cast<std::size_t>(default_bytes) &&
         blocks_per_sm(2 * tile) >= most)
    tile *= 2;
  return tile;
}

void conv1d_dynamic(const float* x, const float* mask, float* y, int width, int mask_width,
                    int tile_width, cudaStream_t stream) {
  if (mask_width < 1 || mask_width % 2 == 0)
    throw std::invalid_argument("mask_width must be odd and positive, got " +
                                std::to_string(mask_width));
  if (tile_width < 0)
    throw std::invalid_argument("tile_width must be >= 0, got " + std::to_string(tile_width));
  if (tile_width == 0) tile_width = choose_tile_width(mask_width);
  int device = 0, default_bytes = 0, optin_bytes = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&default_bytes, cudaDevAttrMaxSharedMemoryPerBlock, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&optin_bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  const std::size_t bytes = conv_shared_bytes(tile_width, mask_width);
  if (bytes > static_cast<std::size_t>(optin_bytes))
    throw std::invalid_argument("a tile of " + std::to_string(tile_width) + " needs " +
                                std::to_string(bytes) + " bytes of shared memory, more than the " +
                                std::to_string(optin_bytes) + " this device allows per block");
  if (bytes > static_cast<std::size_t>(default_bytes))
    CUDA_CHECK(cudaFuncSetAttribute(conv1d_dynamic_kernel,
                                    cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(bytes)));
  const dim3 grid((width + tile_width - 1) / tile_width);
  conv1d_dynamic_kernel<<<grid, kConvBlock, bytes, stream>>>(x, mask, y, width, mask_width,
                                                             tile_width);
  CUDA_CHECK(cudaGetLastError());
}

cudaFuncAttributes conv_kernel_attributes() {
  cudaFuncAttributes attributes{};
  CUDA_CHECK(cudaFuncGetAttributes(&attributes, conv1d_dynamic_kernel));
  return attributes;
}

}  // namespace CUDALAB_IMPL
}  // namespace lab06
