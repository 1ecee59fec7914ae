// Lab 10 - forward convolution layer of a CNN: the interface the grader and the runner call.
//
// The layer of the course project, a VALID convolution (no padding, stride 1) of a
// batch of B images of C channels, H x W pixels, with M filters of C x K x K weights, all NCHW,
// row-major, float:
//
//   x[b][c][h][w]   b < B, c < C, h < H, w < W                       (input)
//   k[m][c][p][q]   m < M, c < C, p < K, q < K                       (weights)
//   y[b][m][h][w]   b < B, m < M, h < Ho = H - K + 1, w < Wo = W - K + 1   (output)
//
//   y[b][m][h][w] = sum_{c < C} sum_{p < K} sum_{q < K} x[b][c][h + p][w + q] * k[m][c][p][q]
//
// (a cross-correlation, as every deep-learning framework computes "convolution"; no bias.)
// Element (b, c, h, w) of x is x[((b * C + c) * H + h) * W + w]; k and y likewise.
//
// Two implementations of the same formula:
//   conv_forward_direct  one thread per output value, everything read from global memory;
//   conv_forward_fast    an optimised kernel, named conv_forward_fast_kernel, that uses shared
//                        memory or constant memory (the grader checks its PTX).
// x, k and y are DEVICE pointers. Both functions throw std::invalid_argument for sizes outside
// the limits below (any size < 1, K > H or K > W, K > kMaxKernelWidth, M * C * K * K >
// kMaxWeights) and otherwise only launch work on `stream`: no allocation, copy or
// synchronization (the harness owns memory, transfers and timing).
//
// prepare_weights() is an OPTIONAL, untimed set-up step for designs that keep the weights in
// constant memory: the harness calls it with the HOST copy of k (M * C * K * K floats) before
// conv_forward_fast() runs with the same weights (and with the device copy in `k`), and
// synchronizes the device after it. An implementation that reads k from global memory leaves it
// empty (it must still accept valid sizes and refuse the others like the functions above).
//
// No include guard on purpose (see common/include/cudalab/impl.h); the constants have their own.
#include <cuda_runtime.h>

#include "cudalab/impl.h"

#ifndef LAB10_CNN_LAYER_LIMITS
#define LAB10_CNN_LAYER_LIMITS
namespace lab10 {
// The widest filter: 7 x 7.
inline constexpr int kMaxKernelWidth = 7;
// The most weights a layer may have: 24 x 12 x 7 x 7 = 14112 floats (55 KiB), so that every
// layer's weights fit the 64 KiB of constant memory (the course project's kernel[14112]).
inline constexpr int kMaxWeights = 14112;
}  // namespace lab10
#endif

namespace lab10 {
namespace CUDALAB_IMPL {

void prepare_weights(const float* host_k, int M, int C, int K);

void conv_forward_direct(const float* x, const float* k, float* y, int B, int C, int M, int H,
                         int W, int K, cudaStream_t stream);

void conv_forward_fast(const float* x, const float* k, float* y, int B, int C, int M, int H, int W,
                       int K, cudaStream_t stream);

}  // namespace CUDALAB_IMPL
}  // namespace lab10
