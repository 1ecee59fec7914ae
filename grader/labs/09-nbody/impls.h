// The implementations a lab-09 grader or runner links: the candidate (student's file, the
// solution, or a variant, chosen by the build) and the reference solution, each as an
// NbodyVariant; and the reference's kernels one by one (reference_kernels.h).
#pragma once

#undef CUDALAB_IMPL
#define CUDALAB_IMPL candidate
#include "nbody.h"
#undef CUDALAB_IMPL
#define CUDALAB_IMPL reference
#include "nbody.h"
#include "reference_kernels.h"  // each of the reference's kernels on demand (its self-check)
#undef CUDALAB_IMPL

#include "nbody_check.h"

namespace lab09 {

inline const NbodyVariant kCandidate{"student", &candidate::accelerations_naive,
                                     &candidate::accelerations_tiled, &candidate::leapfrog_step};
inline const NbodyVariant kReference{"reference", &reference::accelerations_naive,
                                     &reference::accelerations_tiled, &reference::leapfrog_step};

}  // namespace lab09
