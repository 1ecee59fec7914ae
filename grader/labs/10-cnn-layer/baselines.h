// The cuDNN baseline of the lab 10 bench: cudnnConvolutionForward on NCHW float tensors, no
// padding, stride 1, cross-correlation (our formula), FP32 with the FMA math type (no TF32
// tensor cores), with the fastest algorithm cudnnFindConvolutionForwardAlgorithm reports and its
// workspace allocated once, outside the timed call. Only when the build found cuDNN.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "cnn_cpu.h"

namespace lab10::baseline {

// True when this build has cuDNN; otherwise `why` says what to do.
bool cudnn_available(std::string* why);

class CudnnConv {
 public:
  // Throws std::runtime_error with cuDNN's message when cuDNN is missing or fails. `k` is a
  // device pointer to the weights, kept for run().
  CudnnConv(const LayerShape& shape, const float* k);
  ~CudnnConv();
  CudnnConv(const CudnnConv&) = delete;
  CudnnConv& operator=(const CudnnConv&) = delete;

  void run(const float* x, float* y, cudaStream_t stream);
  const std::string& algorithm() const;  // e.g. "IMPLICIT_PRECOMP_GEMM"
  std::size_t workspace_bytes() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace lab10::baseline
