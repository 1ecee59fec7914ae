// State of the graded check that is running, shared by grading.cpp and the listener.
#pragma once

#include <map>
#include <string>

namespace cudalab::grade {

struct CheckState {
  int points = 0;
  bool listed = false;
  bool skipped = false;
  std::string skip_reason;
  double credit = 1.0;
  std::map<std::string, double> measurements;
  std::string notes;
  std::string failures;  // messages of failed assertions, in order
};

CheckState& current_check();
bool listing_only();

}  // namespace cudalab::grade
