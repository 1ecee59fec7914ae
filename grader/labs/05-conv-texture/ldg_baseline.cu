#include "cudalab/check.h"
#include "ldg_baseline.h"

namespace lab05::baseline {
namespace {

__global__ void conv2d_ldg_kernel(const float* __restrict__ img, const float* __restrict__ mask,
                                  float* __restrict__ out, int w, int h, int radius) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const int side = 2 * radius + 1;
  float sum = 0.0f;
  for (int dy = -radius; dy <= radius; ++dy) {
    const long long row = static_cast<long long>(min(max(y + dy, 0), h - 1)) * w;
    for (int dx = -radius; dx <= radius; ++dx)
      sum = fmaf(__ldg(&mask[(dy + radius) * side + dx + radius]),
                 __ldg(&img[row + min(max(x + dx, 0), w - 1)]), sum);
  }
  out[static_cast<long long>(y) * w + x] = sum;
}

}  // namespace

void conv2d_ldg(const float* img, const float* mask, float* out, int w, int h, int radius,
                cudaStream_t stream) {
  const dim3 block(16, 16);
  const dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  conv2d_ldg_kernel<<<grid, block, 0, stream>>>(img, mask, out, w, h, radius);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace lab05::baseline
