// Broken variant of lab 10 for the grader's own tests: the fast kernel computes 4 maps per block
// and stores all 4 without checking m < M. When M is not a multiple of 4, the last map group of
// image b writes into image b + 1's first maps (which may or may not be rewritten later) and,
// for the last image, past the end of y: the guard zones catch it, and memcheck without them.
// EXPECT-REJECT: past the end of y
// CHECKS: fast kernel: shapes*
// SANITIZER-REJECT: memcheck Invalid __global__ write
#include <stdexcept>
#include <string>

#include "cnn_layer.h"
#include "cudalab/check.h"

namespace lab10 {
namespace CUDALAB_IMPL {

constexpr int TILE = 16;

void check_sizes(int B, int C, int M, int H, int W, int K) {
  if (B < 1 || C < 1 || M < 1 || H < 1 || W < 1 || K < 1 || K > kMaxKernelWidth || K > H || K > W ||
      static_cast<long long>(M) * C * K * K > kMaxWeights)
    throw std::invalid_argument("cnn layer: sizes out of range");
}

__global__ void conv_forward_direct_kernel(const float* x, const float* k, float* y, int B, int C,
                                           int M, int H, int W, int K) {
  const int ho = H - K + 1, wo = W - K + 1;
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<long long>(B) * M * ho * wo) return;
  const int w = static_cast<int>(i % wo), h = static_cast<int>((i / wo) % ho);
  const int m = static_cast<int>((i / (static_cast<long long>(wo) * ho)) % M);
  const long long b = i / (static_cast<long long>(wo) * ho * M);
  float sum = 0.0f;
  for (int c = 0; c < C; ++c)
    for (int p = 0; p < K; ++p)
      for (int q = 0; q < K; ++q)
        sum += x[((b * C + c) * H + h + p) * W + w + q] * k[((m * C + c) * K + p) * K + q];
  y[i] = sum;
}

constexpr int MAPS = 4;  // output maps per block

// One block per output tile of MAPS maps: blockIdx.x = ((b * map groups + g) * tiles down + ty) *
// tiles across + tx. TILE x TILE threads, each computing MAPS outputs from one shared input tile.
__global__ void conv_forward_fast_kernel(const float* x, const float* k, float* y, int C, int M,
                                         int H, int W, int K) {
  __shared__ float tile[TILE + kMaxKernelWidth - 1][TILE + kMaxKernelWidth - 1];
  const int ho = H - K + 1, wo = W - K + 1;
  const int groups = (M + MAPS - 1) / MAPS;
  const int tiles_x = (wo + TILE - 1) / TILE, tiles_y = (ho + TILE - 1) / TILE;
  const int bg = blockIdx.x / (tiles_x * tiles_y), t = blockIdx.x % (tiles_x * tiles_y);
  const int b = bg / groups, m0 = (bg % groups) * MAPS;
  const int h0 = (t / tiles_x) * TILE, w0 = (t % tiles_x) * TILE;
  const int h = h0 + threadIdx.y, w = w0 + threadIdx.x;
  const int in_side = TILE + K - 1;
  float sum[MAPS] = {};
  for (int c = 0; c < C; ++c) {
    const float* xc = x + (static_cast<long long>(b) * C + c) * H * W;
    for (int r = threadIdx.y; r < in_side; r += TILE)
      for (int s = threadIdx.x; s < in_side; s += TILE)
        tile[r][s] = (h0 + r < H && w0 + s < W) ? xc[(h0 + r) * W + w0 + s] : 0.0f;
    __syncthreads();
    for (int j = 0; j < MAPS; ++j) {
      if (m0 + j >= M) break;  // reads stay inside k
      const float* kc = k + (static_cast<long long>(m0 + j) * C + c) * K * K;
      for (int p = 0; p < K; ++p)
        for (int q = 0; q < K; ++q)
          sum[j] += tile[threadIdx.y + p][threadIdx.x + q] * kc[p * K + q];
    }
    __syncthreads();
  }
  if (h < ho && w < wo)
    for (int j = 0; j < MAPS; ++j)  // BUG: no m0 + j < M guard: the last group writes past map M-1
      y[((static_cast<long long>(b) * M + m0 + j) * ho + h) * wo + w] = sum[j];
}

void prepare_weights(const float*, int M, int C, int K) {
  check_sizes(1, C, M, K, K, K);
}

void conv_forward_direct(const float* x, const float* k, float* y, int B, int C, int M, int H,
                         int W, int K, cudaStream_t stream) {
  check_sizes(B, C, M, H, W, K);
  const long long total = static_cast<long long>(B) * M * (H - K + 1) * (W - K + 1);
  conv_forward_direct_kernel<<<static_cast<unsigned>((total + 255) / 256), 256, 0, stream>>>(
      x, k, y, B, C, M, H, W, K);
  CUDA_CHECK(cudaGetLastError());
}

void conv_forward_fast(const float* x, const float* k, float* y, int B, int C, int M, int H, int W,
                       int K, cudaStream_t stream) {
  check_sizes(B, C, M, H, W, K);
  const int ho = H - K + 1, wo = W - K + 1;
  const dim3 block(TILE, TILE);
  const long long tiles = static_cast<long long>((wo + TILE - 1) / TILE) * ((ho + TILE - 1) / TILE);
  const long long groups = (M + MAPS - 1) / MAPS;
  conv_forward_fast_kernel<<<static_cast<unsigned>(tiles * B * groups), block, 0, stream>>>(
      x, k, y, C, M, H, W, K);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab10
