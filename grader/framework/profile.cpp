#include "profile.h"

#include <cstdio>

namespace cudalab::grade {

namespace {

struct ProfileRow {
  const char* key;    // counters.h
  const char* label;  // in the line
  bool always;        // shown even when both are 0
  bool lanes;         // a warp-level instruction count, shown as if each lane did one (x32), as
                      // the technique checks show them (executed_summary)
};
const ProfileRow kProfileRows[] = {
    {"dram_bytes", "DRAM bytes", true, false},
    {"global_ld", "global loads", true, true},
    {"global_ld_sectors", "global-load sectors", true, false},
    {"shared_ld", "shared loads", false, true},
    {"shared_st", "shared stores", false, true},
    {"shared_bank_conflicts", "shared bank conflicts", false, false},
    {"texture", "texture fetches", false, true},
    {"constant_ld", "indexed-constant requests", false, false},
    {"global_atom", "global atomics", false, true},
};

}  // namespace

std::string profile_measurement(const std::string& side, const std::string& key) {
  return "profile_" + side + "_" + key;
}

std::map<std::string, double> profile_figures(const std::string& side,
                                              std::map<std::string, double> sums, double outputs) {
  sums["dram_bytes"] = sums["dram_read_bytes"] + sums["dram_write_bytes"];
  sums["shared_bank_conflicts"] =
      sums["shared_ld_bank_conflicts"] + sums["shared_st_bank_conflicts"];
  std::map<std::string, double> figures;
  for (const ProfileRow& row : kProfileRows)
    figures[profile_measurement(side, row.key)] =
        sums[row.key] * (row.lanes ? 32.0 : 1.0) / outputs;
  // Occupancy: the launches' mean, each weighted alike.
  figures[profile_measurement(side, "occupancy_pct")] =
      sums["launches"] > 0 ? sums["occupancy_pct"] / sums["launches"] : 0.0;
  return figures;
}

std::string profile_line(const std::map<std::string, double>& measurements) {
  const auto figure = [&measurements](const char* side, const char* key, double* value) {
    const auto found = measurements.find(profile_measurement(side, key));
    if (found == measurements.end()) return false;
    *value = found->second;
    return true;
  };
  std::string line = "profile, per output element (the counters, one untimed run each): ";
  bool any = false;
  char part[160];
  for (const ProfileRow& row : kProfileRows) {
    double c = 0, r = 0;
    if (!figure("candidate", row.key, &c) || !figure("reference", row.key, &r)) return "";
    if (!row.always && c == 0 && r == 0) continue;
    std::snprintf(part, sizeof part, "%s%s %.3g (reference %.3g)", any ? ", " : "", row.label, c,
                  r);
    line += part;
    any = true;
  }
  double c = 0, r = 0;
  if (!figure("candidate", "occupancy_pct", &c) || !figure("reference", "occupancy_pct", &r))
    return "";
  std::snprintf(part, sizeof part, "; achieved occupancy %.0f%% (reference %.0f%%)", c, r);
  return line + part;
}

}  // namespace cudalab::grade
