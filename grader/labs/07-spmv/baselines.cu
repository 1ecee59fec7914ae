#include "baselines.h"

#include <cusparse.h>

#include <stdexcept>

#include "cudalab/check.h"
#include "cudalab/device_buffer.h"

namespace lab07::baseline {

namespace {

void cusparse_check(cusparseStatus_t status, const char* what) {
  if (status != CUSPARSE_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cuSPARSE: ") + what + ": " +
                             cusparseGetErrorString(status));
}

}  // namespace

struct CusparseCsr::State {
  cusparseHandle_t handle = nullptr;
  cusparseSpMatDescr_t matrix = nullptr;
  cusparseDnVecDescr_t x = nullptr, y = nullptr;
  cudalab::DeviceBuffer<unsigned char> buffer;
  float alpha = 1.0f, beta = 0.0f;
};

CusparseCsr::CusparseCsr(const CsrView& a, const float* x, float* y)
    : state_(std::make_unique<State>()) {
  State& s = *state_;
  cusparse_check(cusparseCreate(&s.handle), "cusparseCreate");
  cusparse_check(
      cusparseCreateCsr(&s.matrix, a.rows, a.cols, a.nnz, const_cast<int*>(a.row_ptr),
                        const_cast<int*>(a.col_idx), const_cast<float*>(a.val), CUSPARSE_INDEX_32I,
                        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
      "cusparseCreateCsr");
  cusparse_check(cusparseCreateDnVec(&s.x, a.cols, const_cast<float*>(x), CUDA_R_32F),
                 "cusparseCreateDnVec(x)");
  cusparse_check(cusparseCreateDnVec(&s.y, a.rows, y, CUDA_R_32F), "cusparseCreateDnVec(y)");
  std::size_t bytes = 0;
  cusparse_check(
      cusparseSpMV_bufferSize(s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &s.alpha, s.matrix, s.x,
                              &s.beta, s.y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes),
      "cusparseSpMV_bufferSize");
  s.buffer = cudalab::DeviceBuffer<unsigned char>(bytes > 0 ? bytes : 1);
#if defined(CUSPARSE_VERSION) && CUSPARSE_VERSION >= 12300
  cusparse_check(
      cusparseSpMV_preprocess(s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &s.alpha, s.matrix, s.x,
                              &s.beta, s.y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, s.buffer.data()),
      "cusparseSpMV_preprocess");
#endif
  CUDA_CHECK(cudaDeviceSynchronize());
}

CusparseCsr::~CusparseCsr() {
  State& s = *state_;
  if (s.y != nullptr) cusparseDestroyDnVec(s.y);
  if (s.x != nullptr) cusparseDestroyDnVec(s.x);
  if (s.matrix != nullptr) cusparseDestroySpMat(s.matrix);
  if (s.handle != nullptr) cusparseDestroy(s.handle);
}

void CusparseCsr::run(cudaStream_t stream) {
  State& s = *state_;
  cusparse_check(cusparseSetStream(s.handle, stream), "cusparseSetStream");
  cusparse_check(cusparseSpMV(s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &s.alpha, s.matrix, s.x,
                              &s.beta, s.y, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, s.buffer.data()),
                 "cusparseSpMV");
}

std::string CusparseCsr::description() const {
  return "cuSPARSE " + std::to_string(CUSPARSE_VER_MAJOR) + "." +
         std::to_string(CUSPARSE_VER_MINOR) + " SpMV CSR";
}

}  // namespace lab07::baseline
