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

inline const conv1d::Conv1dVariant kCandidate =
    conv1d::global_mask_variant("student", &candidate::conv1d_tiled);
inline const conv1d::Conv1dVariant kReference =
    conv1d::global_mask_variant("reference", &reference::conv1d_tiled);

}  // namespace lab02
