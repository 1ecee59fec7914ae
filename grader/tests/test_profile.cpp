// The profile of a performance case (grader/framework/profile.h): one side's figures per output
// element from what its kernels executed, and the line that puts the two sides side by side.
#include <map>
#include <string>

#include "cudalab/catch.h"
#include "profile.h"

using cudalab::grade::profile_figures;
using cudalab::grade::profile_line;

TEST_CASE("a profile's figures are per output element, warp instructions shown per lane",
          "[grader][profile]") {
  // Two launches over 1000 outputs: 8000 DRAM bytes, 100 warp-level global loads (3200 lanes'),
  // occupancy 80% and 90%.
  const std::map<std::string, double> sums{{"dram_read_bytes", 4000},
                                           {"dram_write_bytes", 4000},
                                           {"global_ld", 100},
                                           {"global_ld_sectors", 250},
                                           {"shared_ld_bank_conflicts", 3},
                                           {"shared_st_bank_conflicts", 1},
                                           {"launches", 2},
                                           {"occupancy_pct", 170}};
  const auto f = profile_figures("candidate", sums, 1000);
  CHECK(f.at("profile_candidate_dram_bytes") == Approx(8.0));
  CHECK(f.at("profile_candidate_global_ld") == Approx(3.2));
  CHECK(f.at("profile_candidate_global_ld_sectors") == Approx(0.25));
  CHECK(f.at("profile_candidate_shared_bank_conflicts") == Approx(0.004));
  CHECK(f.at("profile_candidate_texture") == 0.0);
  CHECK(f.at("profile_candidate_occupancy_pct") == Approx(85.0));
  // No launch counted: occupancy 0, not a division by zero.
  CHECK(profile_figures("reference", {}, 1000).at("profile_reference_occupancy_pct") == 0.0);
}

TEST_CASE("the profile's line needs both sides and leaves out spaces both leave at zero",
          "[grader][profile]") {
  std::map<std::string, double> m = profile_figures("candidate",
                                                    {{"dram_read_bytes", 8000},
                                                     {"global_ld", 100},
                                                     {"shared_ld", 50},
                                                     {"launches", 1},
                                                     {"occupancy_pct", 90}},
                                                    1000);
  CHECK(profile_line(m).empty());  // the reference's run is missing
  for (const auto& [key, value] : profile_figures(
           "reference",
           {{"dram_read_bytes", 7900}, {"global_ld", 40}, {"launches", 1}, {"occupancy_pct", 94}},
           1000))
    m[key] = value;
  const std::string line = profile_line(m);
  CHECK(line.rfind("profile, per output element", 0) == 0);
  CHECK(line.find("DRAM bytes 8 (reference 7.9)") != std::string::npos);
  CHECK(line.find("global loads 3.2 (reference 1.28)") != std::string::npos);
  CHECK(line.find("shared loads 1.6 (reference 0)") != std::string::npos);
  CHECK(line.find("texture") == std::string::npos);  // both zero: not listed
  CHECK(line.find("achieved occupancy 90% (reference 94%)") != std::string::npos);
}
