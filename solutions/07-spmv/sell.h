// Lab 07 reference only: SpMV in the sliced ELL (SELL) layout of cudalab/sparse/formats.h
// (csr_to_sell), the reference's extra format for irregular row lengths. It is not one of the
// lab's formats: the students do not write it, the grader does not grade it, and the runner's
// --bench times it next to cuSPARSE (docs/labs/07-spmv.md, "Beyond the course's formats").
//
// No include guard on purpose (see common/include/cudalab/impl.h); the view has its own.
#include <cuda_runtime.h>

#include "cudalab/impl.h"

#ifndef LAB07_SELL_VIEW
#define LAB07_SELL_VIEW
namespace lab07 {

// Device arrays of a SellMatrix.
struct SellView {
  int rows = 0, cols = 0;
  int window = 0;                     // rows per window (at most kMaxSellWindow)
  int windows = 0;                    // ceil(rows / window)
  const int* window_slice = nullptr;  // windows + 1
  const int* slice_ptr = nullptr;     // slices + 1
  const short* lane_row = nullptr;    // 32 per slice; -1 for an unused lane
  const int* col_idx = nullptr;       // slice_ptr[slices] slots
  const float* val = nullptr;         // slice_ptr[slices] slots
};

// A window's y lives in shared memory: 4 bytes per row.
inline constexpr int kMaxSellWindow = 4096;

}  // namespace lab07
#endif

namespace lab07 {
namespace CUDALAB_IMPL {

// y = A x for A in SELL. Same contract as the lab's functions (spmv.h): launches on `stream`
// only, writes every row of y. Throws std::invalid_argument for a window outside
// [1, kMaxSellWindow].
void spmv_sell(const SellView& a, const float* x, float* y, cudaStream_t stream);

}  // namespace CUDALAB_IMPL
}  // namespace lab07
