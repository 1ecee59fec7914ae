#include "report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <utility>

#include "cudalab/json.h"
#include "process.h"

namespace cudalab::grade {

namespace {

bool counts_as_failure(const CheckRecord& c) {
  return c.points > 0 && c.status == "failed";
}

std::string first_line(const std::string& s) {
  return s.substr(0, s.find('\n'));
}

std::string fit(const std::string& s, std::size_t width) {
  return s.size() <= width ? s : s.substr(0, width - 3) + "...";
}

const char* colour_of(const std::string& status) {
  if (status == "passed") return "\033[32m";
  if (status == "partial") return "\033[33m";
  if (status == "failed") return "\033[31m";
  return "\033[36m";  // skipped
}

std::string status_word(const std::string& status) {
  if (status == "passed") return "PASS";
  if (status == "partial") return "PARTIAL";
  if (status == "failed") return "FAIL";
  if (status == "skipped") return "SKIP";
  return status;
}

std::string points_text(double earned, int max) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g/%d", earned, max);
  return buf;
}

// A GPU check skipped because there is no device (the grader's skip, or a sanitizer's).
bool skipped_for_no_device(const CheckRecord& c) {
  return c.status == "skipped" && c.message.rfind("no CUDA device", 0) == 0;
}

std::string joined_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) out += (i == 0 ? "" : "\n") + lines[i];
  return out;
}

// The failed checks of a lab, one entry per distinct message (without_repeats), in order: the
// message and the names of the checks that failed with it.
std::vector<std::pair<std::string, std::vector<std::string>>> failures_by_message(
    const LabResult& lab) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (const auto& c : lab.checks) {
    if (c.status != "failed") continue;
    const std::string message = without_repeats(c.message);
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const auto& g) { return g.first == message; });
    if (it == groups.end()) it = groups.insert(groups.end(), {message, {}});
    it->second.push_back(c.name);
  }
  return groups;
}

// "a, b and 3 more": the names, as many as fit in about 90 characters.
std::string names_text(const std::vector<std::string>& names, std::size_t of) {
  if (names.size() > 1 && names.size() == of) return "every check (" + std::to_string(of) + ")";
  std::string out;
  std::size_t i = 0;
  for (; i < names.size(); ++i) {
    const std::string next = (i == 0 ? "" : ", ") + names[i];
    if (i > 0 && out.size() + next.size() > 90) break;
    out += next;
  }
  if (i < names.size()) out += " and " + std::to_string(names.size() - i) + " more";
  return out;
}

}  // namespace

std::string relative_paths(std::string text, const std::string& dir) {
  if (dir.empty()) return text;
  const std::string prefix = dir.back() == '/' ? dir : dir + "/";
  for (std::size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at))
    text.erase(at, prefix.size());
  return text;
}

std::string without_repeats(const std::string& text) {
  const std::vector<std::string> lines = lines_of(text);
  std::vector<std::string> kept;
  std::size_t i = 0;
  while (i < lines.size()) {
    std::size_t repeat = 0;  // lines [i, i + repeat) are the last `repeat` lines kept
    for (std::size_t len = 1; len <= kept.size() && i + len <= lines.size(); ++len)
      if (std::equal(lines.begin() + static_cast<std::ptrdiff_t>(i),
                     lines.begin() + static_cast<std::ptrdiff_t>(i + len),
                     kept.end() - static_cast<std::ptrdiff_t>(len))) {
        repeat = len;
        break;
      }
    if (repeat > 0) {
      i += repeat;
    } else {
      kept.push_back(lines[i++]);
    }
  }
  return joined_lines(kept);
}

std::string not_compiled_message(const std::string& source, const std::string& compiler_output,
                                 const std::string& source_dir) {
  const std::string shown = relative_paths(source, source_dir);
  if (compiler_output.find("error") == std::string::npos)
    return "not graded: " + shown + " does not compile or link (its grader was not built)";
  std::string message = "not graded: " + shown + " does not compile";
  std::vector<std::string> lines = lines_of(relative_paths(compiler_output, source_dir));
  while (!lines.empty() && lines.back().find_first_not_of(" \t\r") == std::string::npos)
    lines.pop_back();
  const auto first = std::find_if(lines.begin(), lines.end(), [](const std::string& l) {
    return l.find_first_not_of(" \t\r") != std::string::npos;
  });
  lines.erase(lines.begin(), first);
  if (lines.empty()) return message;
  constexpr std::size_t kMaxLines = 40;
  const std::size_t more = lines.size() > kMaxLines ? lines.size() - kMaxLines : 0;
  lines.resize(std::min(lines.size(), kMaxLines));
  message += ":\n" + joined_lines(lines);
  if (more > 0) message += "\n... (" + std::to_string(more) + " more lines)";
  return message;
}

