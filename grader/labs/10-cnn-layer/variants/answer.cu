// A plain correct answer to lab 10, as a student would write it from the course's description,
// without the reference's tuning: the direct kernel (one thread per output) and, as the "fast"
// kernel, the course's shared-memory tiling: a block computes a TILE x TILE tile of one output
// map of one image; for each input channel it loads the (TILE + K - 1)^2 input tile into shared
// memory, waits, and every thread sums its K x K window. The weights are read from global memory.
// It must get full credit (the performance thresholds leave it room).
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

// One block per output tile: blockIdx.x = ((b * M + m) * tiles down + ty) * tiles across + tx
// (one grid dimension: B * M is far above the 65535 blocks gridDim.y and z allow). TILE x TILE.
__global__ void conv_forward_fast_kernel(const float* x, const float* k, float* y, int C, int M,
                                         int H, int W, int K) {
  __shared__ float tile[TILE + kMaxKernelWidth - 1][TILE + kMaxKernelWidth - 1];
  const int ho = H - K + 1, wo = W - K + 1;
  const int tiles_x = (wo + TILE - 1) / TILE, tiles_y = (ho + TILE - 1) / TILE;
  const int bm = blockIdx.x / (tiles_x * tiles_y), t = blockIdx.x % (tiles_x * tiles_y);
  const int b = bm / M, m = bm % M;
  const int h0 = (t / tiles_x) * TILE, w0 = (t % tiles_x) * TILE;
  const int h = h0 + threadIdx.y, w = w0 + threadIdx.x;
  const int in_side = TILE + K - 1;
  float sum = 0.0f;
  for (int c = 0; c < C; ++c) {
    const float* xc = x + (static_cast<long long>(b) * C + c) * H * W;
    for (int r = threadIdx.y; r < in_side; r += TILE)
      for (int s = threadIdx.x; s < in_side; s += TILE)
        tile[r][s] = (h0 + r < H && w0 + s < W) ? xc[(h0 + r) * W + w0 + s] : 0.0f;
    __syncthreads();
    const float* kc = k + (static_cast<long long>(m) * C + c) * K * K;
    for (int p = 0; p < K; ++p)
      for (int q = 0; q < K; ++q) sum += tile[threadIdx.y + p][threadIdx.x + q] * kc[p * K + q];
    __syncthreads();
  }
  if (h < ho && w < wo) y[((static_cast<long long>(b) * M + m) * ho + h) * wo + w] = sum;
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
  conv_forward_fast_kernel<<<static_cast<unsigned>(tiles * B * M), block, 0, stream>>>(x, k, y, C,
                                                                                       M, H, W, K);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab10
