// Lab 04 reference solution: output-stationary tiled 2D convolution with halo.
//
// Each block owns an output tile of kTileX values of a row (values, not pixels: with interleaved
// channels a row is width * channels values, and a pixel's neighbour dx is dx * channels values
// away) by kTileY rows. It stages the input tile, the output tile plus R rows above and below and
// R * channels values left and right, in shared memory once (zeros outside the image), then each
// thread computes kPerX x kPerY outputs from there:
//   - kPerX = 2 neighbouring values of a row: their windows overlap, so a row of the window is
//     read once for both (two float2 loads instead of ten scalar ones for a 5-wide grayscale
//     mask);
//   - kPerY = 8 rows of a column: each input row read from shared memory feeds every output row
//     whose window covers it (up to K of them), so each row is read once, not K times.
// With K = 5 (R = 2) and one channel that is 12 rows x 3 float2 loads for 16 outputs, against
// 25 loads each for a one-output-per-thread kernel: shared memory bandwidth is then no limit and
// the kernel runs at the speed of DRAM. The mask lives in constant memory; the mask width and
// the channel count are template parameters, so the loops unroll completely and every mask value
// is an immediate operand of its FFMA.
#include <stdexcept>
#include <string>

#include "conv2d.h"
#include "cudalab/check.h"