std::string no_device_notice(const GradeReport& r, bool color) {
  std::string reason = r.no_device_reason.empty() ? "no CUDA device" : r.no_device_reason;
  return std::string(color ? "\033[33m" : "") + "No GPU here: " + reason +
         ".\nThe host and technique checks run; every GPU check is SKIPPED and earns no points. "
         "To grade those:\n"
         "  - submit to your course's grading service, if it has one (your instructor says how);\n"
         "  - or grade on a cloud notebook with a GPU, e.g. a free T4 (docs/setup.md, \"Running "
         "on a cloud notebook\");\n"
         "  - or grade on a machine with an NVIDIA GPU (docs/setup.md, \"GPUs\")." +
         (color ? "\033[0m" : "") + "\n";
}

double LabResult::points() const {
  double sum = 0.0;
  for (const auto& c : checks) sum += c.earned;
  return sum;
}

int LabResult::max_points() const {
  int sum = 0;
  for (const auto& c : checks) sum += c.points;
  return sum;
}

bool LabResult::failed() const {
  for (const auto& c : checks)
    if (counts_as_failure(c)) return true;
  return false;
}

double GradeReport::points() const {
  double sum = 0.0;
  for (const auto& l : labs) sum += l.points();
  return sum;
}

int GradeReport::max_points() const {
  int sum = 0;
  for (const auto& l : labs) sum += l.max_points();
  return sum;
}

bool GradeReport::failed() const {
  for (const auto& l : labs)
    if (l.failed()) return true;
  return false;
}

int GradeReport::count(const std::string& status) const {
  int n = 0;
  for (const auto& l : labs)
    for (const auto& c : l.checks) n += c.status == status;
  return n;
}

std::string report_json(const GradeReport& r) {
  JsonWriter w;
  w.begin_object()
      .field("schema", "cudalab-grade-report/1")
      .field("generated_at", r.generated_at)
      .field("target", r.target)
      .field("seed", static_cast<std::int64_t>(r.seed));
  w.key("device");
  if (r.has_device)
    w.begin_object().field("name", r.device_name).end_object();
  else
    w.null();
  if (!r.has_device) w.field("no_device_reason", r.no_device_reason);
  w.field("sandbox", r.sandbox);
  w.field("seconds", r.seconds);
  w.field("untimed_jobs", static_cast<std::int64_t>(r.untimed_jobs));
  w.key("phases")
      .begin_object()
      .field("untimed_seconds", r.untimed_seconds)
      .field("timed_seconds", r.timed_seconds)
      .end_object();
  w.field("points", r.points()).field("max_points", r.max_points()).field("failed", r.failed());
  w.key("labs").begin_array();
  for (const auto& lab : r.labs) {
    w.begin_object()
        .field("lab", lab.id)
        .field("name", lab.name)
        .field("points", lab.points())
        .field("max_points", lab.max_points())
        .field("seconds", lab.seconds);
    w.key("checks").begin_array();
    for (const auto& c : lab.checks) {
      w.begin_object()
          .field("check", c.name)
          .field("tags", c.tags)
          .field("points", c.earned)
          .field("max", c.points)
          .field("status", c.status)
          .field("message", c.message)
          .field("seconds", c.seconds);
      w.key("measurements").begin_object();
      for (const auto& [k, v] : c.measurements) w.field(k, v);
      w.end_object().end_object();
    }
    w.end_array().end_object();
  }
  w.end_array().end_object();
  return w.str();
}

std::string gradescope_json(const GradeReport& r) {
  JsonWriter w;
  w.begin_object().field("score", r.points()).field("max_score", r.max_points());
  // What the student reads: no path of the grading machine; without a device, the reason and
  // what to do once, at the top; a long message that several checks of a lab share (the
  // compiler's errors) once, at the top, each of those checks naming it by its first line.
  std::string output = r.has_device ? "Graded on " + r.device_name : no_device_notice(r, false);
  while (!output.empty() && output.back() == '\n') output.pop_back();
  std::vector<std::string> hoisted;
  for (const auto& lab : r.labs)
    for (const auto& [message, names] : failures_by_message(lab))
      if (names.size() > 1 && message.find('\n') != std::string::npos) {
        output += "\n\nLab " + lab.id + " " + lab.name + ", " +
                  names_text(names, lab.checks.size()) + ":\n" + message;
        hoisted.push_back(message);
      }
  w.field("output", relative_paths(output, r.source_dir)).field("visibility", "visible");
  w.key("tests").begin_array();
  for (const auto& lab : r.labs) {
    for (const auto& c : lab.checks) {
      std::string text = c.status == "failed" ? without_repeats(c.message) : c.message;
      if (std::find(hoisted.begin(), hoisted.end(), text) != hoisted.end())
        text = first_line(text).substr(0, first_line(text).find_last_not_of(':') + 1) +
               " (in full at the top)";
      else if (skipped_for_no_device(c))
        text = "no GPU (see the top)";
      if (c.status == "skipped") text = "SKIPPED: " + text;
      w.begin_object()
          .field("name", "Lab " + lab.id + " " + lab.name + ": " + c.name)
          .field("score", c.earned)
          .field("max_score", c.points)
          .field("status", c.status == "passed" || c.status == "partial" ? "passed" : "failed")
          .field("output", relative_paths(text, r.source_dir))
          .end_object();
    }
  }
  w.end_array().end_object();
  return w.str();
}

