// The implementations a lab-02 grader or runner links: the candidate (student's file, the
// solution, or a variant, chosen by the build) and the reference solution.
#pragma once

#undef CUDALAB_IMPL
#define CUDALAB_IMPL candidate
#include "conv1d_tiled.h"
#undef CUDALAB_IMPL
#define CUDALAB_IMPL reference
#include "conv1d_tiled.h"
#undef CUDALAB_IMPL

#include "conv1d_check.h"

namespace lab02 {

inline const conv1d::Conv1dVariant kCandidate{
    "student", nullptr, [](const conv1d::Conv1dArgs& a, cudaStream_t s) {
      candidate::conv1d_tiled(a.x, a.mask, a.y, a.width, a.mask_width, s);
    }};
inline const conv1d::Conv1dVariant kReference{
    "reference", nullptr, [](const conv1d::Conv1dArgs& a, cudaStream_t s) {
      reference::conv1d_tiled(a.x, a.mask, a.y, a.width, a.mask_width, s);
    }};

}  // namespace lab02
