// What each kernel of a call executed, read from the GPU's performance counters (CUPTI's range
// profiler: one range per kernel launch, every pass replayed within the launch). The technique
// checks judge a kernel by these counts (grader/framework/technique.h, "execution signatures");
// the grade's profile shows them to the student.
//
// Set up before the candidate process confines itself (the profiler starts threads of its own
// then), used around each call after.
#pragma once

#include <cuda.h>

#include <map>
#include <string>
#include <vector>

namespace cudalab::serve {

// One counter the grader reads: its short name (what the judge and the reports call it) and the
// metric names it may have, in order of preference (names differ between architectures and
// toolkits; the first the chip supports is used).
struct CounterSpec {
  const char* key;
  std::vector<const char*> metrics;
};

// The counters read for every kernel (their keys are listed in docs/grading.md):
// instructions per warp by memory space and kind, sectors, DRAM bytes, occupancy, time.
const std::vector<CounterSpec>& counter_specs();

class KernelCounters {
 public:
  // Prepares the profiler for `context` and enables it there (the GPU's counters then serve this
  // process alone while it lives); afterwards problem() is "" or why counters cannot be read
  // (insufficient privileges on a desktop driver, an unsupported GPU, a CUPTI error).
  explicit KernelCounters(CUcontext context);
  KernelCounters(const KernelCounters&) = delete;
  KernelCounters& operator=(const KernelCounters&) = delete;

  const std::string& problem() const { return problem_; }
  // The keys of counter_specs() this chip can count (the others are left out of every result).
  const std::vector<std::string>& keys() const { return keys_; }

  // Around one call: every kernel launched between begin() and end() is a range of its own.
  void begin();
  // Adds each range's values to `sums` (by kernel name, then key, with "launches" counting the
  // ranges); `names` are the call's launches in order (range i is launch i). Sets problem() on
  // failure.
  void end(const std::vector<std::string>& names,
           std::map<std::string, std::map<std::string, double>>* sums);

 private:
  std::string fail(const char* call, int result);
  // Enables the profiler on the context (once). False, with problem() set, when it cannot.
  bool enable();

  CUcontext context_;
  std::string chip_;
  std::string problem_;
  std::vector<std::string> keys_;
  std::vector<const char*> metrics_;  // one per key, the chip's name for it
  void* profiler_ = nullptr;          // CUpti_RangeProfiler_Object*
  void* host_ = nullptr;              // CUpti_Profiler_Host_Object*
  std::vector<unsigned char> config_, counter_data_;
  bool started_ = false;
};

}  // namespace cudalab::serve
