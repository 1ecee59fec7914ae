// Lab 10 - the forward convolution layer of a CNN (the course project).
//
//   y[b][m][h][w] = sum_c sum_p sum_q x[b][c][h + p][w + q] * k[m][c][p][q]     (cnn_layer.h)
//
// Two kernels for the same layer:
//   conv_forward_direct_kernel  the starting point: one thread per output value, every input and
//                               weight read from global memory;
//   conv_forward_fast_kernel    your optimised kernel, ONE of the course's optimisations (or a
//                               combination): input tiles in shared memory, the weights in
//                               constant memory, unroll (im2col) + shared-memory matrix multiply,
//                               register tiling (several outputs per thread), the fused
//                               unroll + multiply. It must use shared or constant memory.
// The grader runs both on random tensors against a CPU reference, runs a small network on the
// Fashion-MNIST test set with your fast kernel in its two convolution layers, and times your fast
// kernel against the reference at the course's batch of 10000 images.
//
// Read docs/labs/10-cnn-layer.md, then complete TODO(1) to TODO(5). Grade with:
//     ./cudalab grade --lab 10
// Keep the names and signatures: the grader looks for conv_forward_fast_kernel in the built code
// and calls the three functions at the bottom. Everything stays inside namespace
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

// One thread per output value y[b][m][h][w], Ho = H - K + 1, Wo = W - K + 1.
__global__ void conv_forward_direct_kernel(const float* x, const float* k, float* y, int B, int C,
                                           int M, int H, int W, int K) {
  // TODO(1): find this thread's output (b, m, h, w) from its global index; return if it is past
  //          the last of the B * M * Ho * Wo outputs. Sum x[b][c][h+p][w+q] * k[m][c][p][q] over
  //          c, p and q (cnn_layer.h has the index formulas) and store it in y[b][m][h][w].
  (void)x, (void)k, (void)y, (void)B, (void)C, (void)M, (void)H, (void)W, (void)K;
}

// TODO(3): (optional) if your fast kernel reads the weights from constant memory, declare the
//          buffer here, room for kMaxWeights floats: __constant__ float c_k[kMaxWeights];

__global__ void conv_forward_fast_kernel(const float* x, const float* k, float* y, int B, int C,
                                         int M, int H, int W, int K) {
  // TODO(4): your optimised kernel. Change its parameters and launch shape as you like (keep the
  //          name). Whatever the design, guard the edges: Ho, Wo and M need not be multiples of
  //          your tiles, and a shared-memory tile must be complete (__syncthreads) before it is
  //          read and no longer read before it is overwritten.
  (void)x, (void)k, (void)y, (void)B, (void)C, (void)M, (void)H, (void)W, (void)K;
}

void prepare_weights(const float* host_k, int M, int C, int K) {
  check_sizes("prepare_weights", 1, C, M, K, K, K);
  // TODO(3): (optional) copy the M * C * K * K weights of host_k to your constant buffer
  //          (cudaMemcpyToSymbol, wrapped in CUDA_CHECK). Leave empty if you do not use one.
  (void)host_k;
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

void conv_forward_fast(const float* x, const float* k, float* y, int B, int C, int M, int H, int W,
                       int K, cudaStream_t stream) {
  check_sizes("conv_forward_fast", B, C, M, H, W, K);
  // TODO(5): launch conv_forward_fast_kernel on `stream` with your grid, block and shared memory.
  //          gridDim.y and gridDim.z are at most 65535: B * M is larger at the course's batch.
  conv_forward_fast_kernel<<<1, 32, 0, stream>>>(x, k, y, B, C, M, H, W, K);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab10
