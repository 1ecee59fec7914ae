// The implementations a lab-08 grader or runner links: the candidate (student's file, the
// solution, or a variant, chosen by the build) and the reference solution, each as a BfsVariant.
#pragma once

#undef CUDALAB_IMPL
#define CUDALAB_IMPL candidate
#include "bfs.h"
#undef CUDALAB_IMPL
#define CUDALAB_IMPL reference
#include "bfs.h"
#undef CUDALAB_IMPL

#include "bfs_check.h"

namespace lab08 {

inline const BfsVariant kCandidate{"student", &candidate::bfs_edge_parallel,
                                   &candidate::bfs_frontier, &candidate::bfs_direction_optimizing};
inline const BfsVariant kReference{"reference", &reference::bfs_edge_parallel,
                                   &reference::bfs_frontier, &reference::bfs_direction_optimizing};

}  // namespace lab08