namespace lab04 {
namespace CUDALAB_IMPL {

namespace {

constexpr int kBlockX = 32;  // threads per block along a row
constexpr int kBlockY = 8;
constexpr int kPerX = 2;                 // outputs per thread along a row (neighbouring values)
constexpr int kPerY = 8;                 // outputs per thread down a column
constexpr int kTileX = kBlockX * kPerX;  // 64 values of a row per block
constexpr int kTileY = kBlockY * kPerY;  // 64 rows per block

__constant__ float c_mask[kMaxMaskWidth * kMaxMaskWidth];
int g_mask_width = 0;  // of the mask in c_mask; 0 before set_mask()

__device__ __forceinline__ float load_value(float v) {
  return v;
}
__device__ __forceinline__ float load_value(unsigned char v) {
  return static_cast<float>(v);
}

__device__ __forceinline__ void store_value(float* p, float v) {
  *p = v;
}
// The 8-bit rule of conv2d.h: clamp to [0, 255], round half up.
__device__ __forceinline__ void store_value(unsigned char* p, float v) {
  *p = static_cast<unsigned char>(floorf(fminf(fmaxf(v, 0.0f), 255.0f) + 0.5f));
}

template <int R, int C, typename In, typename Out>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    conv2d_tiled_kernel(const In* __restrict__ in, Out* __restrict__ out, int row_values,
                        int height) {
  constexpr int K = 2 * R + 1;
  constexpr int kHaloX = R * C;                // values left (and right) of the tile
  constexpr int kInX = kTileX + 2 * kHaloX;    // input tile width, in values
  constexpr int kInY = kTileY + 2 * R;         // input tile height, in rows
  constexpr int kPitch = kInX + (kInX % 2);    // even, so float2 reads stay aligned
  constexpr int kWindow = kPerX + 2 * kHaloX;  // values of a row one thread reads
  __shared__ __align__(16) float tile[kInY][kPitch];

  const int tx = threadIdx.x, ty = threadIdx.y;
  const int x0 = blockIdx.x * kTileX;  // first output value of the tile in its row
  const int y0 = blockIdx.y * kTileY;

  // 1. Stage the input tile, zeros outside the image (the ghost cells). Consecutive threads
  //    read consecutive values of a row: coalesced.
  for (int r = ty; r < kInY; r += kBlockY) {
    const int gy = y0 - R + r;
    const bool row_inside = gy >= 0 && gy < height;
    const In* src = in + static_cast<std::size_t>(row_inside ? gy : 0) * row_values;
    for (int c = tx; c < kInX; c += kBlockX) {
      const int gx = x0 - kHaloX + c;
      tile[r][c] = (row_inside && gx >= 0 && gx < row_values) ? load_value(src[gx]) : 0.0f;
    }
  }
  __syncthreads();

  // 2. Each thread: kPerY rows starting at oy, kPerX values starting at ox (tile coordinates).
  const int ox = tx * kPerX;
  const int oy = ty * kPerY;
  float acc[kPerY][kPerX];
#pragma unroll
  for (int i = 0; i < kPerY; ++i)
#pragma unroll
    for (int j = 0; j < kPerX; ++j) acc[i][j] = 0.0f;

#pragma unroll
  for (int ir = 0; ir < kPerY + 2 * R; ++ir) {  // input rows oy .. oy + kPerY + 2R - 1
    float v[kWindow];
    const float* row = &tile[oy + ir][ox];
#pragma unroll
    for (int k = 0; k < kWindow; k += 2) {  // ox is even and kPitch is even: aligned float2
      const float2 pair = *reinterpret_cast<const float2*>(row + k);
      v[k] = pair.x;
      if (k + 1 < kWindow) v[k + 1] = pair.y;
    }
    // Output row i uses this input row with mask row dy = ir - i, for 0 <= dy < K.
#pragma unroll
    for (int i = 0; i < kPerY; ++i) {
      const int dy = ir - i;
      if (dy < 0 || dy >= K) continue;  // resolved at compile time
#pragma unroll
      for (int dx = 0; dx < K; ++dx) {
        const float m = c_mask[dy * K + dx];
#pragma unroll
        for (int j = 0; j < kPerX; ++j) acc[i][j] = fmaf(m, v[j + dx * C], acc[i][j]);
      }
    }
  }

  // 3. Write the outputs that lie inside the image.
  const int gx = x0 + ox;
#pragma unroll
  for (int i = 0; i < kPerY; ++i) {
    const int gy = y0 + oy + i;
    if (gy >= height) break;
    Out* dst = out + static_cast<std::size_t>(gy) * row_values + gx;
#pragma unroll
    for (int j = 0; j < kPerX; ++j)
      if (gx + j < row_values) store_value(dst + j, acc[i][j]);
  }
}

void check_image(const char* what, int width, int height, int channels) {
  if (channels != 1 && channels != 3)
    throw std::invalid_argument(std::string(what) + ": channels must be 1 or 3, got " +
                                std::to_string(channels));
  if (width < 1 || height < 1)
    throw std::invalid_argument(std::string(what) + ": the image is empty (" +
                                std::to_string(width) + " x " + std::to_string(height) + ")");
  if (static_cast<long long>(width) * channels > (1LL << 30))
    throw std::invalid_argument(std::string(what) + ": a row of " + std::to_string(width) +
                                " pixels is too long");
  if (g_mask_width == 0)
    throw std::logic_error(std::string(what) + ": no mask: call set_mask() first");
}

template <int R, int C, typename In, typename Out>
void launch(const In* in, Out* out, int width, int height, cudaStream_t stream) {
  const int row_values = width * C;
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid((row_values + kTileX - 1) / kTileX, (height + kTileY - 1) / kTileY);
  conv2d_tiled_kernel<R, C><<<grid, block, 0, stream>>>(in, out, row_values, height);
  CUDA_CHECK(cudaGetLastError());
}

// The mask radius and channel count as template arguments.
template <int C, typename In, typename Out>
void dispatch_radius(const In* in, Out* out, int width, int height, cudaStream_t stream) {
  switch (g_mask_width / 2) {
    case 0: return launch<0, C>(in, out, width, height, stream);
    case 1: return launch<1, C>(in, out, width, height, stream);
    case 2: return launch<2, C>(in, out, width, height, stream);
    case 3: return launch<3, C>(in, out, width, height, stream);
    case 4: return launch<4, C>(in, out, width, height, stream);
    default: throw std::logic_error("conv2d: mask width out of range");
  }
}
static_assert(kMaxMaskWidth == 9, "dispatch_radius covers radii 0 to 4");

template <typename In, typename Out>
void dispatch(const char* what, const In* in, Out* out, int width, int height, int channels,
              cudaStream_t stream) {
  check_image(what, width, height, channels);
  if (channels == 1)
    dispatch_radius<1>(in, out, width, height, stream);
  else
    dispatch_radius<3>(in, out, width, height, stream);
}

}  // namespace

void set_mask(const float* host_mask, int mask_width) {
  if (mask_width < 1 || mask_width > kMaxMaskWidth || mask_width % 2 == 0)
    throw std::invalid_argument("set_mask: the mask width must be odd and in [1, " +
                                std::to_string(kMaxMaskWidth) + "], got " +
                                std::to_string(mask_width));
  CUDA_CHECK(cudaMemcpyToSymbol(c_mask, host_mask, sizeof(float) * mask_width * mask_width));
  g_mask_width = mask_width;
}

void conv2d(const float* in, float* out, int width, int height, int channels, cudaStream_t stream) {
  dispatch("conv2d", in, out, width, height, channels, stream);
}

void conv2d_8bit(const unsigned char* in, unsigned char* out, int width, int height, int channels,
                 cudaStream_t stream) {
  dispatch("conv2d_8bit", in, out, width, height, channels, stream);
}

}  // namespace CUDALAB_IMPL
}  // namespace lab04
