#include "record.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cudalab::grade {

std::string escape_field(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      continue;
    else
      out += c;
  }
  return out;
}

std::string unescape_field(const std::string& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    if (++i == s.size()) throw std::invalid_argument("dangling escape in record");
    switch (s[i]) {
      case '\\': out += '\\'; break;
      case 't': out += '\t'; break;
      case 'n': out += '\n'; break;
      default: throw std::invalid_argument(std::string("unknown escape \\") + s[i] + " in record");
    }
  }
  return out;
}

namespace {
std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::string cur;
  for (const char c : s) {
    if (c == sep) {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}
}  // namespace

std::string format_record(const CheckRecord& r) {
  std::ostringstream m;
  m.precision(10);  // as earned points: the default 6 digits would truncate the figures
  bool first = true;
  for (const auto& [k, v] : r.measurements) {
    m << (first ? "" : ",") << k << "=" << v;
    first = false;
  }
  std::ostringstream out;
  out.precision(10);
  out << "check\t" << escape_field(r.name) << "\t" << escape_field(r.tags) << "\t" << r.points
      << "\t" << r.earned << "\t" << r.status << "\t" << escape_field(r.message) << "\t"
      << escape_field(m.str());
  return out.str();
}

CheckRecord parse_record(const std::string& line) {
  const auto f = split(line, '\t');
  if (f.size() != 8 || f[0] != "check")
    throw std::invalid_argument("malformed check record (expected 8 tab-separated fields)");
  CheckRecord r;
  r.name = unescape_field(f[1]);
  r.tags = unescape_field(f[2]);
  char* end = nullptr;
  r.points = static_cast<int>(std::strtol(f[3].c_str(), &end, 10));
  if (f[3].empty() || *end != '\0') throw std::invalid_argument("malformed points in record");
  r.earned = std::strtod(f[4].c_str(), &end);
  if (f[4].empty() || *end != '\0')
    throw std::invalid_argument("malformed earned points in record");
  r.status = f[5];
  if (r.status != "passed" && r.status != "partial" && r.status != "failed" &&
      r.status != "skipped" && r.status != "listed")
    throw std::invalid_argument("unknown status '" + r.status + "' in record");
  r.message = unescape_field(f[6]);
  const std::string m = unescape_field(f[7]);
  if (!m.empty()) {
    for (const auto& kv : split(m, ',')) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0)
        throw std::invalid_argument("malformed measurement '" + kv + "' in record");
      char* value_end = nullptr;
      const double value = std::strtod(kv.c_str() + eq + 1, &value_end);
      if (eq + 1 == kv.size() || *value_end != '\0')
        throw std::invalid_argument("malformed measurement '" + kv + "' in record");
      r.measurements[kv.substr(0, eq)] = value;
    }
  }
  return r;
}

std::vector<CheckRecord> read_records(const std::string& path) {
  std::ifstream in(path);
  std::vector<CheckRecord> records;
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) records.push_back(parse_record(line));
  return records;
}

}  // namespace cudalab::grade
