// Reading compute-sanitizer's output. Its exit code is not enough: racecheck reports a missing
// barrier as "Warning: Race reported ...", which leaves the exit code at 0.
#pragma once

#include <string>

namespace cudalab::grade {

// True when the output reports any hazard or error: a "Race reported" line, or a
// "... SUMMARY: N ..." line with N > 0 (ERROR SUMMARY, RACECHECK SUMMARY, ...).
bool sanitizer_reported_hazards(const std::string& output);

}  // namespace cudalab::grade
