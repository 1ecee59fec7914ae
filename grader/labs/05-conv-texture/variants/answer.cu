// A plain, correct answer to lab 05 as a student would write it from the course: one thread per
// output, 16 x 16 blocks, the mask read from global memory, the course's kernels with texture
// objects instead of texture references. The grader must give it full marks: this is what keeps
// r_full honest.
#include "conv_texture.h"
#include "cudalab/check.h"
#include "texture_resources.h"

namespace lab05 {
namespace CUDALAB_IMPL {

TextureState& conv_state() {
  static auto* state = new TextureState;
  return *state;
}
TextureState& rotation_state() {
  static auto* state = new TextureState;
  return *state;
}

__global__ void conv2d_global_kernel(const float* img, const float* mask, float* out, int w, int h,
                                     int radius) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const int side = 2 * radius + 1;
  float sum = 0.0f;
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx) {
      const int xx = min(max(x + dx, 0), w - 1);
      const int yy = min(max(y + dy, 0), h - 1);
      sum += mask[(dy + radius) * side + dx + radius] * img[yy * w + xx];
    }
  out[y * w + x] = sum;
}

void conv2d_global(const float* img, const float* mask, float* out, int w, int h, int radius,
                   cudaStream_t stream) {
  const dim3 block(16, 16);
  const dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  conv2d_global_kernel<<<grid, block, 0, stream>>>(img, mask, out, w, h, radius);
  CUDA_CHECK(cudaGetLastError());
}

void make_texture(TextureState& state, const float* host_img, int w, int h,
                  cudaTextureAddressMode mode, cudaTextureFilterMode filter, int normalized) {
  state.reset();
  cudaChannelFormatDesc desc = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
  cudaArray_t array = nullptr;
  CUDA_CHECK(cudaMallocArray(&array, &desc, w, h));
  state.array.reset(array);
  CUDA_CHECK(cudaMemcpy2DToArray(array, 0, 0, host_img, w * sizeof(float), w * sizeof(float), h,
                                 cudaMemcpyHostToDevice));
  cudaResourceDesc res = {};
  res.resType = cudaResourceTypeArray;
  res.res.array.array = array;
  cudaTextureDesc tex = {};
  tex.addressMode[0] = mode;
  tex.addressMode[1] = mode;
  tex.filterMode = filter;
  tex.readMode = cudaReadModeElementType;
  tex.normalizedCoords = normalized;
  cudaTextureObject_t object = 0;
  CUDA_CHECK(cudaCreateTextureObject(&object, &res, &tex, nullptr));
  state.texture.reset(object);
  state.width = w;
  state.height = h;
}

void prepare_texture(const float* host_img, int w, int h) {
  make_texture(conv_state(), host_img, w, h, cudaAddressModeClamp, cudaFilterModePoint, 0);
}

__global__ void conv2d_texture_kernel(cudaTextureObject_t tex, const float* mask, float* out, int w,
                                      int h, int radius) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const int side = 2 * radius + 1;
  float sum = 0.0f;
  for (int dy = -radius; dy <= radius; ++dy)
    for (int dx = -radius; dx <= radius; ++dx)
      sum += mask[(dy + radius) * side + dx + radius] *
             tex2D<float>(tex, x + dx + 0.5f, y + dy + 0.5f);
  out[y * w + x] = sum;
}

void conv2d_texture(const float* mask, float* out, int w, int h, int radius, cudaStream_t stream) {
  const dim3 block(16, 16);
  const dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  conv2d_texture_kernel<<<grid, block, 0, stream>>>(conv_state().texture.get(), mask, out, w, h,
                                                    radius);
  CUDA_CHECK(cudaGetLastError());
}

void prepare_rotation(const float* host_img, int w, int h, cudaTextureAddressMode mode) {
  make_texture(rotation_state(), host_img, w, h, mode, cudaFilterModeLinear, 1);
}

__global__ void rotate_kernel(cudaTextureObject_t tex, float* out, int w, int h, float theta) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const float u = (x + 0.5f) / w - 0.5f;
  const float v = (y + 0.5f) / h - 0.5f;
  const float tu = u * cosf(theta) + v * sinf(theta) + 0.5f;
  const float tv = -u * sinf(theta) + v * cosf(theta) + 0.5f;
  out[y * w + x] = tex2D<float>(tex, tu, tv);
}

void rotate(float* out, int w, int h, float theta, cudaStream_t stream) {
  const dim3 block(16, 16);
  const dim3 grid((w + block.x - 1) / block.x, (h + block.y - 1) / block.y);
  rotate_kernel<<<grid, block, 0, stream>>>(rotation_state().texture.get(), out, w, h, theta);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab05
