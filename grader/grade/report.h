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
  // The repository the build was made from: in what a student gets (the Gradescope results),
  // paths under it are shown relative to it, never as the grading machine's paths.
  std::string source_dir;
  std::vector<LabResult> labs;
  double seconds = 0.0;  // wall time of the whole grade (the build not included)
  // Of it: the untimed checks, sanitizers and profiles (run `untimed_jobs` at once), then the
  // timed checks (alone).
  double untimed_seconds = 0.0;
  double timed_seconds = 0.0;
  int untimed_jobs = 1;  // untimed checks run this many at once (timed ones alone)
  double points() const;
  int max_points() const;
  bool failed() const;
  int count(const std::string& status) const;
};

std::string report_json(const GradeReport& report);
std::string gradescope_json(const GradeReport& report);

// One table per lab and a summary; ANSI colours only when `color`. Without a device, a GPU
// check's row says "no GPU" (the reason and what to do: no_device_notice, once at the top); the
// details of failed checks come once per distinct message, naming the checks that share it.
std::string lab_table(const LabResult& lab, bool color);
std::string summary_table(const GradeReport& report, bool color);

// Without a device, the top of a run: the reason once, and where the GPU checks can be graded.
std::string no_device_notice(const GradeReport& report, bool color);

// The message of each check of a lab whose student file does not compile: "not graded: SOURCE
// does not compile", then what the compiler said (`compiler_output`, as cmake/capture-compile.sh
// kept it; "" when there is none), its paths relative to `source_dir`, at most 40 lines.
// `source` is the file, relative to `source_dir` or absolute.
std::string not_compiled_message(const std::string& source, const std::string& compiler_output,
                                 const std::string& source_dir);

// `text` with every "<dir>/" removed (absolute paths of the grading machine made relative).
std::string relative_paths(std::string text, const std::string& dir);

// `text` with a block of lines that comes again right after itself kept once (a technique check
// that says the same of each architecture's PTX).
std::string without_repeats(const std::string& text);

}  // namespace cudalab::grade
