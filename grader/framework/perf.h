// The performance check: candidate and reference timed interleaved in this process on the same
// stream (cudalab::time_interleaved), credit from the ratio of medians (policy.h), and the
// roofline view recorded with the verdict.
#pragma once

#include <string>

#include "cudalab/timing.h"

namespace cudalab::grade {

struct Workload {
  std::string description;  // "width 2^26, mask 9"
  double bytes = 0.0;       // minimum DRAM traffic of one run (inputs read once + outputs written)
  double flops = 0.0;       // 0 when not meaningful
  bool flush_l2 = true;     // memory-bound work starts each sample with a cold L2
};

// Times both, records measurements, sets partial credit, and FAILs the check when the credit is
// zero. Validate the candidate's output on this workload BEFORE calling (correctness first).
void grade_performance(const std::string& lab, const Launch& candidate, const Launch& reference,
                       const Workload& work);

// The harness self-check: the reference against itself must give r in [0.9, 1.1].
void check_timing_harness(const Launch& reference, const Workload& work);

}  // namespace cudalab::grade
