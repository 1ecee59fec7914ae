// The profile of a performance case (docs/grading.md, "Profile of the performance case"): what the
// candidate's kernels and the reference's executed on the check's case, per output element, read
// from the GPU's performance counters. A lab's grader measures one side per run
// (perf.cpp, CUDALAB_PROFILE); the grade command puts the two side by side in one line.
#pragma once

#include <map>
#include <string>

namespace cudalab::grade {

// The keys of a profile's figures, as the JSON report's measurements name them:
// "profile_<side>_<key>", side "candidate" or "reference", key one of dram_bytes, global_ld,
// global_ld_sectors, shared_ld, shared_st, shared_bank_conflicts, texture, constant_ld,
// global_atom, occupancy_pct.
std::string profile_measurement(const std::string& side, const std::string& key);

// The figures of one side, per output element, from what its kernels executed (summed over their
// launches; keys of grader/serve/counters.h, "launches" counting them) and the case's outputs.
std::map<std::string, double> profile_figures(const std::string& side,
                                              std::map<std::string, double> sums, double outputs);

// "profile, per output element (...): DRAM bytes 8.06 (reference 7.98), ..." from the two sides'
// figures (the measurements of both runs); "" when either side's are missing.
std::string profile_line(const std::map<std::string, double>& measurements);

}  // namespace cudalab::grade