std::string lab_table(const LabResult& lab, bool color) {
  std::ostringstream out;
  const char* reset = color ? "\033[0m" : "";
  out << "Lab " << lab.id << " " << lab.name << "\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %-44s %9s  %-8s %s\n", "check", "points", "status", "detail");
  out << line;
  for (const auto& c : lab.checks) {
    std::string detail = first_line(c.message);
    if (skipped_for_no_device(c)) detail = "no GPU (see the top)";
    if (c.status == "failed" && !detail.empty() && detail.back() == ':') detail.pop_back();
    if (c.status == "passed" || c.status == "partial") {
      // For a timed check, the measurement line reads better than the first note.
      if (auto it = c.measurements.find("ratio"); it != c.measurements.end()) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "r = %.3f", it->second);
        detail = buf;
        // The figure of the roofline that binds: bandwidth against the copy bandwidth, or
        // GFLOP/s against the FP32 peak, whichever share is larger (an N-body kernel moves a
        // few bytes; an SpMV does a few flops).
        const auto value = [&c](const char* key) {
          const auto found = c.measurements.find(key);
          return found == c.measurements.end() ? -1.0 : found->second;
        };
        const double gbs = value("candidate_gbs"), pct_copy = value("candidate_pct_copy");
        const double gflops = value("candidate_gflops"),
                     pct_peak = value("candidate_pct_fp32_peak");
        if (gflops >= 0 && pct_peak >= 0 && pct_peak > pct_copy) {
          std::snprintf(buf, sizeof buf, ", %.0f GFLOP/s (%.0f%% of FP32 peak)", gflops, pct_peak);
          detail += buf;
        } else if (gbs >= 0 && pct_copy >= 0) {
          std::snprintf(buf, sizeof buf, ", %.0f GB/s (%.0f%% of copy)", gbs, pct_copy);
          detail += buf;
        }
      }
    }
    const std::string pts =
        c.status == "skipped" ? "-/" + std::to_string(c.points) : points_text(c.earned, c.points);
    std::snprintf(line, sizeof line, "  %-44s %9s  %s%-8s%s %s\n", fit(c.name, 44).c_str(),
                  pts.c_str(), color ? colour_of(c.status) : "", status_word(c.status).c_str(),
                  reset, fit(detail, 100).c_str());
    out << line;
  }
  std::snprintf(line, sizeof line, "  %-44s %9s\n", "total",
                points_text(lab.points(), lab.max_points()).c_str());
  out << line;
  // Full messages of failed checks, indented, after the table: each once, with the checks that
  // failed with it.
  for (const auto& [message, names] : failures_by_message(lab)) {
    out << "\n  " << names_text(names, lab.checks.size()) << ":\n";
    for (const auto& l : lines_of(message)) out << "    " << l << "\n";
  }
  return out.str();
}

std::string summary_table(const GradeReport& r, bool color) {
  std::ostringstream out;
  char line[256];
  out << "Summary (" << r.target << ", seed " << r.seed << ", "
      << (r.has_device ? r.device_name : "no GPU") << ")\n";
  if (r.sandbox.rfind("none", 0) == 0)
    out << "  The checks ran UNSANDBOXED (" << r.sandbox.substr(r.sandbox.find(':') + 2)
        << "): the student's code could reach everything this user can.\n";
  std::snprintf(line, sizeof line, "  %-4s %-24s %9s %7s %7s %8s %7s %8s\n", "lab", "name",
                "points", "passed", "failed", "partial", "skipped", "seconds");
  out << line;
  for (const auto& lab : r.labs) {
    int n[4] = {0, 0, 0, 0};
    for (const auto& c : lab.checks) {
      n[0] += c.status == "passed";
      n[1] += c.status == "failed";
      n[2] += c.status == "partial";
      n[3] += c.status == "skipped";
    }
    std::snprintf(line, sizeof line, "  %-4s %-24s %9s %7d %7d %8d %7d %8.1f\n", lab.id.c_str(),
                  lab.name.c_str(), points_text(lab.points(), lab.max_points()).c_str(), n[0], n[1],
                  n[2], n[3], lab.seconds);
    out << line;
  }
  std::snprintf(line, sizeof line, "  %-29s %9s %41.1f\n", "total",
                points_text(r.points(), r.max_points()).c_str(), r.seconds);
  out << line;
  if (r.timed_seconds > 0.0) {
    std::snprintf(line, sizeof line,
                  "  (%.1f s untimed checks, sanitizers and profiles, %d at once; %.1f s timed "
                  "checks, alone)\n",
                  r.untimed_seconds, r.untimed_jobs, r.timed_seconds);
    out << line;
  }
  int no_device = 0;
  for (const auto& lab : r.labs)
    for (const auto& c : lab.checks) no_device += skipped_for_no_device(c);
  if (!r.has_device && no_device > 0) {
    out << (color ? "\033[33m" : "") << "No GPU: " << no_device
        << " GPU check(s) SKIPPED, not passed; the top of this output says where to grade them."
        << (color ? "\033[0m" : "") << "\n";
  }
  return out.str();
}

}  // namespace cudalab::grade
