// A plain correct answer to lab 10, as a student would write it from the page's milestones,
// without the reference's tuning: the direct kernel (milestone 1, one thread per output) and, as
// the fast kernel, a shared-memory input tile (milestone 2) with a register tile (milestone 3): a
// block of 32 x 8 threads covers 32 columns x 16 rows of output for a group of 4 maps of one
// image; each thread computes 2 rows x 4 maps = 8 outputs, so every input value it reads from
// the tile feeds 4 multiplies, and every weight (constant memory, the same address in every
// lane) feeds 2. It must get full credit (the performance thresholds leave it room).
#include <stdexcept>
#include <string>

#include "cnn_layer.h"
#include "cudalab/check.h"

namespace lab10 {
namespace CUDALAB_IMPL {

// The fast kernel's tile: TW x TH threads, each computing RY rows x MG maps of outputs.
constexpr int TW = 32, TH = 8, RY = 2, MG = 4;
constexpr int kOutRows = TH * RY;  // output rows of a tile

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

__constant__ float c_k[kMaxWeights];

// One block per (image, group of MG maps, tile of TW x kOutRows outputs), in one grid dimension:
// blockIdx.x = ((b * groups + g) * tiles down + ty) * tiles across + tx (B * M is far above the
// 65535 blocks gridDim.y and z allow).
__global__ void conv_forward_fast_kernel(const float* x, float* y, int C, int M, int H, int W,
                                         int K) {
  __shared__ float tile[kOutRows + kMaxKernelWidth - 1][TW + kMaxKernelWidth - 1];
  const int ho = H - K + 1, wo = W - K + 1, groups = (M + MG - 1) / MG;
  const int tiles_x = (wo + TW - 1) / TW, tiles_y = (ho + kOutRows - 1) / kOutRows;
  const int bg = blockIdx.x / (tiles_x * tiles_y), t = blockIdx.x % (tiles_x * tiles_y);
  const int b = bg / groups, m0 = (bg % groups) * MG;
  const int h0 = (t / tiles_x) * kOutRows, w0 = (t % tiles_x) * TW;
  const int w = w0 + threadIdx.x;
  float sum[RY][MG] = {};
  for (int c = 0; c < C; ++c) {
    const float* xc = x + (static_cast<long long>(b) * C + c) * H * W;
    for (int r = threadIdx.y; r < kOutRows + K - 1; r += TH)
      for (int s = threadIdx.x; s < TW + K - 1; s += TW)
        tile[r][s] = (h0 + r < H && w0 + s < W) ? xc[(h0 + r) * W + w0 + s] : 0.0f;
    __syncthreads();
    for (int p = 0; p < K; ++p)
      for (int q = 0; q < K; ++q) {
        float wt[MG];  // this tap's weight for each of the block's maps (0 past M)
#pragma unroll
        for (int j = 0; j < MG; ++j)
          wt[j] = m0 + j < M ? c_k[(((m0 + j) * C + c) * K + p) * K + q] : 0.0f;
#pragma unroll
        for (int i = 0; i < RY; ++i) {
          const float v = tile[threadIdx.y + i * TH + p][threadIdx.x + q];
#pragma unroll
          for (int j = 0; j < MG; ++j) sum[i][j] += v * wt[j];
        }
      }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < RY; ++i) {
    const int h = h0 + threadIdx.y + i * TH;
#pragma unroll
    for (int j = 0; j < MG; ++j)
      if (h < ho && w < wo && m0 + j < M)
        y[((static_cast<long long>(b) * M + m0 + j) * ho + h) * wo + w] = sum[i][j];
  }
}

void prepare_weights(const float* host_k, int M, int C, int K) {
  check_sizes(1, C, M, K, K, K);
  CUDA_CHECK(cudaMemcpyToSymbol(c_k, host_k, sizeof(float) * M * C * K * K));
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
  (void)k;  // the weights come from c_k (prepare_weights)
  const int ho = H - K + 1, wo = W - K + 1;
  const long long tiles =
      static_cast<long long>((wo + TW - 1) / TW) * ((ho + kOutRows - 1) / kOutRows);
  const long long blocks = tiles * B * ((M + MG - 1) / MG);
  conv_forward_fast_kernel<<<static_cast<unsigned>(blocks), dim3(TW, TH), 0, stream>>>(x, y, C, M,
                                                                                       H, W, K);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab10
