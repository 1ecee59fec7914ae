#include "report.h"

#include <cstdio>
#include <sstream>

#include "cudalab/json.h"

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

}  // namespace

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
  std::string output = r.has_device ? "Graded on " + r.device_name
                                    : "No GPU found (" + r.no_device_reason +
                                          "): GPU checks were skipped and earn no points.";
  w.field("output", output).field("visibility", "visible");
  w.key("tests").begin_array();
  for (const auto& lab : r.labs) {
    for (const auto& c : lab.checks) {
      w.begin_object()
          .field("name", "Lab " + lab.id + " " + lab.name + ": " + c.name)
          .field("score", c.earned)
          .field("max_score", c.points)
          .field("status", c.status == "passed" || c.status == "partial" ? "passed" : "failed")
          .field("output", c.status == "skipped" ? "SKIPPED: " + c.message : c.message)
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
  // Full messages of failed checks, indented, after the table.
  for (const auto& c : lab.checks) {
    if (c.status != "failed") continue;
    out << "\n  " << c.name << ":\n";
    std::istringstream msg(c.message);
    std::string l;
    while (std::getline(msg, l)) out << "    " << l << "\n";
  }
  return out.str();
}

std::string summary_table(const GradeReport& r, bool color) {
  std::ostringstream out;
  char line[256];
  out << "Summary (" << r.target << ", seed " << r.seed << ", "
      << (r.has_device ? r.device_name : "NO GPU: " + r.no_device_reason) << ")\n";
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
  if (!r.has_device) {
    out << (color ? "\033[33m" : "")
        << "No CUDA device: every GPU check was SKIPPED (not passed); grade on a machine with an "
           "NVIDIA GPU."
        << (color ? "\033[0m" : "") << "\n";
  }
  return out.str();
}

}  // namespace cudalab::grade
