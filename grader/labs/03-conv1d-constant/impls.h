// The implementations a lab-03 grader or runner links: the candidate (student's file, the
// solution, or a variant, chosen by the build) and the reference solution. Each keeps its mask in
// its own __constant__ buffer (different namespaces), so both can be prepared and run side by side.
#pragma once

#undef CUDALAB_IMPL
#define CUDALAB_IMPL candidate
#include "conv1d_constant.h"
#undef CUDALAB_IMPL
#define CUDALAB_IMPL reference
#include "conv1d_constant.h"
#undef CUDALAB_IMPL

#include "conv1d_check.h"

namespace lab03 {

inline const conv1d::Conv1dVariant kCandidate{
    "student",
    [](const std::vector<float>& mask) {
      candidate::upload_mask(mask.data(), static_cast<int>(mask.size()));
    },
    [](const conv1d::Conv1dArgs& a, cudaStream_t s) {
      candidate::conv1d_constant(a.x, a.y, a.width, a.mask_width, s);
    }};
inline const conv1d::Conv1dVariant kReference{
    "reference",
    [](const std::vector<float>& mask) {
      reference::upload_mask(mask.data(), static_cast<int>(mask.size()));
    },
    [](const conv1d::Conv1dArgs& a, cudaStream_t s) {
      reference::conv1d_constant(a.x, a.y, a.width, a.mask_width, s);
    }};

}  // namespace lab03
