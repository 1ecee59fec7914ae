// The implementations a lab-10 grader or runner links: the candidate (student's file, the
// solution, or a variant, chosen by the build) and the reference solution, each as a CnnVariant.
#pragma once

#undef CUDALAB_IMPL
#define CUDALAB_IMPL candidate
#include "cnn_layer.h"
#undef CUDALAB_IMPL
#define CUDALAB_IMPL reference
#include "cnn_layer.h"
#undef CUDALAB_IMPL

#include "cnn_check.h"

namespace lab10 {

inline const CnnVariant kCandidate{"student", &candidate::prepare_weights,
                                   &candidate::conv_forward_direct, &candidate::conv_forward_fast};
inline const CnnVariant kReference{"reference", &reference::prepare_weights,
                                   &reference::conv_forward_direct, &reference::conv_forward_fast};

}  // namespace lab10
