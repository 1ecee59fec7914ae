// Error handling for CUDA calls: CUDA_CHECK(expr) throws cudalab::CudaError naming the failing
// expression, the file and line, and the CUDA error. It throws rather than exits so that a test
// runner or a grader survives a failing kernel and reports it as one failed check.
#pragma once

#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

namespace cudalab {

class CudaError : public std::runtime_error {
 public:
  CudaError(cudaError_t code, const std::string& what) : std::runtime_error(what), code_(code) {}
  cudaError_t code() const { return code_; }

 private:
  cudaError_t code_;
};

// Builds the message: "<expr> failed at <file>:<line>: <cudaErrorName>: <description>".
std::string cuda_error_message(cudaError_t code, const char* expr, const char* file, int line);

[[noreturn]] void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line);

}  // namespace cudalab

#define CUDA_CHECK(expr)                                                       \
  do {                                                                         \
    const cudaError_t cudalab_status_ = (expr);                                \
    if (cudalab_status_ != cudaSuccess)                                        \
      ::cudalab::throw_cuda_error(cudalab_status_, #expr, __FILE__, __LINE__); \
  } while (0)
