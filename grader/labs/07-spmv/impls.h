// The implementations a lab-07 grader or runner links: the candidate (student's file, the
// solution, or a variant, chosen by the build) and the reference solution, each as an
// SpmvVariant.
#pragma once

#undef CUDALAB_IMPL
#define CUDALAB_IMPL candidate
#include "spmv.h"
#undef CUDALAB_IMPL
#define CUDALAB_IMPL reference
#include "spmv.h"
#undef CUDALAB_IMPL

#include "spmv_check.h"

namespace lab07 {

inline const SpmvVariant kCandidate{"student",
                                    &candidate::spmv_csr_scalar,
                                    &candidate::spmv_csr_vector,
                                    &candidate::spmv_ell,
                                    &candidate::spmv_coo,
                                    &candidate::spmv_hyb};
inline const SpmvVariant kReference{
    "reference",          &reference::spmv_csr_scalar, &reference::spmv_csr_vector,
    &reference::spmv_ell, &reference::spmv_coo,        &reference::spmv_hyb};

}  // namespace lab07
