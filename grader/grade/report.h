// Grade results for people (console tables) and machines (JSON report, Gradescope results.json).
// The JSON schema is documented in docs/grading.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "record.h"

namespace cudalab::grade {

struct LabResult {
  std::string id;    // "01"
  std::string name;  // "conv1d-basic"
  std::vector<CheckRecord> checks;
  // The lab's audit and listing plus its checks' processes (untimed checks run in parallel, also
  // with other labs': the labs' seconds may add up to more than the run's wall time).
  double seconds = 0.0;
  double points() const;
  int max_points() const;
  bool failed() const;  // a check worth points failed
};

struct GradeReport {
  std::string target;  // "student" or "solutions"
  std::uint64_t seed = 0;
  std::string generated_at;  // ISO 8601, UTC
  bool has_device = false;
  std::string device_name;  // "" without a device
  std::size_t device_memory_bytes = 0;
  std::string no_device_reason;
  std::string sandbox;  // what the checks ran in: "bubblewrap: ..." or "none: <why>"
  std::vector<LabResult> labs;
  double seconds = 0.0;  // wall time of the whole grade (the build not included)
  int untimed_jobs = 1;  // untimed checks run this many at once (timed ones alone)
  double points() const;
  int max_points() const;
  bool failed() const;
  int count(const std::string& status) const;
};

std::string report_json(const GradeReport& report);
std::string gradescope_json(const GradeReport& report);

// One table per lab and a summary; ANSI colours only when `color`.
std::string lab_table(const LabResult& lab, bool color);
std::string summary_table(const GradeReport& report, bool color);

}  // namespace cudalab::grade
