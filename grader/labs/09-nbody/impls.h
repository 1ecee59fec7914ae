// The implementations a lab-09 grader or runner links: the candidate (student's file, the
// solution, or a variant, chosen by the build) and the reference solution, each as an
// NbodyVariant.
#pragma once

#undef CUDALAB_IMPL
#define CUDALAB_IMPL candidate
#include "nbody.h"
#undef CUDALAB_IMPL
#define CUDALAB_IMPL reference
#include "nbody.h"
#undef CUDALAB_IMPL

#include "nbody_check.h"

namespace lab09 {

inline const NbodyVariant kCandidate{"student", &candidate::accelerations_naive,
                                     &candidate::accelerations_tiled, &candidate::leapfrog_step};
inline const NbodyVariant kReference{"reference", &reference::accelerations_naive,
                                     &reference::accelerations_tiled, &reference::leapfrog_step};

}  // namespace lab09
