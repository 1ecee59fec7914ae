// The judge's own count (device_counts.h): which counters each chip samples in one pass, and what
// the technique signatures read from the totals. CUPTI's host API needs no GPU.
#include "device_counts.h"

#include <set>
#include <string>

#include "cudalab/catch.h"
#include "technique.h"

using namespace cudalab::grade;

namespace {

std::set<std::string> keys_of(const std::vector<DeviceGroup>& groups) {
  std::set<std::string> keys;
  for (const DeviceGroup& g : groups) keys.insert(g.keys.begin(), g.keys.end());
  return keys;
}

}  // namespace

TEST_CASE("the judge's counters pack into single-pass groups on each chip", "[grader][counts]") {
  std::string problem;
  // Hopper: every quantity, in two groups (two runs of a technique check's case).
  const auto hopper = device_groups("GH100", {}, &problem);
  CHECK(problem.empty());
  CHECK(hopper.size() == 2);
  std::set<std::string> all;
  for (const DeviceMetric& m : device_metrics()) all.insert(m.key);
  CHECK(keys_of(hopper) == all);
  for (const DeviceGroup& g : hopper) {
    CHECK(g.keys.size() == g.metrics.size());
    CHECK_FALSE(g.keys.empty());
  }
  // Ada and Turing sample no shared-memory wavefronts: those keys are left out, the rest kept.
  for (const char* chip : {"AD102", "TU102"}) {
    INFO(chip);
    const auto keys = keys_of(device_groups(chip, {}, &problem));
    CHECK(problem.empty());
    CHECK(keys.count("lg_ld") == 1);
    CHECK(keys.count("shared_read") == 1);
    CHECK(keys.count("texture") == 1);
    CHECK(keys.count("shared_ld_wavefronts") == 0);
  }
  // A chip CUPTI does not know: no group, and why.
  CHECK(device_groups("NOSUCHCHIP", {}, &problem).empty());
  CHECK(problem == "CUPTI: none of the judge's counters can be sampled on NOSUCHCHIP");
}

TEST_CASE("the GPU's totals as the signatures read them", "[grader][counts]") {
  // Totals measured on an H200 for a kernel of 8 shuffles per thread (32768 warps: docs/grading.md,
  // "The judge's own count").
  const auto w = as_executed({{"lg_ld", 32768},
                              {"shared_read", 0},
                              {"constant", 131072},
                              {"texture", 0},
                              {"lsu", 360448},
                              {"shared_ld_wavefronts", 0},
                              {"shared_st_wavefronts", 0}});
  CHECK(w.at("global_ld") == 32768);
  CHECK(w.at("shared_ld") == 0);
  CHECK(w.at("constant_ld") == 131072);
  CHECK(w.at("texture") == 0);
  CHECK(w.at("shfl") == 327680);             // at least its 262144 shuffles
  CHECK(w.count("global_ld_sectors") == 0);  // not sampled: the candidate's counters only
  CHECK(w.at("shared_st") == 0);
  // Wavefronts: at most 128 bytes each.
  const auto shared =
      as_executed({{"shared_ld_wavefronts", 269053}, {"shared_st_wavefronts", 32768}});
  CHECK(shared.at("shared_ld_bytes") == 128.0 * 269053);
  CHECK(shared.at("shared_st_bytes") == 128.0 * 32768);
  CHECK(shared.count("shfl") == 0);  // the load/store pipe was not counted
  // Nothing negative; nothing made up.
  CHECK(as_executed({{"lsu", 10}, {"lg_ld", 20}, {"shared_read", 0}, {"shared_st_wavefronts", 0}})
            .at("shfl") == 0);
  CHECK(as_executed({}).empty());
}

