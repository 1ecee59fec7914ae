// Baselines for the lab 04 bench: a naive 2D kernel and cuDNN.
//   naive   one thread per output value, every input and mask value read from global memory
//           (through the caches): what the course's tiling improves on;
//   cuDNN   cudnnConvolutionForward on one image, one channel, FP32 with the FMA math type (no
//           TF32), zero padding R, cross-correlation (our formula), with the fastest algorithm
//           cudnnFindConvolutionForwardAlgorithm reports. Only when the build found cuDNN.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

#include "conv2d_check.h"

namespace lab04::baseline {

// The naive kernel as a Conv2dVariant (it keeps its mask in a device buffer).
extern const Conv2dVariant kNaive;

// True when this build has cuDNN; otherwise `why` says what to do.
bool cudnn_available(std::string* why);

// cuDNN forward convolution of a single-channel float image with a fixed mask.
class CudnnConv2d {
 public:
  // Throws std::runtime_error with cuDNN's message when cuDNN is missing or fails.
  CudnnConv2d(int width, int height, const std::vector<float>& mask, int mask_width);
  ~CudnnConv2d();
  CudnnConv2d(const CudnnConv2d&) = delete;
  CudnnConv2d& operator=(const CudnnConv2d&) = delete;

  void run(const float* in, float* out, cudaStream_t stream);
  const std::string& algorithm() const;  // e.g. "IMPLICIT_PRECOMP_GEMM"

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace lab04::baseline
