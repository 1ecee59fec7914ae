#include "conv1d_ldg.h"

#include "cudalab/check.h"

namespace conv1d_bench {
namespace {

__global__ void conv1d_ldg_kernel(const float* __restrict__ x, const float* __restrict__ mask,
                                  float* __restrict__ y, int width, int mask_width) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= width) return;
  const int start = i - mask_width / 2;
  float sum = 0.0f;
  for (int j = 0; j < mask_width; ++j)
    if (start + j >= 0 && start + j < width) sum += __ldg(mask + j) * __ldg(x + start + j);
  y[i] = sum;
}

}  // namespace

void conv1d_ldg(const float* x, const float* mask, float* y, int width, int mask_width,
                cudaStream_t stream) {
  constexpr int kBlock = 256;
  const auto blocks = static_cast<unsigned>((static_cast<long long>(width) + kBlock - 1) / kBlock);
  conv1d_ldg_kernel<<<blocks, kBlock, 0, stream>>>(x, mask, y, width, mask_width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace conv1d_bench
