// The vendor baseline of the lab 07 bench: cuSPARSE's generic SpMV on the CSR matrix
// (cusparseCreateCsr + cusparseSpMV, CUSPARSE_SPMV_ALG_DEFAULT, FP32 in and out, alpha 1,
// beta 0), with its work buffer sized by cusparseSpMV_bufferSize and allocated once, and
// cusparseSpMV_preprocess run once where the toolkit has it (cuSPARSE 12.3+, CUDA 12.4+).
// "Kernel 0" of the bench: every result reads as a share of it.
#pragma once

#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "spmv.h"

namespace lab07::baseline {

class CusparseCsr {
 public:
  // Binds the descriptors to the device arrays of `a`, x (a.cols floats) and y (a.rows floats).
  // Throws std::runtime_error with cuSPARSE's message on failure.
  CusparseCsr(const CsrView& a, const float* x, float* y);
  ~CusparseCsr();
  CusparseCsr(const CusparseCsr&) = delete;
  CusparseCsr& operator=(const CusparseCsr&) = delete;

  // y = A x on `stream`.
  void run(cudaStream_t stream);
  std::string description() const;  // "cuSPARSE 12.6.3 SpMV CSR (ALG_DEFAULT)"

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace lab07::baseline
