// Small helpers for the cuDNN baselines of the benches (labs 04 and 10). Include only where
// CUDALAB_HAVE_CUDNN is defined (the build found cuDNN: cmake/Dependencies.cmake).
#pragma once

#include <cudnn.h>

#include <stdexcept>
#include <string>

namespace cudalab::grade {

// Throws std::runtime_error("cuDNN: <what>: <cuDNN's message>") unless `status` is a success.
inline void cudnn_check(cudnnStatus_t status, const char* what) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuDNN: ") + what + ": " + cudnnGetErrorString(status));
}

// The name of a forward-convolution algorithm, for the bench tables ("IMPLICIT_PRECOMP_GEMM").
inline const char* cudnn_algorithm_name(cudnnConvolutionFwdAlgo_t a) {
  switch (a) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM: return "IMPLICIT_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM: return "IMPLICIT_PRECOMP_GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM: return "GEMM";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT: return "DIRECT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT: return "FFT";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING: return "FFT_TILING";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD: return "WINOGRAD";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED: return "WINOGRAD_NONFUSED";
    default: return "other";
  }
}

}  // namespace cudalab::grade
