#include "baselines.h"

#include "cudalab/check.h"

namespace lab01::baseline {
namespace {

__global__ void convolution_1D_basic_kernel(float* X, float* H, float* Y, int Kernel_Width,
                                            int Width) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= Width) return;
  float Yvalue = 0;
  int X_start_point = i - (Kernel_Width / 2);
  for (int j = 0; j < Kernel_Width; j++) {
    if (X_start_point + j >= 0 && X_start_point + j < Width) {
      Yvalue += X[X_start_point + j] * H[j];
    }
  }
  Y[i] = Yvalue;
}

}  // namespace

void conv1d_course(const float* x, const float* mask, float* y, int width, int mask_width,
                   cudaStream_t stream) {
  constexpr int kBlock = 256;
  const unsigned blocks =
      static_cast<unsigned>((static_cast<long long>(width) + kBlock - 1) / kBlock);
  // The slide's kernel takes non-const pointers; it never writes X or H.
  convolution_1D_basic_kernel<<<blocks, kBlock, 0, stream>>>(
      const_cast<float*>(x), const_cast<float*>(mask), y, mask_width, width);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace lab01::baseline
