// Lab 10 reference solution: the forward convolution layer (cnn_layer.h).
//
// Kernels:
//   conv_forward_direct_kernel  one thread per output value y[b][m][h][w]; C * K * K taps read
//                               through the caches. The course's starting point.
//   conv_forward_fast_kernel    a fused implicit GEMM (the course's "fused unroll + GEMM" with
//                               register tiling). The output pixels of the whole batch are one
//                               flat sequence (b, h, w); a block takes kPixelsPerBlock = 512
//                               consecutive ones (they may straddle images: no lane idles at an
//                               image's edge) and a group of MG maps. It stages, channel chunk by
//                               channel chunk, the input rows those pixels need and the chunk's
//                               weights, transposed to [c][p][q][m], in shared memory; each thread
//                               then keeps 4 pixels x MG maps of accumulators in registers: per
//                               tap (c, p, q) 4 input loads and MG / 4 float4 weight loads (the
//                               same address in every lane: a broadcast) feed 4 * MG FMAs.
//                               Templated on K (loops unrolled) and MG = 4, 8 or 12 (12 for the
//                               course's M = 12 and 24: no map wasted).
//
// The course's shapes at B = 10000 (flops = 2 * B * M * C * K * K * Ho * Wo; bytes = x read once
// + y written once + k):
//   layer 1: C = 1,  M = 12, K = 5, 70 x 70 -> 66 x 66:  26.1 GFLOP; x 196 MB + y 2091 MB.
//            11 FLOP per byte: bound by writing y (0.76 ms at 3 TB/s), not by the FMAs
//            (0.4 ms at 67 TFLOP/s), so the kernel must stream y out at full bandwidth: coalesced
//            stores (consecutive lanes, consecutive pixels of one map) and no extra pass.
//   layer 2: C = 12, M = 24, K = 5, 33 x 33 -> 29 x 29: 121 GFLOP;  x 523 MB + y 807 MB.
//            90 FLOP per byte: bound by the FMAs (1.8 ms at 67 TFLOP/s), so the inner loop must
//            be almost only FMAs: 7 shared loads per 48 FMAs here.
// When the rows a block needs would not fit 48 KiB of shared memory (images wider than ~1400
// pixels, or outputs of a few pixels, where 512 pixels span hundreds of images) the direct kernel
// does the work.
#include <algorithm>
#include <cstddef>
#include <stdexcept>
#include <string>

#include "cnn_layer.h"
#include "cudalab/check.h"

