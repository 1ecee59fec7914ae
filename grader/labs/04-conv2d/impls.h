// The implementations a lab-04 grader or runner links: the candidate (student's file, the
// solution, or a variant, chosen by the build) and the reference solution, each as a
// Conv2dVariant. Each keeps its mask in its own constant memory (different namespaces).
#pragma once

#undef CUDALAB_IMPL
#define CUDALAB_IMPL candidate
#include "conv2d.h"
#undef CUDALAB_IMPL
#define CUDALAB_IMPL reference
#include "conv2d.h"
#undef CUDALAB_IMPL

#include "conv2d_check.h"

namespace lab04 {

inline const Conv2dVariant kCandidate{"student", &candidate::set_mask, &candidate::conv2d,
                                      &candidate::conv2d_8bit};
inline const Conv2dVariant kReference{"reference", &reference::set_mask, &reference::conv2d,
                                      &reference::conv2d_8bit};

}  // namespace lab04
