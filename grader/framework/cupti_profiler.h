// What the two readers of the GPU's performance counters share: the candidate process's range
// profiler (grader/serve/counters.cpp) and the judge's PM sampling (device_counts.cpp). Header
// only: they are linked into different programs (cudalab-serve and the lab graders).
#pragma once

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <unistd.h>

#include <cstddef>
#include <string>
#include <vector>

namespace cudalab::cupti {

// A CUPTI parameter block: zeroed, its size set.
template <typename T>
T params(std::size_t size) {
  T p{};
  p.structSize = size;
  return p;
}

// The GPU's counters serve one profiling session at a time, device-wide: a call another process's
// session holds (CUPTI_ERROR_HARDWARE_BUSY) is tried again for up to 60 s. While a process that
// held them is still ending, a call may fail with CUPTI_ERROR_UNKNOWN instead (seen on an H200
// when a process enabled them after its seccomp filter, right after another process had them):
// tried again for up to 2 s.
template <typename Call>
CUptiResult patiently(Call call) {
  for (int attempt = 0;; ++attempt) {
    const CUptiResult r = call();
    const bool busy = r == CUPTI_ERROR_HARDWARE_BUSY && attempt < 3000;
    const bool settling = r == CUPTI_ERROR_UNKNOWN && attempt < 100;
    if (!busy && !settling) return r;
    usleep(20000);
  }
}

// Why `call` failed with `r`, in one line: for a driver that reserves the counters to
// administrators, how to allow them.
inline std::string problem(const char* call, CUptiResult r) {
  if (r == CUPTI_ERROR_INSUFFICIENT_PRIVILEGES ||
      r == CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES)
    return "the driver reserves the GPU's performance counters to administrators "
           "(ERR_NVGPUCTRPERM): allow them with the nvidia module option "
           "NVreg_RestrictProfilingToAdminUsers=0 (see docs/setup.md, \"Performance counters\")";
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown error";
  return std::string("CUPTI: ") + call + " failed: " + text;
}

inline void release(CUpti_Profiler_Host_Object* host) {
  if (host == nullptr) return;
  auto done = params<CUpti_Profiler_Host_Deinitialize_Params>(
      CUpti_Profiler_Host_Deinitialize_Params_STRUCT_SIZE);
  done.pHostObject = host;
  cuptiProfilerHostDeinitialize(&done);
}

// A host object of CUPTI's for `type` on `chip` (`availability`: the device's counter-availability
// image, or empty for every counter of the chip), with `metrics` added; null when it cannot be
// made or one of the metrics is unknown there. release() it.
inline CUpti_Profiler_Host_Object* host_with(CUpti_ProfilerType type, const std::string& chip,
                                             const std::vector<unsigned char>& availability,
                                             const std::vector<const char*>& metrics) {
  auto init = params<CUpti_Profiler_Host_Initialize_Params>(
      CUpti_Profiler_Host_Initialize_Params_STRUCT_SIZE);
  init.profilerType = type;
  init.pChipName = chip.c_str();
  init.pCounterAvailabilityImage = availability.empty() ? nullptr : availability.data();
  if (cuptiProfilerHostInitialize(&init) != CUPTI_SUCCESS) return nullptr;
  if (metrics.empty()) return init.pHostObject;
  auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = init.pHostObject;
  add.ppMetricNames = const_cast<const char**>(metrics.data());
  add.numMetrics = metrics.size();
  if (cuptiProfilerHostConfigAddMetrics(&add) != CUPTI_SUCCESS) {
    release(init.pHostObject);
    return nullptr;
  }
  return init.pHostObject;
}

}  // namespace cudalab::cupti
