#include "cudalab/check.h"

namespace cudalab {

std::string cuda_error_message(cudaError_t code, const char* expr, const char* file, int line) {
  return std::string(expr) + " failed at " + file + ":" + std::to_string(line) + ": " +
         cudaGetErrorName(code) + ": " + cudaGetErrorString(code);
}

void throw_cuda_error(cudaError_t code, const char* expr, const char* file, int line) {
  throw CudaError(code, cuda_error_message(code, expr, file, line));
}

}  // namespace cudalab
