#include "baselines.h"

#include <stdexcept>

#include "cudalab/check.h"
#include "cudalab/device_buffer.h"

#if defined(CUDALAB_HAVE_CUDNN)
#include "cudnn_util.h"
#endif

namespace lab10::baseline {

#if defined(CUDALAB_HAVE_CUDNN)

using cudalab::grade::cudnn_algorithm_name;
using cudalab::grade::cudnn_check;

struct CudnnConv::State {
  cudnnHandle_t handle = nullptr;
  cudnnTensorDescriptor_t x_desc = nullptr, y_desc = nullptr;
  cudnnFilterDescriptor_t k_desc = nullptr;
  cudnnConvolutionDescriptor_t conv_desc = nullptr;
  cudnnConvolutionFwdAlgo_t algo{};
  std::string algo_name;
  const float* k = nullptr;
  cudalab::DeviceBuffer<unsigned char> workspace;
  std::size_t workspace_bytes = 0;
  ~State() {
    if (conv_desc) cudnnDestroyConvolutionDescriptor(conv_desc);
    if (k_desc) cudnnDestroyFilterDescriptor(k_desc);
    if (y_desc) cudnnDestroyTensorDescriptor(y_desc);
    if (x_desc) cudnnDestroyTensorDescriptor(x_desc);
    if (handle) cudnnDestroy(handle);
  }
};

bool cudnn_available(std::string*) {
  return true;
}

CudnnConv::CudnnConv(const LayerShape& s, const float* k) : state_(std::make_unique<State>()) {
  State& st = *state_;
  st.k = k;
  cudnn_check(cudnnCreate(&st.handle), "cudnnCreate");
  cudnn_check(cudnnCreateTensorDescriptor(&st.x_desc), "tensor descriptor");
  cudnn_check(cudnnCreateTensorDescriptor(&st.y_desc), "tensor descriptor");
  cudnn_check(cudnnCreateFilterDescriptor(&st.k_desc), "filter descriptor");
  cudnn_check(cudnnCreateConvolutionDescriptor(&st.conv_desc), "convolution descriptor");
  cudnn_check(cudnnSetTensor4dDescriptor(st.x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s.B, s.C,
                                         s.H, s.W),
              "input descriptor");
  cudnn_check(cudnnSetTensor4dDescriptor(st.y_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, s.B, s.M,
                                         s.ho(), s.wo()),
              "output descriptor");
  cudnn_check(cudnnSetFilter4dDescriptor(st.k_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, s.M, s.C,
                                         s.K, s.K),
              "filter descriptor");
  cudnn_check(cudnnSetConvolution2dDescriptor(st.conv_desc, 0, 0, 1, 1, 1, 1,
                                              CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
              "convolution descriptor");
  // FP32 arithmetic only: CUDNN_FMA_MATH excludes TF32 tensor-core math.
  cudnn_check(cudnnSetConvolutionMathType(st.conv_desc, CUDNN_FMA_MATH), "math type");

  // Let cuDNN time its algorithms on this problem (it allocates its own scratch buffers).
  cudalab::DeviceBuffer<float> x(s.x_count()), y(s.y_count());
  constexpr int kRequested = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  cudnnConvolutionFwdAlgoPerf_t perf[kRequested];
  int returned = 0;
  cudnn_check(cudnnFindConvolutionForwardAlgorithm(st.handle, st.x_desc, st.k_desc, st.conv_desc,
                                                   st.y_desc, kRequested, &returned, perf),
              "cudnnFindConvolutionForwardAlgorithm");
  bool found = false;
  for (int i = 0; i < returned && !found; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS || perf[i].mathType != CUDNN_FMA_MATH) continue;
    st.algo = perf[i].algo;
    st.workspace_bytes = perf[i].memory;
    found = true;
  }
  if (!found) throw std::runtime_error("cuDNN: no FP32 (FMA) forward algorithm for this problem");
  st.algo_name = cudnn_algorithm_name(st.algo);
  st.workspace =
      cudalab::DeviceBuffer<unsigned char>(st.workspace_bytes > 0 ? st.workspace_bytes : 1);
}

CudnnConv::~CudnnConv() = default;

void CudnnConv::run(const float* x, float* y, cudaStream_t stream) {
  State& st = *state_;
  cudnn_check(cudnnSetStream(st.handle, stream), "cudnnSetStream");
  const float alpha = 1.0f, beta = 0.0f;
  cudnn_check(cudnnConvolutionForward(st.handle, &alpha, st.x_desc, x, st.k_desc, st.k,
                                      st.conv_desc, st.algo, st.workspace.data(),
                                      st.workspace_bytes, &beta, st.y_desc, y),
              "cudnnConvolutionForward");
}

const std::string& CudnnConv::algorithm() const {
  return state_->algo_name;
}

std::size_t CudnnConv::workspace_bytes() const {
  return state_->workspace_bytes;
}

#else  // no cuDNN in this build

struct CudnnConv::State {
  std::string algo_name;
};

bool cudnn_available(std::string* why) {
  *why =
      "cuDNN was not found when this build was configured (set CUDALAB_CUDNN_ROOT to the folder "
      "holding include/cudnn.h and lib/libcudnn.so*, then configure again)";
  return false;
}

CudnnConv::CudnnConv(const LayerShape&, const float*) {
  std::string why;
  cudnn_available(&why);
  throw std::runtime_error(why);
}

CudnnConv::~CudnnConv() = default;

void CudnnConv::run(const float*, float*, cudaStream_t) {}

const std::string& CudnnConv::algorithm() const {
  return state_->algo_name;
}

std::size_t CudnnConv::workspace_bytes() const {
  return 0;
}

#endif

}  // namespace lab10::baseline
