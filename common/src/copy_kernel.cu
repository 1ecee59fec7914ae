// A plain float4 copy kernel: the second way device_info.cpp measures copy bandwidth (some GPUs
// copy faster through SM loads and stores than through cudaMemcpy's engine path).
#include <cuda_runtime.h>

#include <cstddef>

namespace cudalab::detail {

__global__ void copy_float4_kernel(const float4* __restrict__ src, float4* __restrict__ dst,
                                   std::size_t count) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += stride)
    dst[i] = src[i];
}

void launch_copy_float4(const void* src, void* dst, std::size_t bytes, int sm_count,
                        cudaStream_t stream) {
  constexpr int kBlock = 256;
  const std::size_t count = bytes / sizeof(float4);
  // Enough blocks to fill every SM several times over; the grid-stride loop covers the rest.
  copy_float4_kernel<<<sm_count * 16, kBlock, 0, stream>>>(static_cast<const float4*>(src),
                                                           static_cast<float4*>(dst), count);
}

}  // namespace cudalab::detail
