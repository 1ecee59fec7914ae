// Broken variant of lab 01 for the grader's own tests: correct results, but obtained by calling
// the reference solution, which is linked into the same grader. The student link check (the
// student's file linked alone) must refuse it.
// LINK-REJECT: undefined reference to .*lab01::reference::conv1d_basic
#include "conv1d_basic.h"

namespace lab01 {
namespace reference {
void conv1d_basic(const float* x, const float* mask, float* y, int width, int mask_width,
                  cudaStream_t stream);
}  // namespace reference

namespace CUDALAB_IMPL {

void conv1d_basic(const float* x, const float* mask, float* y, int width, int mask_width,
                  cudaStream_t stream) {
  reference::conv1d_basic(x, mask, y, width, mask_width, stream);  // BUG: not the student's work
}

}  // namespace CUDALAB_IMPL
}  // namespace lab01
