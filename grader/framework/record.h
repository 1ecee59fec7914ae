// The record a grader writes for each check and the grade command reads back: one line per check,
// tab-separated, with \t, \n and \\ escaped. Plain text so the grade command needs no JSON parser.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace cudalab::grade {

struct CheckRecord {
  std::string name;
  std::string tags;  // "[lab01][correctness]"
  int points = 0;    // maximum
  double earned = 0.0;
  std::string status;  // passed | partial | failed | skipped | listed
  std::string message;
  std::map<std::string, double> measurements;
  // Wall time of the check's process(es), set by the grade command (not part of the record line).
  double seconds = 0.0;
};

std::string escape_field(const std::string& s);
std::string unescape_field(const std::string& s);

std::string format_record(const CheckRecord& r);
// Throws std::invalid_argument on a malformed line.
CheckRecord parse_record(const std::string& line);
// All records in a file; malformed lines throw.
std::vector<CheckRecord> read_records(const std::string& path);

}  // namespace cudalab::grade
