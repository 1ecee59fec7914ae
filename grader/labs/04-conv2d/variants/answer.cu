// A plain correct answer, as a student who follows the course would write it: 16 x 16 output
// tiles, one thread per output value, the input tile with its halo loaded by a strided loop,
// the mask in constant memory and its width known only at run time. The grader must give it
// full marks: it keeps the performance thresholds in policy.h honest.
#include <stdexcept>
#include <string>

#include "conv2d.h"
#include "cudalab/check.h"

namespace lab04 {
namespace CUDALAB_IMPL {

constexpr int O_TILE_WIDTH = 16;  // outputs per block along each side; change it if you like

__constant__ float c_mask[kMaxMaskWidth * kMaxMaskWidth];
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
  constexpr int kIn = O_TILE_WIDTH + kMaxMaskWidth - 1;
  __shared__ float tile[kIn][kIn * 3];
  const int r = mask_width / 2;
  const int row_values = width * channels;
  const int in_x = O_TILE_WIDTH + 2 * r * channels;  // values of a tile row
  const int in_y = O_TILE_WIDTH + 2 * r;
  const int x0 = blockIdx.x * O_TILE_WIDTH - r * channels;
  const int y0 = blockIdx.y * O_TILE_WIDTH - r;
  const int t = threadIdx.y * blockDim.x + threadIdx.x;
  for (int i = t; i < in_x * in_y; i += blockDim.x * blockDim.y) {
    const int ty = i / in_x, tx = i % in_x;
    const int gx = x0 + tx, gy = y0 + ty;
    float v = 0.0f;
    if (gx >= 0 && gx < row_values && gy >= 0 && gy < height)
      v = static_cast<float>(in[static_cast<size_t>(gy) * row_values + gx]);
    tile[ty][tx] = v;
  }
  __syncthreads();
  const int ox = blockIdx.x * O_TILE_WIDTH + threadIdx.x;
  const int oy = blockIdx.y * O_TILE_WIDTH + threadIdx.y;
  if (ox >= row_values || oy >= height) return;
  float sum = 0.0f;
  for (int dy = 0; dy < mask_width; ++dy)
    for (int dx = 0; dx < mask_width; ++dx)
      sum += c_mask[dy * mask_width + dx] * tile[threadIdx.y + dy][threadIdx.x + dx * channels];
  Out* dst = out + static_cast<size_t>(oy) * row_values + ox;
  if constexpr (sizeof(Out) == 1)
    *dst = to_8bit(sum);
  else
    *dst = sum;
}

void set_mask(const float* host_mask, int mask_width) {
  if (mask_width < 1 || mask_width > kMaxMaskWidth || mask_width % 2 == 0)
    throw std::invalid_argument("set_mask: the mask width must be odd and in [1, " +
                                std::to_string(kMaxMaskWidth) + "], got " +
                                std::to_string(mask_width));
  CUDA_CHECK(cudaMemcpyToSymbol(c_mask, host_mask, sizeof(float) * mask_width * mask_width));
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
  const dim3 block(O_TILE_WIDTH, O_TILE_WIDTH);
  const dim3 grid((width * channels + O_TILE_WIDTH - 1) / O_TILE_WIDTH,
                  (height + O_TILE_WIDTH - 1) / O_TILE_WIDTH);
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
