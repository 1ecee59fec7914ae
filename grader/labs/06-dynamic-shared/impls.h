// The implementations a lab-06 grader or runner links: the candidate (student's file, the
// solution, or a variant, chosen by the build) and the reference solution, each as a
// ReverseVariant (part 1) and, for a given tile width, a conv1d::Conv1dVariant (part 2).
#pragma once

#undef CUDALAB_IMPL
#define CUDALAB_IMPL candidate
#include "dynamic_shared.h"
#undef CUDALAB_IMPL
#define CUDALAB_IMPL reference
#include "dynamic_shared.h"
#undef CUDALAB_IMPL

#include "conv1d_check.h"
#include "reverse_check.h"

namespace lab06 {

inline const ReverseVariant kCandidateReverse{"student", &candidate::reverse};
inline const ReverseVariant kReferenceReverse{"reference", &reference::reverse};

// conv1d_dynamic with a fixed tile width; 0 lets the implementation choose.
inline conv1d::Conv1dVariant candidate_conv(int tile_width) {
  return {"student", nullptr, [tile_width](const conv1d::Conv1dArgs& a, cudaStream_t s) {
            candidate::conv1d_dynamic(a.x, a.mask, a.y, a.width, a.mask_width, tile_width, s);
          }};
}
inline conv1d::Conv1dVariant reference_conv(int tile_width) {
  return {"reference", nullptr, [tile_width](const conv1d::Conv1dArgs& a, cudaStream_t s) {
            reference::conv1d_dynamic(a.x, a.mask, a.y, a.width, a.mask_width, tile_width, s);
          }};
}

}  // namespace lab06
