#include "baselines.h"

#include <stdexcept>

#include "conv2d.h"
#include "cudalab/check.h"
#include "cudalab/device_buffer.h"

#if defined(CUDALAB_HAVE_CUDNN)
#include "cudnn_util.h"
#endif

namespace lab04::baseline {

namespace {

__global__ void naive_kernel(const float* in, const float* mask, float* out, int width, int height,
                             int channels, int mask_width) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;  // value in the row
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  const int row_values = width * channels;
  if (x >= row_values || y >= height) return;
  const int r = mask_width / 2;
  float sum = 0.0f;
  for (int dy = -r; dy <= r; ++dy) {
    const int yy = y + dy;
    if (yy < 0 || yy >= height) continue;
    for (int dx = -r; dx <= r; ++dx) {
      const int xx = x + dx * channels;
      if (xx < 0 || xx >= row_values) continue;
      sum += mask[(dy + r) * mask_width + (dx + r)] *
             in[static_cast<std::size_t>(yy) * row_values + xx];
    }
  }
  out[static_cast<std::size_t>(y) * row_values + x] = sum;
}

struct NaiveState {
  cudalab::DeviceBuffer<float> mask{static_cast<std::size_t>(kMaxMaskWidth) * kMaxMaskWidth};
  int mask_width = 0;
};

NaiveState& naive_state() {
  static NaiveState* state = new NaiveState();  // never destroyed: see lab 05's texture state
  return *state;
}

void naive_set_mask(const float* host_mask, int mask_width) {
  if (mask_width < 1 || mask_width > kMaxMaskWidth || mask_width % 2 == 0)
    throw std::invalid_argument("naive set_mask: bad mask width");
  CUDA_CHECK(cudaMemcpy(naive_state().mask.data(), host_mask,
                        sizeof(float) * mask_width * mask_width, cudaMemcpyHostToDevice));
  naive_state().mask_width = mask_width;
}

void naive_conv2d(const float* in, float* out, int width, int height, int channels,
                  cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((width * channels + 31) / 32, (height + 7) / 8);
  naive_kernel<<<grid, block, 0, stream>>>(in, naive_state().mask.data(), out, width, height,
                                           channels, naive_state().mask_width);
  CUDA_CHECK(cudaGetLastError());
}

void naive_conv2d_8bit(const unsigned char*, unsigned char*, int, int, int, cudaStream_t) {
  throw std::logic_error("the naive baseline has no 8-bit variant");
}

}  // namespace

const Conv2dVariant kNaive{"naive (global memory)", &naive_set_mask, &naive_conv2d,
                           &naive_conv2d_8bit};

#if defined(CUDALAB_HAVE_CUDNN)

using cudalab::grade::cudnn_algorithm_name;
using cudalab::grade::cudnn_check;

struct CudnnConv2d::State {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t in_desc = nullptr, out_desc = nullptr;
  cudnnFilterDescriptor_t filter_desc = nullptr;
  cudnnConvolutionDescriptor_t conv_desc = nullptr;
  cudnnConvolutionFwdAlgo_t algo{};
  std::string algo_name;
  cudalab::DeviceBuffer<float> filter;
  cudalab::DeviceBuffer<unsigned char> workspace;
  std::size_t workspace_bytes = 0;
  ~State() {
    if (conv_desc) cudnnDestroyConvolutionDescriptor(conv_desc);
    if (filter_desc) cudnnDestroyFilterDescriptor(filter_desc);
    if (out_desc) cudnnDestroyTensorDescriptor(out_desc);
    if (in_desc) cudnnDestroyTensorDescriptor(in_desc);
    if (handle) cudnnDestroy(handle);
  }
};

bool cudnn_available(std::string*) {
  return true;
}

