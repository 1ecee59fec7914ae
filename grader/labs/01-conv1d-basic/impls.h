// The implementations a lab-01 grader or runner links: the candidate (student's file, the
// solution, or a broken variant, chosen by the build) and the reference solution.
#pragma once

#undef CUDALAB_IMPL
#define CUDALAB_IMPL candidate
#include "conv1d_basic.h"
#undef CUDALAB_IMPL
#define CUDALAB_IMPL reference
#include "conv1d_basic.h"
#undef CUDALAB_IMPL

#include "baselines.h"
