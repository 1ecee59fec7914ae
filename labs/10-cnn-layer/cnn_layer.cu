// Lab 10 - the forward convolution layer of a CNN (the course project).
//
//   y[b][m][h][w] = sum_c sum_p sum_q x[b][c][h + p][w + q] * k[m][c][p][q]     (cnn_layer.h)
//
// Two kernels for the same layer, built in the page's four milestones (each has its checks):
//   1. conv_forward_direct_kernel: one thread per output value, every input and weight read from
//      global memory. TODO(1), TODO(2). Checked by the "direct kernel" checks.
//   2. conv_forward_fast_kernel with shared-memory tiles: a block stages the input tile its
//      outputs need (and the weights in constant memory). TODO(3) to TODO(5). Checked by "fast
//      kernel uses shared or constant memory" and the "fast kernel" correctness checks.
//   3. Register tiling: each thread computes a tile of outputs (several maps, several rows) from
//      every value it reads. TODO(6). Checked by "fast kernel computes several outputs per thread"
//      and by the performance checks: full credit needs this milestone.
//   4. Going further: the fused unroll + matrix multiply of the reference (the page's last
//      section). No TODO; the performance checks show what it gains.
// The grader runs both kernels on random tensors against a CPU reference, runs a small network
// on the Fashion-MNIST test set with your fast kernel in its two convolution layers, and times
// your fast kernel against the reference at the course's batch of 10000 images.
//
// Read docs/labs/10-cnn-layer.md, then complete TODO(1) to TODO(6) in order. Grade with:
//     ./cudalab grade --lab 10
// Keep the names and signatures: the grader looks for conv_forward_fast_kernel in the built code
// and calls the three functions of cnn_layer.h. Everything stays inside namespace
// lab10::CUDALAB_IMPL (the grader links your file next to the reference).
#include <stdexcept>
#include <string>

#include "cnn_layer.h"
#include "cudalab/check.h"

namespace lab10 {
namespace CUDALAB_IMPL {

// Refuses sizes outside the limits of cnn_layer.h. Provided.
void check_sizes(const char* what, int B, int C, int M, int H, int W, int K) {
  if (B < 1 || C < 1 || M < 1 || H < 1 || W < 1 || K < 1)
    throw std::invalid_argument(std::string(what) + ": every size must be at least 1");
  if (K > kMaxKernelWidth || K > H || K > W)
    throw std::invalid_argument(std::string(what) + ": K must be at most " +
                                std::to_string(kMaxKernelWidth) + " and at most H and W");
  if (static_cast<long long>(M) * C * K * K > kMaxWeights)
    throw std::invalid_argument(std::string(what) + ": M * C * K * K must be at most " +
                                std::to_string(kMaxWeights));
}

// Milestone 1: the direct kernel.
//
// One thread per output value y[b][m][h][w], Ho = H - K + 1, Wo = W - K + 1.
__global__ void conv_forward_direct_kernel(const float* x, const float* k, float* y, int B, int C,
                                           int M, int H, int W, int K) {
  // TODO(1): find this thread's output (b, m, h, w) from its global index; return if it is past
  //          the last of the B * M * Ho * Wo outputs. Sum x[b][c][h+p][w+q] * k[m][c][p][q] over
  //          c, p and q (cnn_layer.h has the index formulas) and store it in y[b][m][h][w].
  (void)x, (void)k, (void)y, (void)B, (void)C, (void)M, (void)H, (void)W, (void)K;
}

void conv_forward_direct(const float* x, const float* k, float* y, int B, int C, int M, int H,
                         int W, int K, cudaStream_t stream) {
  check_sizes("conv_forward_direct", B, C, M, H, W, K);
  // TODO(2): one thread per output: compute the number of blocks for B * M * Ho * Wo outputs
  //          (rounded up; the course's layer 1 at B = 10000 has 522 million of them).
  const int threads = 256, blocks = 1;
  conv_forward_direct_kernel<<<blocks, threads, 0, stream>>>(x, k, y, B, C, M, H, W, K);
  CUDA_CHECK(cudaGetLastError());
}

// Milestone 2: shared-memory tiles.
//
// TODO(3): if your fast kernel reads the weights from constant memory (recommended: every lane of
//          a block reads the same weight at once, which constant memory broadcasts), declare the
//          buffer here, room for kMaxWeights floats, and copy the M * C * K * K weights of host_k
//          into it in prepare_weights (cudaMemcpyToSymbol, wrapped in CUDA_CHECK). Otherwise
//          leave prepare_weights as it is.

void prepare_weights(const float* host_k, int M, int C, int K) {
  check_sizes("prepare_weights", 1, C, M, K, K, K);
  // TODO(3): copy host_k to your constant buffer, if you declared one.
  (void)host_k;
}

__global__ void conv_forward_fast_kernel(const float* x, const float* k, float* y, int B, int C,
                                         int M, int H, int W, int K) {
  // TODO(4): a block computes a tile of outputs of one map of one image, one output per thread.
  //          For each input channel, load the input tile those outputs need (the tile plus K - 1
  //          rows and columns of halo) into shared memory, __syncthreads, sum each thread's
  //          K x K window from it, and __syncthreads again before the next channel overwrites
  //          the tile. Change the parameters and launch shape as you like (keep the name). Guard
  //          the edges: Ho and Wo need not be multiples of your tile.
  (void)x, (void)k, (void)y, (void)B, (void)C, (void)M, (void)H, (void)W, (void)K;
}

void conv_forward_fast(const float* x, const float* k, float* y, int B, int C, int M, int H, int W,
                       int K, cudaStream_t stream) {
  check_sizes("conv_forward_fast", B, C, M, H, W, K);
  // TODO(5): launch conv_forward_fast_kernel on `stream`: one block per output tile of one map of
  //          one image. gridDim.y and gridDim.z are at most 65535, and B * M is larger at the
  //          course's batch: number the blocks in one dimension.
  conv_forward_fast_kernel<<<1, 32, 0, stream>>>(x, k, y, B, C, M, H, W, K);
  CUDA_CHECK(cudaGetLastError());
}

// Milestone 3: register tiling.
//
// TODO(6): change the kernel of TODO(4) and the launch of TODO(5) so that each thread computes a
//          tile of outputs, e.g. the same pixel in 4 maps and 2 rows of pixels: 8 sums in
//          registers. Each value read from the shared tile then feeds several multiplies, and a
//          block covers several maps with one input tile. Guard the last group of maps when M is
//          not a multiple of yours (the checks use such an M).

}  // namespace CUDALAB_IMPL
}  // namespace lab10
