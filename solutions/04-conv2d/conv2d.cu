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
#include <cstdint>
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
__device__ __forceinline__ unsigned char to_8bit(float v) {
  return static_cast<unsigned char>(floorf(fminf(fmaxf(v, 0.0f), 255.0f) + 0.5f));
}
__device__ __forceinline__ void store_value(unsigned char* p, float v) {
  *p = to_8bit(v);
}

// Two neighbouring values in one store (p aligned to two elements).
__device__ __forceinline__ void store_pair(float* p, float a, float b) {
  *reinterpret_cast<float2*>(p) = make_float2(a, b);
}
__device__ __forceinline__ void store_pair(unsigned char* p, float a, float b) {
  *reinterpret_cast<uchar2*>(p) = make_uchar2(to_8bit(a), to_8bit(b));
}

// Four values of In: float4 (16 bytes) or uchar4 (4 bytes), for the vector loads of the tile.
template <typename In>
struct Vec4;
template <>
struct Vec4<float> {
  using type = float4;
};
template <>
struct Vec4<unsigned char> {
  using type = uchar4;
};

// Blocks per SM the compiler must leave room for (registers): a wide mask keeps more values live.
constexpr int min_blocks(int r) {
  return r <= 2 ? 4 : 2;
}

template <int R, int C, typename In, typename Out>
__global__ void __launch_bounds__(kBlockX* kBlockY, min_blocks(R))
    conv2d_tiled_kernel(const In* __restrict__ in, Out* __restrict__ out, int row_values,
                        int height, bool vector_loads, bool vector_stores) {
  constexpr int K = 2 * R + 1;
  constexpr int kHalo = R * C;                 // values needed left (and right) of the tile
  constexpr int kHaloA = (kHalo + 3) / 4 * 4;  // rounded up to whole groups of 4 values
  constexpr int kInX = kTileX + 2 * kHaloA;    // input tile width in values, a multiple of 4
  constexpr int kInY = kTileY + 2 * R;         // input tile height in rows
  constexpr int kWindow = kPerX + 2 * kHalo;   // values of a row one thread reads
  constexpr int kSkew = (kHaloA - kHalo) % 2;  // odd start: read from one value earlier
  constexpr int kRead = (kWindow + kSkew + 1) / 2 * 2;  // values read, a whole number of float2
  constexpr int kThreads = kBlockX * kBlockY;
  __shared__ __align__(16) float tile[kInY][kInX];

  const int tid = threadIdx.y * kBlockX + threadIdx.x;
  const int x0 = blockIdx.x * kTileX;  // first output value of the tile in its row
  const int y0 = blockIdx.y * kTileY;
  const int gx0 = x0 - kHaloA;  // global value of tile column 0

  // 1. Stage the input tile, zeros outside the image (the ghost cells). Consecutive threads read
  //    consecutive groups of 4 values of a row: coalesced. All of a thread's loads are issued
  //    into registers first and only then stored to shared memory, so they are all in flight at
  //    once: a load followed by its store in one loop iteration would leave one or two in flight.
  if (vector_loads) {  // rows are a multiple of 4 values and `in` is aligned: a group of 4 is
                       // entirely inside the image or entirely outside
    using V = typename Vec4<In>::type;
    constexpr int kGroups = kInX / 4, kTotal = kInY * kGroups;
    constexpr int kPerThread = (kTotal + kThreads - 1) / kThreads;
    float4 staged[kPerThread];
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int i = tid + k * kThreads;
      const int r = i / kGroups, q = i % kGroups;
      const int gy = y0 - R + r, gx = gx0 + 4 * q;
      staged[k] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
      if (i < kTotal && gy >= 0 && gy < height && gx >= 0 && gx < row_values) {
        const V v =
            __ldg(reinterpret_cast<const V*>(in + static_cast<std::size_t>(gy) * row_values + gx));
        staged[k] = make_float4(v.x, v.y, v.z, v.w);
      }
    }
#pragma unroll
    for (int k = 0; k < kPerThread; ++k) {
      const int i = tid + k * kThreads;
      if (i < kTotal) *reinterpret_cast<float4*>(&tile[i / kGroups][4 * (i % kGroups)]) = staged[k];
    }
  } else {
    constexpr int kTotal = kInY * kInX;
#pragma unroll 4
    for (int i = tid; i < kTotal; i += kThreads) {
      const int r = i / kInX, c = i % kInX;
      const int gy = y0 - R + r, gx = gx0 + c;
      tile[r][c] = (gy >= 0 && gy < height && gx >= 0 && gx < row_values)
                       ? load_value(in[static_cast<std::size_t>(gy) * row_values + gx])
                       : 0.0f;
    }
  }
  __syncthreads();

  // 2. Each thread: kPerY rows starting at oy, kPerX values starting at ox (tile coordinates).
  const int ox = threadIdx.x * kPerX;
  const int oy = threadIdx.y * kPerY;
  float acc[kPerY][kPerX];
#pragma unroll
  for (int i = 0; i < kPerY; ++i)
#pragma unroll
    for (int j = 0; j < kPerX; ++j) acc[i][j] = 0.0f;

#pragma unroll
  for (int ir = 0; ir < kPerY + 2 * R; ++ir) {  // input rows oy .. oy + kPerY + 2R - 1
    // The thread's window of this row: values ox - kHalo .. ox + kPerX - 1 + kHalo of the output
    // tile, which start kHaloA - kHalo into the tile row (minus kSkew to keep float2 alignment).
    const float* row = &tile[oy + ir][ox + kHaloA - kHalo - kSkew];
    float v[kRead];
#pragma unroll
    for (int k = 0; k < kRead; k += 2) {
      const float2 pair = *reinterpret_cast<const float2*>(row + k);
      v[k] = pair.x;
      v[k + 1] = pair.y;
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
        for (int j = 0; j < kPerX; ++j) acc[i][j] = fmaf(m, v[kSkew + j + dx * C], acc[i][j]);
      }
    }
  }

  // 3. Write the outputs that lie inside the image, two at a time where rows allow it.
  const int gx = x0 + ox;
  if (gx >= row_values) return;
#pragma unroll
  for (int i = 0; i < kPerY; ++i) {
    const int gy = y0 + oy + i;
    if (gy >= height) break;
    Out* dst = out + static_cast<std::size_t>(gy) * row_values + gx;
    if (vector_stores && gx + 1 < row_values) {
      store_pair(dst, acc[i][0], acc[i][1]);
    } else {
      store_value(dst, acc[i][0]);
      if (gx + 1 < row_values) store_value(dst + 1, acc[i][1]);
    }
  }
}
static_assert(kPerX == 2, "the stores write pairs");

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
  // Groups of 4 values never straddle the image's edge when rows are a multiple of 4 values.
  const bool vector_loads =
      row_values % 4 == 0 && reinterpret_cast<std::uintptr_t>(in) % (4 * sizeof(In)) == 0;
  const bool vector_stores =
      row_values % 2 == 0 && reinterpret_cast<std::uintptr_t>(out) % (2 * sizeof(Out)) == 0;
  conv2d_tiled_kernel<R, C>
      <<<grid, block, 0, stream>>>(in, out, row_values, height, vector_loads, vector_stores);
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