CudnnConv2d::CudnnConv2d(int width, int height, const std::vector<float>& mask, int mask_width)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  const int r = mask_width / 2;
  cudnn_check(cudnnCreate(&s.handle), "cudnnCreate");
  cudnn_check(cudnnCreateTensorDescriptor(&s.in_desc), "tensor descriptor");
  cudnn_check(cudnnCreateTensorDescriptor(&s.out_desc), "tensor descriptor");
  cudnn_check(cudnnCreateFilterDescriptor(&s.filter_desc), "filter descriptor");
  cudnn_check(cudnnCreateConvolutionDescriptor(&s.conv_desc), "convolution descriptor");
  cudnn_check(cudnnSetTensor4dDescriptor(s.in_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1,
                                         height, width),
              "input descriptor");
  cudnn_check(cudnnSetTensor4dDescriptor(s.out_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 1,
                                         height, width),
              "output descriptor");
  cudnn_check(cudnnSetFilter4dDescriptor(s.filter_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 1, 1,
                                         mask_width, mask_width),
              "filter descriptor");
  cudnn_check(cudnnSetConvolution2dDescriptor(s.conv_desc, r, r, 1, 1, 1, 1,
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "convolution descriptor");
  // FP32 arithmetic only: CUDNN_FMA_MATH excludes TF32 tensor-core math.
  cudnn_check(cudnnSetConvolutionMathType(s.conv_desc, CUDNN_FMA_MATH), "math type");
  s.filter = cudalab::DeviceBuffer<float>(mask);

  // Let cuDNN time its algorithms on this problem (it allocates its own scratch buffers).
  cudalab::DeviceBuffer<float> in(static_cast<std::size_t>(width) * height),
      out(static_cast<std::size_t>(width) * height);
  constexpr int kRequested = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  cudnnConvolutionFwdAlgoPerf_t perf[kRequested];
  int returned = 0;
  cudnn_check(cudnnFindConvolutionForwardAlgorithm(s.handle, s.in_desc, s.filter_desc, s.conv_desc,
                                                   s.out_desc, kRequested, &returned, perf),
              "cudnnFindConvolutionForwardAlgorithm");
  bool found = false;
  for (int i = 0; i < returned && !found; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].mathType != CUDNN_FMA_MATH) continue;
    s.algo = perf[i].algo;
    s.workspace_bytes = perf[i].memory;
    found = true;
  }
  if (!found) throw std::runtime_error("cuDNN: no FP32 (FMA) forward algorithm for this problem");
  s.algo_name = cudnn_algorithm_name(s.algo);
  s.workspace = cudalab::DeviceBuffer<unsigned char>(s.workspace_bytes > 0 ? s.workspace_bytes : 1);
}

CudnnConv2d::~CudnnConv2d() = default;

void CudnnConv2d::run(const float* in, float* out, cudaStream_t stream) {
  State& s = *state_;
  cudnn_check(cudnnSetStream(s.handle, stream), "cudnnSetStream");
  const float alpha = 1.0f, beta = 0.0f;
  cudnn_check(cudnnConvolutionForward(s.handle, &alpha, s.in_desc, in, s.filter_desc,
                                      s.filter.data(), s.conv_desc, s.algo, s.workspace.data(),
                                      s.workspace_bytes, &beta, s.out_desc, out),
              "cudnnConvolutionForward");
}

const std::string& CudnnConv2d::algorithm() const {
  return state_->algo_name;
}

#else  // no cuDNN in this build

struct CudnnConv2d::State {
  std::string algo_name;
};

bool cudnn_available(std::string* why) {
  *why =
      "cuDNN was not found when this build was configured (set CUDALAB_CUDNN_ROOT to the folder "
      "holding include/cudnn.h and lib/libcudnn.so*, then configure again)";
  return false;
}

CudnnConv2d::CudnnConv2d(int, int, const std::vector<float>&, int) {
  std::string why;
  cudnn_available(&why);
  throw std::runtime_error(why);
}

CudnnConv2d::~CudnnConv2d() = default;

void CudnnConv2d::run(const float*, float*, cudaStream_t) {}

const std::string& CudnnConv2d::algorithm() const {
  return state_->algo_name;
}

#endif

}  // namespace lab04::baseline