TEST_CASE("a device count is read as totals of the calls, and what it lacks is not verified",
          "[grader][counts]") {
  // Lab 03's signature over 1024 outputs with a mask of 9: global plus shared loads per output at
  // most 13.5; a kernel that reads the mask from global memory makes 18, whatever the candidate's
  // process reported.
  TechniqueRule rule = ptx_rule(
      "const_kernel", [](const KernelAnalysis&, const std::string&) { return std::string(); });
  rule.executed = [](const ExecutedWork& w, std::string* summary) {
    *summary = executed_summary(w.all, 1024, "output");
    return per_unit_problem(
        lanes_per_unit(ExecutedWork::of(w.all, "global_ld") + ExecutedWork::of(w.all, "shared_ld"),
                       1024),
        0, 13.5, "loads from global and shared memory", "output");
  };
  LaunchTrace t;
  t.verified = t.has_device = true;
  t.kernels = {{"const_kernel", 1, 0, 0, 1024, {{"global_ld", 0}}}};  // what its process said
  t.device_mode = t.counted = true;
  const std::map<std::string, double> honest{
      {"lg_ld", 288}, {"shared_read", 0},          {"constant", 300},          {"texture", 0},
      {"lsu", 330},   {"shared_ld_wavefronts", 0}, {"shared_st_wavefronts", 0}};
  t.device = as_executed(honest);
  const std::string ptx = ".visible .entry const_kernel(.param .u64 a)\n{\nret;\n}\n";
  TechniqueVerdict v = judge_technique(ptx, rule, t);
  CHECK(v.status == TechniqueVerdict::Status::pass);
  CHECK(v.message ==
        "launched: const_kernel; the GPU counted per output: 9.00 global loads, 0.00 shared loads, "
        "0.00 shared stores, 0.29 indexed-constant requests, 0.00 texture fetches, 1.31 shuffles");
  t.device["global_ld"] = 576;
  v = judge_technique(ptx, rule, t);
  CHECK(v.status == TechniqueVerdict::Status::fail);
  CHECK(v.message.find("as the GPU counted it for the grader (all their kernels together), is not "
                       "the lesson's: 18.00 loads from global and shared memory per output, at "
                       "most 13.50 expected") != std::string::npos);
  // A chip whose sampling lacks a quantity: a failing signature is not verified, never passed.
  t.device.erase("shared_ld");
  v = judge_technique(ptx, rule, t);
  CHECK(v.status == TechniqueVerdict::Status::unverified);
  CHECK(v.message.find("this GPU's sampling counts no shared_ld") != std::string::npos);
  // No count at all: not verified.
  t.counted = false;
  t.not_counted = "the driver reserves the GPU's performance counters to administrators";
  CHECK(judge_technique(ptx, rule, t).status == TechniqueVerdict::Status::unverified);
}

TEST_CASE("a count is whole only when its samples reach every call's end", "[counts]") {
  // The figures of session L (H200): the solutions' last samples ended 0.56 to 0.68 ms after
  // their windows closed; lab 03's cheat-hides-global-loads's ended 12 ms before.
  DeviceCount honest;
  honest.counted = true;
  honest.longest_call_s = 0.004;
  honest.samples = 121;
  honest.window_s = 0.0111;
  honest.shortfall_s = -0.000626;
  CHECK(not_whole(honest).empty());
  DeviceCount cut = honest;
  cut.longest_call_s = 0.04;
  cut.shortfall_s = 0.012;
  CHECK(not_whole(cut) ==
        "a call of your function took 0.04 s on this small case, and the GPU's samples of what it "
        "executed ended before it did by 0.012 s: the grader's count of the call is not whole");
  // Within the tail: the end of the 2 ms after the answer, where nothing of the candidate's runs.
  cut.shortfall_s = 0.0009;
  CHECK(not_whole(cut).empty());
  DeviceCount gap = honest;
  gap.gap_s = 0.003;
  CHECK(not_whole(gap).find("samples of what it executed missed 0.003 s") != std::string::npos);
  DeviceCount slow = honest;
  slow.longest_call_s = 1.5;
  CHECK(not_whole(slow).find("a call of your function took 1.50 s") == 0);
  // Not counted at all is not "not whole": the check says why it could not count instead.
  DeviceCount none;
  none.shortfall_s = 5;
  CHECK(not_whole(none).empty());
}