namespace lab10 {
namespace CUDALAB_IMPL {

namespace {

constexpr int kThreads = 128;
constexpr int kPixelsPerThread = 4;
constexpr int kPixelsPerBlock = kThreads * kPixelsPerThread;
constexpr int kSharedFloats = 12 * 1024;  // 48 KiB: no opt-in needed on any GPU

void check_sizes(const char* what, int B, int C, int M, int H, int W, int K) {
  auto refuse = [&](const std::string& why) {
    throw std::invalid_argument(std::string(what) + ": " + why + " (B=" + std::to_string(B) +
                                " C=" + std::to_string(C) + " M=" + std::to_string(M) +
                                " H=" + std::to_string(H) + " W=" + std::to_string(W) +
                                " K=" + std::to_string(K) + ")");
  };
  if (B < 1 || C < 1 || M < 1 || H < 1 || W < 1 || K < 1) refuse("every size must be at least 1");
  if (K > kMaxKernelWidth) refuse("K must be at most " + std::to_string(kMaxKernelWidth));
  if (K > H || K > W) refuse("K must not exceed H or W (valid convolution)");
  if (static_cast<long long>(M) * C * K * K > kMaxWeights)
    refuse("M * C * K * K must be at most " + std::to_string(kMaxWeights));
  const long long outputs = static_cast<long long>(B) * M * (H - K + 1) * (W - K + 1);
  const long long inputs = static_cast<long long>(B) * C * H * W;
  if (outputs >= (1LL << 40) || inputs >= (1LL << 40)) refuse("tensors too large");
}

__global__ void conv_forward_direct_kernel(const float* __restrict__ x, const float* __restrict__ k,
                                           float* __restrict__ y, int B, int C, int M, int H, int W,
                                           int K) {
  const int ho = H - K + 1, wo = W - K + 1;
  const long long total = static_cast<long long>(B) * M * ho * wo;
  for (long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<long long>(gridDim.x) * blockDim.x) {
    const int w = static_cast<int>(i % wo);
    const int h = static_cast<int>((i / wo) % ho);
    const int m = static_cast<int>((i / (static_cast<long long>(wo) * ho)) % M);
    const long long b = i / (static_cast<long long>(wo) * ho * M);
    float sum = 0.0f;
    for (int c = 0; c < C; ++c) {
      const float* xc = x + ((b * C + c) * H + h) * W + w;
      const float* kc = k + (static_cast<long long>(m) * C + c) * K * K;
      for (int p = 0; p < K; ++p)
        for (int q = 0; q < K; ++q) sum += xc[p * W + q] * kc[p * K + q];
    }
    y[i] = sum;
  }
}

// Launch geometry of the fast kernel, computed on the host.
struct FastPlan {
  int rows;           // input rows staged per channel (an upper bound over all blocks)
  int chunk;          // channels staged at a time
  int shared_floats;  // chunk * (K * K * MG + rows * W)
};

// Rows of the "virtual" input (all images' rows one after the other, image b's row r being
// virtual row b * H + r) that kPixelsPerBlock consecutive output pixels can need: they touch at
// most (P - 1) / Wo + 2 output rows, cross at most (P - 1) / (Ho * Wo) + 1 image boundaries,
// each adding the K - 1 rows below an image's last output row, and the last row needs K - 1
// more below it.
int staged_rows(int H, int W, int K) {
  const long long ho = H - K + 1, wo = W - K + 1;
  const long long out_rows = (kPixelsPerBlock - 1) / wo + 2;
  const long long boundaries = (kPixelsPerBlock - 1) / (ho * wo) + 1;
  return static_cast<int>(std::min<long long>(out_rows + (boundaries + 1) * (K - 1),
                                              static_cast<long long>(kSharedFloats)));
}

template <int K, int MG>
__global__ void __launch_bounds__(kThreads)
    conv_forward_fast_kernel(const float* __restrict__ x, const float* __restrict__ k,
                             float* __restrict__ y, int B, int C, int M, int H, int W, int chunk,
                             int rows) {
  extern __shared__ float4 shared4[];              // float4: the weights are read as float4
  float* s_w = reinterpret_cast<float*>(shared4);  // [chunk][K][K][MG]
  float* s_x = s_w + chunk * K * K * MG;           // [chunk][rows][W]
  const int ho = H - K + 1, wo = W - K + 1;
  const long long plane = static_cast<long long>(ho) * wo;  // pixels of one map
  const long long total = B * plane;
  const long long first = static_cast<long long>(blockIdx.x) * kPixelsPerBlock;
  const long long last = min(first + kPixelsPerBlock, total) - 1;
  const int m0 = blockIdx.y * MG;
  const int span = rows * W;

  // The block's first and last staged virtual rows, and where each of this thread's pixels
  // starts in a staged channel.
  const long long b_first = first / plane, b_last = last / plane;
  const long long row0 = b_first * H + (first % plane) / wo;
  const long long row_end = b_last * H + (last % plane) / wo + K;  // one past the last
  const long long v0 = row0 * W, v1 = row_end * W;                 // virtual element range staged
  const long long hw = static_cast<long long>(H) * W;
  int base[kPixelsPerThread];
#pragma unroll
  for (int i = 0; i < kPixelsPerThread; ++i) {
    const long long pix = min(first + threadIdx.x + i * kThreads, last);  // clamped: no branch
    const long long b = pix / plane;
    const int h = static_cast<int>((pix % plane) / wo), w = static_cast<int>(pix % wo);
    base[i] = static_cast<int>((b * H + h - row0) * W + w);
  }

  float acc[kPixelsPerThread][MG];
#pragma unroll
  for (int i = 0; i < kPixelsPerThread; ++i)
#pragma unroll
    for (int j = 0; j < MG; ++j) acc[i][j] = 0.0f;

  for (int c0 = 0; c0 < C; c0 += chunk) {
    const int cc = min(chunk, C - c0);
    // Stage the chunk's weights, transposed so that the MG maps of one tap are one float4 run
    // (maps past M get 0; their outputs are never stored). Read in k's order: coalesced.
    for (int e = threadIdx.x; e < MG * cc * K * K; e += kThreads) {
      const int j = e / (cc * K * K), rest = e % (cc * K * K);  // rest = c_local * K * K + tap
      const int m = m0 + j;
      s_w[rest * MG + j] = m < M ? k[(static_cast<long long>(m) * C + c0) * K * K + rest] : 0.0f;
    }
    // Stage the input rows: within one image they are contiguous in x, so copy image by image.
    for (int cl = 0; cl < cc; ++cl) {
      float* dst = s_x + cl * span;
      for (long long b = b_first; b <= b_last; ++b) {
        const long long lo = max(v0, b * hw), hi = min(v1, (b + 1) * hw);
        const float* src = x + (b * C + c0 + cl) * hw - b * hw;  // src[v]: virtual element v
        for (long long v = lo + threadIdx.x; v < hi; v += kThreads) dst[v - v0] = src[v];
      }
    }
    __syncthreads();  // the chunk is complete before anyone reads it

    for (int cl = 0; cl < cc; ++cl) {
      const float* sx = s_x + cl * span;
      const float4* sw = reinterpret_cast<const float4*>(s_w + cl * K * K * MG);
#pragma unroll
      for (int p = 0; p < K; ++p) {
#pragma unroll
        for (int q = 0; q < K; ++q) {
          float xv[kPixelsPerThread];
#pragma unroll
          for (int i = 0; i < kPixelsPerThread; ++i) xv[i] = sx[base[i] + p * W + q];
#pragma unroll
          for (int j4 = 0; j4 < MG / 4; ++j4) {
            const float4 wv = sw[(p * K + q) * (MG / 4) + j4];
#pragma unroll
            for (int i = 0; i < kPixelsPerThread; ++i) {
              acc[i][4 * j4 + 0] = fmaf(xv[i], wv.x, acc[i][4 * j4 + 0]);
              acc[i][4 * j4 + 1] = fmaf(xv[i], wv.y, acc[i][4 * j4 + 1]);
              acc[i][4 * j4 + 2] = fmaf(xv[i], wv.z, acc[i][4 * j4 + 2]);
              acc[i][4 * j4 + 3] = fmaf(xv[i], wv.w, acc[i][4 * j4 + 3]);
            }
          }
        }
      }
    }
    __syncthreads();  // everyone is done with the chunk before the next one overwrites it
  }

  // Consecutive lanes hold consecutive pixels: each map's stores are coalesced.
#pragma unroll
  for (int i = 0; i < kPixelsPerThread; ++i) {
    const long long pix = first + threadIdx.x + i * kThreads;
    if (pix > last) continue;
    const long long b = pix / plane, in_plane = pix % plane;
#pragma unroll
    for (int j = 0; j < MG; ++j)
      if (m0 + j < M) y[(b * M + m0 + j) * plane + in_plane] = acc[i][j];
  }
}

template <int K, int MG>
void launch_fast(const float* x, const float* k, float* y, int B, int C, int M, int H, int W,
                 const FastPlan& plan, cudaStream_t stream) {
  const long long pixels = static_cast<long long>(B) * (H - K + 1) * (W - K + 1);
  const dim3 grid(static_cast<unsigned>((pixels + kPixelsPerBlock - 1) / kPixelsPerBlock),
                  static_cast<unsigned>((M + MG - 1) / MG));
  conv_forward_fast_kernel<K, MG><<<grid, kThreads, sizeof(float) * plan.shared_floats, stream>>>(
      x, k, y, B, C, M, H, W, plan.chunk, plan.rows);
  CUDA_CHECK(cudaGetLastError());
}

template <int K>
void launch_fast_k(const float* x, const float* k, float* y, int B, int C, int M, int H, int W,
                   int mg, const FastPlan& plan, cudaStream_t stream) {
  if (mg == 4)
    launch_fast<K, 4>(x, k, y, B, C, M, H, W, plan, stream);
  else if (mg == 8)
    launch_fast<K, 8>(x, k, y, B, C, M, H, W, plan, stream);
  else
    launch_fast<K, 12>(x, k, y, B, C, M, H, W, plan, stream);
}

}  // namespace

void prepare_weights(const float*, int M, int C, int K) {
  check_sizes("prepare_weights", 1, C, M, K, K, K);  // the weights live in global memory here
}

void conv_forward_direct(const float* x, const float* k, float* y, int B, int C, int M, int H,
                         int W, int K, cudaStream_t stream) {
  check_sizes("conv_forward_direct", B, C, M, H, W, K);
  const long long total = static_cast<long long>(B) * M * (H - K + 1) * (W - K + 1);
  const int threads = 256;
  const long long blocks = std::min<long long>((total + threads - 1) / threads, 1LL << 30);
  conv_forward_direct_kernel<<<static_cast<unsigned>(blocks), threads, 0, stream>>>(x, k, y, B, C,
                                                                                    M, H, W, K);
  CUDA_CHECK(cudaGetLastError());
}

void conv_forward_fast(const float* x, const float* k, float* y, int B, int C, int M, int H, int W,
                       int K, cudaStream_t stream) {
  check_sizes("conv_forward_fast", B, C, M, H, W, K);
  const int mg = M <= 4 ? 4 : (M <= 8 ? 8 : 12);
  FastPlan plan{};
  plan.rows = staged_rows(H, W, K);
  const long long per_channel =
      static_cast<long long>(K) * K * mg + static_cast<long long>(plan.rows) * W;
  if (per_channel > kSharedFloats) {  // too wide to stage: the direct kernel does it
    conv_forward_direct(x, k, y, B, C, M, H, W, K, stream);
    return;
  }
  const int max_chunk = static_cast<int>(std::min<long long>(C, kSharedFloats / per_channel));
  const int chunks = (C + max_chunk - 1) / max_chunk;
  plan.chunk = (C + chunks - 1) / chunks;  // equal chunks: 12 channels go 6 + 6, not 10 + 2
  plan.shared_floats = static_cast<int>(plan.chunk * per_channel);
  switch (K) {
    case 1: launch_fast_k<1>(x, k, y, B, C, M, H, W, mg, plan, stream); break;
    case 2: launch_fast_k<2>(x, k, y, B, C, M, H, W, mg, plan, stream); break;
    case 3: launch_fast_k<3>(x, k, y, B, C, M, H, W, mg, plan, stream); break;
    case 4: launch_fast_k<4>(x, k, y, B, C, M, H, W, mg, plan, stream); break;
    case 5: launch_fast_k<5>(x, k, y, B, C, M, H, W, mg, plan, stream); break;
    case 6: launch_fast_k<6>(x, k, y, B, C, M, H, W, mg, plan, stream); break;
    default: launch_fast_k<7>(x, k, y, B, C, M, H, W, mg, plan, stream); break;
  }
}

}  // namespace CUDALAB_IMPL
}  // namespace lab10
