// What the GPU executed during the candidate's calls, counted by the judge's process: CUPTI's PM
// sampling reads the device's counters at a fixed interval, device-wide, from a process that runs
// no code of the student's file. Nothing in the candidate's process takes part, so nothing there
// can change the figures (docs/grading.md, "The judge's own count"); what they cannot do is tell
// kernels apart or see another process's work from the candidate's, so they are taken only where
// the candidate's calls have the GPU to themselves (the grade command's timed phase) and read as
// totals of the calls.
//
// Measured on an H200 (GH100) against the range profiler in the candidate's process, kernel by
// kernel (grader/bench/counts_calibration.cu, docs/grading.md): the same warp-level counts,
// exactly, for global, shared, constant and texture loads; the PM counts take in more kinds, never
// fewer.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cudalab::grade {

// One quantity the judge counts: its key, and the metric names it may have (the first the chip
// knows is used).
struct DeviceMetric {
  const char* key;
  std::vector<const char*> metrics;
};

// The quantities, in warp-level instructions unless named otherwise:
//   lg_ld            global and local loads, atomics that return a value, LDGSTS
//   shared_read      shared-memory reads: loads, atomics, ldmatrix, LDGSTS's shared side
//   constant         constant-cache requests (the same metric as the candidate's constant_ld)
//   texture          texture-pipe instructions
//   lsu              every load/store-pipe instruction (loads, stores, shuffles, atomics)
//   shared_ld_wavefronts, shared_st_wavefronts
//                    shared-memory load and store wavefronts (at most 128 bytes each)
const std::vector<DeviceMetric>& device_metrics();

// The groups a chip counts in one pass each (PM sampling counts in one pass only): the metric
// names, chosen and packed with CUPTI's host API, which needs no GPU (`chip`: "GH100", ...).
// `availability` is the device's counter-availability image, or empty (every counter of the chip).
struct DeviceGroup {
  std::vector<std::string> keys;
  std::vector<std::string> metrics;
};
std::vector<DeviceGroup> device_groups(const std::string& chip,
                                       const std::vector<unsigned char>& availability,
                                       std::string* problem);

// The candidate's figures as the technique signatures read them (technique.h, ExecutedWork), from
// the judge's totals: each a superset of what its name says (a bound on what the candidate
// avoids can only be too high, never too low), and "shfl" what the load/store pipe did besides
// loads and shared stores. Keys whose quantities the chip did not count are left out.
std::map<std::string, double> as_executed(const std::map<std::string, double>& totals);

struct DeviceCount {
  bool counted = false;
  std::string problem;  // why not: permissions, the GPU, CUPTI, a lost sample
  std::map<std::string, double> totals;
  int windows = 0;  // candidate calls counted, summed over the groups
  // The longest call: one longer than not_whole() allows ends the count there (its
  // samples may not all have fit in the GPU's buffer), and the check fails.
  double longest_call_s = 0.0;
  // How the samples covered the windows (each a call and its tail): their number, the windows'
  // length, in seconds; the most the last sample of a window ended before the window closed, and
  // the widest gap between two samples.
  std::size_t samples = 0;
  double window_s = 0.0, shortfall_s = -1.0, gap_s = 0.0;
};

// Why a count cannot be taken as whole (empty when it can): a call longer than the count holds
// (1 s; its samples may not all have fit in the GPU's buffer), or samples that end more than 1 ms
// before a window closed or leave a gap of more than 1 ms (the tail after each call is 2 ms, and
// nothing of the candidate's runs in it: it answers once its context is idle). The check fails
// with this line: only the candidate's call can cut its samples short. `the_case` names the case
// in it ("this small case", "the timed case").
std::string not_whole(const DeviceCount& count, const std::string& the_case = "this small case");

// Runs `work` once per group of device_groups() for this process's device, counting the GPU during
// each of its calls to the candidate's process (remote::call; the judge's own work between them
// is not counted), and returns the totals of each group's run. The candidate's function must do
// the same work each time (the technique checks' cases are fixed).
DeviceCount count_candidate_calls(const std::function<void()>& work);

// The judge's count of a few calls chosen among many like them (a performance check's timed
// rounds, perf.cpp): one group of device_groups() per chosen call, each call counted as
// count_candidate_calls counts one. The candidate's process must keep no kernel records
// (remote::record_kernels(false) before it starts: switching them later starts a new process,
// which a file could see), so that nothing of CUPTI's runs in it.
class CallCounter {
 public:
  CallCounter();  // finds the device's groups
  ~CallCounter();
  CallCounter(const CallCounter&) = delete;
  CallCounter& operator=(const CallCounter&) = delete;
  // The calls it needs: one per group (none when it cannot count; result() says why).
  std::size_t calls() const;
  // Around one call to the candidate's process: begin(i) before it, outside any timed interval
  // (it sets up group i's sampling and the candidate window), end() after it.
  void begin(std::size_t group);
  void end();
  // The totals: each group's quantities from its call (so per call); `counted` once every group's
  // call was counted.
  DeviceCount result() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace cudalab::grade
