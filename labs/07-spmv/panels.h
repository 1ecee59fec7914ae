// Lab 07 reference only: SpMV in the column-sorted row panels of cudalab/sparse/formats.h
// (csr_to_panels), the reference's extra format for matrices whose columns are scattered. It is
// not one of the lab's formats: the students do not write it, the grader does not grade it, and
// the runner's --bench times it next to cuSPARSE (docs/labs/07-spmv.md, "Beyond the course's
// formats"). Its code is in the reference; this interface sits beside the lab's so that the
// runner, which calls the reference's, builds in the student release too (where the reference
// comes compiled).
//
// No include guard on purpose (see common/include/cudalab/impl.h); the structs have their own.
#include <cuda_runtime.h>

#include "cudalab/impl.h"

#ifndef LAB07_PANEL_VIEW
#define LAB07_PANEL_VIEW
namespace lab07 {

// Device arrays of a PanelMatrix.
struct PanelView {
  int rows = 0, cols = 0;
  int panels = 0;
  int parts = 1;                     // blocks (one cluster) per panel: 1, or 2 on sm_90 and newer
  int max_accumulators = 0;          // of the largest panel: its y is in shared memory
  const int* panel_row = nullptr;    // panels + 1
  const int* split_ptr = nullptr;    // panels + 1
  const int* split_row = nullptr;    // the long rows, within their panels
  const int* run_ptr = nullptr;      // panels * parts + 1
  const unsigned* packed = nullptr;  // run_ptr[panels * parts] slots
  const int* group_col = nullptr;    // one per 32 slots
  const float* val = nullptr;
};

// The arguments of csr_to_panels that suit the current device: as many panels (clusters of
// `parts` blocks) as it runs at once, and the most accumulators a block's shared memory holds.
struct PanelShape {
  int panels = 1, parts = 1, max_accumulators = 1;
};

}  // namespace lab07
#endif

namespace lab07 {
namespace CUDALAB_IMPL {

PanelShape panel_shape();

// y = A x for A in row panels. Same contract as the lab's functions (spmv.h): launches on
// `stream` only, writes every row of y. Throws std::invalid_argument when the panels need more
// shared memory than a block gets, or parts other than 1 (any GPU) or 2 (sm_90 and newer).
void spmv_panels(const PanelView& a, const float* x, float* y, cudaStream_t stream);

}  // namespace CUDALAB_IMPL
}  // namespace lab07
