#include "device_counts.h"

#include <cuda_runtime.h>
#include <cupti.h>
#include <cupti_pmsampling.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_target.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "cudalab/timing.h"
#include "cupti_profiler.h"
#include "remote.h"

namespace cudalab::grade {

namespace {

using cupti::params;
using cupti::patiently;
using cupti::release;

// A sample every 100 us of GPU time; a sample still open when sampling stops is lost, so the
// window stays open 2 ms (20 samples) after the candidate's answer. Measured on an H200: a call's
// counts are whole at 20 and 100 us, and lost at 1 ms (the one sample never closed).
constexpr std::uint64_t kIntervalNs = 100000;
constexpr std::uint64_t kIntervalSysclk = 100000;  // Turing and GA100: no time trigger
constexpr auto kTail = std::chrono::milliseconds(2);
// The samples wait in this buffer until the window closes; those that do not fit are lost, so a
// call may last kMaxCallSeconds at most, a small part of what the buffer holds: a longer one fails
// its check (the technique checks' cases take milliseconds). Whether a window's samples are whole
// is also seen directly: they must reach its end, with no gap (launch_trace.cpp).
constexpr std::size_t kHardwareBuffer = 256u << 20;
constexpr double kMaxCallSeconds = 1.0;
// The decoded samples of one window fit in one counter-data image, sized for the window once it
// has closed: its length at the shortest interval a trigger gives (kIntervalNs, or
// kIntervalSysclk cycles at 2 GHz), a quarter more, and kSpareSamples. (On an H200 an image of 256
// samples took only the first 256 samples of a 90 ms call, however often it was decoded again;
// and an image of a 1 s call's samples is about 550 MB, 0.5 s to set up.)
constexpr double kShortestIntervalS = 50e-6;
constexpr std::size_t kSpareSamples = 64;

// A host object for PM sampling on `chip`, with `metrics` added; null when one is unknown there.
CUpti_Profiler_Host_Object* host_with(const std::string& chip,
                                      const std::vector<unsigned char>& availability,
                                      const std::vector<const char*>& metrics) {
  return cupti::host_with(CUPTI_PROFILER_TYPE_PM_SAMPLING, chip, availability, metrics);
}

// The configuration image of `host`'s metrics; empty on failure.
std::vector<std::uint8_t> config_of(CUpti_Profiler_Host_Object* host) {
  auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = host;
  if (cuptiProfilerHostGetConfigImageSize(&size) != CUPTI_SUCCESS) return {};
  std::vector<std::uint8_t> config(size.configImageSize);
  auto image = params<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = host;
  image.configImageSize = config.size();
  image.pConfigImage = config.data();
  if (cuptiProfilerHostGetConfigImage(&image) != CUPTI_SUCCESS) return {};
  return config;
}

// Passes `metrics` need on `chip` (0 when they cannot be configured).
std::size_t passes(const std::string& chip, const std::vector<unsigned char>& availability,
                   const std::vector<const char*>& metrics) {
  CUpti_Profiler_Host_Object* host = host_with(chip, availability, metrics);
  if (host == nullptr) return 0;
  const std::vector<std::uint8_t> config = config_of(host);
  release(host);
  if (config.empty()) return 0;
  auto n = params<CUpti_Profiler_Host_GetNumOfPasses_Params>(
      CUpti_Profiler_Host_GetNumOfPasses_Params_STRUCT_SIZE);
  n.pConfigImage = const_cast<std::uint8_t*>(config.data());
  n.configImageSize = config.size();
  return cuptiProfilerHostGetNumOfPasses(&n) == CUPTI_SUCCESS ? n.numOfPasses : 0;
}

// One group's sampling on the device, set up for the calls of one run of the work.
class Sampler {
 public:
  Sampler(std::size_t device, const std::string& chip, const std::vector<unsigned char>& avail,
          const DeviceGroup& group)
      : group_(group) {
    trace("PM sampling: setting up a group of " + std::to_string(group.metrics.size()) +
          " metric(s)");
    for (const std::string& m : group.metrics) names_.push_back(m.c_str());
    host_ = host_with(chip, avail, names_);
    if (host_ == nullptr) {
      problem_ = "CUPTI: the PM sampling metrics of " + chip + " could not be configured";
      return;
    }
    config_ = config_of(host_);
    if (config_.empty()) {
      problem_ = "CUPTI: no PM sampling configuration image";
      return;
    }
    auto enable =
        params<CUpti_PmSampling_Enable_Params>(CUpti_PmSampling_Enable_Params_STRUCT_SIZE);
    enable.deviceIndex = device;
    if (const CUptiResult r = patiently([&] { return cuptiPmSamplingEnable(&enable); });
        r != CUPTI_SUCCESS) {
      problem_ = cupti::problem("cuptiPmSamplingEnable", r);
      return;
    }
    object_ = enable.pPmSamplingObject;
    CUptiResult r = set_config(CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL, kIntervalNs);
    if (r == CUPTI_ERROR_NOT_SUPPORTED)
      r = set_config(CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_SYSCLK_INTERVAL, kIntervalSysclk);
    if (r != CUPTI_SUCCESS) {
      problem_ = cupti::problem("cuptiPmSamplingSetConfig", r);
      return;
    }
    sums_.assign(names_.size(), 0.0);
    trace("PM sampling: group set up");
  }
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;
  ~Sampler() {
    if (object_ != nullptr) {
      auto disable =
          params<CUpti_PmSampling_Disable_Params>(CUpti_PmSampling_Disable_Params_STRUCT_SIZE);
      disable.pPmSamplingObject = object_;
      cuptiPmSamplingDisable(&disable);
    }
    release(host_);
  }

  const std::string& problem() const { return problem_; }
  int windows() const { return windows_; }
  std::size_t samples() const { return samples_; }
  double window_s() const { return window_s_; }
  double shortfall_s() const { return shortfall_s_; }
  double gap_s() const { return gap_s_; }
  double longest_call() const { return longest_; }

  void open() {
    if (!problem_.empty()) return;
    cuptiGetTimestamp(&opened_gpu_);
    auto start = params<CUpti_PmSampling_Start_Params>(CUpti_PmSampling_Start_Params_STRUCT_SIZE);
    start.pPmSamplingObject = object_;
    if (const CUptiResult r = cuptiPmSamplingStart(&start); r != CUPTI_SUCCESS) {
      problem_ = cupti::problem("cuptiPmSamplingStart", r);
    } else {
      open_ = true;
      opened_ = std::chrono::steady_clock::now();
    }
  }

  // Stops the samples, once the last one that saw the call has closed, and adds them up.
  void close() {
    if (!open_) return;
    open_ = false;
    longest_ =
        std::max(longest_,
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - opened_).count());
    std::this_thread::sleep_for(kTail);
    const double window_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - opened_).count();
    auto stop = params<CUpti_PmSampling_Stop_Params>(CUpti_PmSampling_Stop_Params_STRUCT_SIZE);
    stop.pPmSamplingObject = object_;
    if (const CUptiResult r = cuptiPmSamplingStop(&stop); r != CUPTI_SUCCESS) {
      problem_ = cupti::problem("cuptiPmSamplingStop", r);
      return;
    }
    // An image that holds every sample of this window (kShortestIntervalS).
    auto size = params<CUpti_PmSampling_GetCounterDataSize_Params>(
        CUpti_PmSampling_GetCounterDataSize_Params_STRUCT_SIZE);
    size.pPmSamplingObject = object_;
    size.pMetricNames = names_.data();
    size.numMetrics = names_.size();
    size.maxSamples =
        static_cast<std::uint32_t>(1.25 * window_s / kShortestIntervalS) + kSpareSamples;
    if (const CUptiResult e = cuptiPmSamplingGetCounterDataSize(&size); e != CUPTI_SUCCESS) {
      problem_ = cupti::problem("cuptiPmSamplingGetCounterDataSize", e);
      return;
    }
    if (data_.size() < size.counterDataSize) data_.resize(size.counterDataSize);
    image_size_ = size.counterDataSize;  // of data_, which may be larger from an earlier window
    trace("PM sampling: an image of " + std::to_string(size.maxSamples) + " samples, " +
          std::to_string(size.counterDataSize) + " bytes");
    std::vector<double> values(names_.size());
    std::size_t zero = 0;  // for the trace: samples whose first metric is 0, and the largest
    double most = 0.0;
    std::uint64_t last_ns = 0, gap_ns = 0;
    std::size_t samples = 0;
    for (;;) {
      auto init = params<CUpti_PmSampling_CounterDataImage_Initialize_Params>(
          CUpti_PmSampling_CounterDataImage_Initialize_Params_STRUCT_SIZE);
      init.pPmSamplingObject = object_;
      init.counterDataSize = image_size_;
      init.pCounterData = data_.data();
      if (const CUptiResult r = cuptiPmSamplingCounterDataImageInitialize(&init);
          r != CUPTI_SUCCESS) {
        problem_ = cupti::problem("cuptiPmSamplingCounterDataImageInitialize", r);
        return;
      }
      auto decode = params<CUpti_PmSampling_DecodeData_Params>(
          CUpti_PmSampling_DecodeData_Params_STRUCT_SIZE);
      decode.pPmSamplingObject = object_;
      decode.pCounterDataImage = data_.data();
      decode.counterDataImageSize = image_size_;
      if (const CUptiResult r = cuptiPmSamplingDecodeData(&decode); r != CUPTI_SUCCESS) {
        problem_ = cupti::problem("cuptiPmSamplingDecodeData", r);
        return;
      }
      if (decode.overflow != 0) {
        problem_ = "the GPU's samples overflowed their buffer: a call ran too long to be counted";
        return;
      }
      auto info = params<CUpti_PmSampling_GetCounterDataInfo_Params>(
          CUpti_PmSampling_GetCounterDataInfo_Params_STRUCT_SIZE);
      info.pCounterDataImage = data_.data();
      info.counterDataImageSize = image_size_;
      if (const CUptiResult r = cuptiPmSamplingGetCounterDataInfo(&info); r != CUPTI_SUCCESS) {
        problem_ = cupti::problem("cuptiPmSamplingGetCounterDataInfo", r);
        return;
      }
      for (std::size_t s = 0; s < info.numCompletedSamples; ++s) {
        auto when = params<CUpti_PmSampling_CounterData_GetSampleInfo_Params>(
            CUpti_PmSampling_CounterData_GetSampleInfo_Params_STRUCT_SIZE);
        when.pPmSamplingObject = object_;
        when.pCounterDataImage = data_.data();
        when.counterDataImageSize = image_size_;
        when.sampleIndex = s;
        if (const CUptiResult r = cuptiPmSamplingCounterDataGetSampleInfo(&when);
            r != CUPTI_SUCCESS) {
          problem_ = cupti::problem("cuptiPmSamplingCounterDataGetSampleInfo", r);
          return;
        }
        // Each sample runs from the one before it to its own end; the first of a window from the
        // last read before it opened.
        if (samples++ > 0 && when.startTimestamp > last_ns)
          gap_ns = std::max(gap_ns, when.startTimestamp - last_ns);
        last_ns = std::max(last_ns, when.endTimestamp);
        auto eval = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
            CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
        eval.pHostObject = host_;
        eval.pCounterDataImage = data_.data();
        eval.counterDataImageSize = image_size_;
        eval.rangeIndex = s;
        eval.ppMetricNames = names_.data();
        eval.numMetrics = names_.size();
        eval.pMetricValues = values.data();
        if (const CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&eval); r != CUPTI_SUCCESS) {
          problem_ = cupti::problem("cuptiProfilerHostEvaluateToGpuValues", r);
          return;
        }
        for (std::size_t m = 0; m < values.size(); ++m) sums_[m] += values[m];
        if (tracing() && !values.empty()) {
          zero += values[0] == 0.0;
          most = std::max(most, values[0]);
        }
      }
      if (tracing()) {  // what each decode gave, for CUDALAB_TRACE=1
        char line[400];
        std::snprintf(line, sizeof line,
                      "PM sampling decode: %zu completed, %zu populated, %zu total samples, stop "
                      "reason %d; %s: %zu samples of 0, the largest %.0f",
                      info.numCompletedSamples, info.numPopulatedSamples, info.numTotalSamples,
                      static_cast<int>(decode.decodeStopReason), names_.empty() ? "" : names_[0],
                      zero, most);
        trace(line);
      }
      if (decode.decodeStopReason != CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL) break;
    }
    if (tracing()) {
      std::string sums = "PM sampling window of " + std::to_string(window_s * 1e3) + " ms:";
      for (std::size_t m = 0; m < sums_.size(); ++m)
        sums += std::string(" ") + names_[m] + " " + std::to_string(sums_[m]);
      trace(sums + " (the sampler's totals so far)");
    }
    ++windows_;
    samples_ += samples;
    window_s_ += window_s;
    // What the samples did not reach of this window, at its end: the GPU's buffer full, its newest
    // samples lost. CUPTI's timestamps and the samples' share one clock (on an H200 the last
    // sample ended 0.56 to 0.68 ms after the window); a last sample more than a second away from
    // the window means they do not on this GPU, and the coverage cannot be seen: not verified.
    const double reached_s =
        (static_cast<double>(last_ns) - static_cast<double>(opened_gpu_)) * 1e-9;
    if (samples > 0 && (reached_s < -1.0 || reached_s > window_s + 1.0)) {
      problem_ =
          "the GPU's samples are not timed on CUPTI's clock on this GPU, so whether they "
          "cover each call cannot be seen";
      return;
    }
    shortfall_s_ = std::max(shortfall_s_, window_s - std::max(reached_s, 0.0));
    gap_s_ = std::max(gap_s_, gap_ns * 1e-9);
  }

  void add_to(std::map<std::string, double>* totals) const {
    for (std::size_t m = 0; m < sums_.size(); ++m) (*totals)[group_.keys[m]] += sums_[m];
  }

 private:
  CUptiResult set_config(CUpti_PmSampling_TriggerMode mode, std::uint64_t interval) {
    auto set =
        params<CUpti_PmSampling_SetConfig_Params>(CUpti_PmSampling_SetConfig_Params_STRUCT_SIZE);
    set.pPmSamplingObject = object_;
    set.configSize = config_.size();
    set.pConfig = config_.data();
    set.hardwareBufferSize = kHardwareBuffer;
    set.samplingInterval = interval;
    set.triggerMode = mode;
    set.hwBufferAppendMode = CUPTI_PM_SAMPLING_HARDWARE_BUFFER_APPEND_MODE_KEEP_OLDEST;
    return patiently([&] { return cuptiPmSamplingSetConfig(&set); });
  }

  const DeviceGroup& group_;
  std::vector<const char*> names_;
  CUpti_Profiler_Host_Object* host_ = nullptr;
  CUpti_PmSampling_Object* object_ = nullptr;
  std::vector<std::uint8_t> config_, data_;
  std::size_t image_size_ = 0;  // the counter-data image's, in data_
  std::vector<double> sums_;
  std::string problem_;
  bool open_ = false;
  std::chrono::steady_clock::time_point opened_;
  double longest_ = 0.0;  // seconds, of the calls counted
  int windows_ = 0;
  std::uint64_t opened_gpu_ = 0;  // CUPTI's timestamp at the window's start
  std::size_t samples_ = 0;
  double window_s_ = 0.0, shortfall_s_ = -1.0, gap_s_ = 0.0;
};

// This process's device, its chip and groups, found once.
struct Device {
  std::string problem;
  std::size_t index = 0;
  std::string chip;
  std::vector<unsigned char> availability;
  std::vector<DeviceGroup> groups;
};

const Device& device() {
  static const Device found = [] {
    Device d;
    int ordinal = 0;
    if (const cudaError_t e = cudaGetDevice(&ordinal); e != cudaSuccess) {
      d.problem = std::string("no CUDA device: ") + cudaGetErrorString(e);
      return d;
    }
    d.index = static_cast<std::size_t>(ordinal);
    auto init =
        params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
    if (const CUptiResult r = cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS) {
      d.problem = cupti::problem("cuptiProfilerInitialize", r);
      return d;
    }
    auto chip =
        params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
    chip.deviceIndex = d.index;
    if (const CUptiResult r = cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS) {
      d.problem = cupti::problem("cuptiDeviceGetChipName", r);
      return d;
    }
    d.chip = chip.pChipName;
    auto avail = params<CUpti_PmSampling_GetCounterAvailability_Params>(
        CUpti_PmSampling_GetCounterAvailability_Params_STRUCT_SIZE);
    avail.deviceIndex = d.index;
    if (const CUptiResult r = cuptiPmSamplingGetCounterAvailability(&avail); r != CUPTI_SUCCESS) {
      d.problem = cupti::problem("cuptiPmSamplingGetCounterAvailability", r);
      return d;
    }
    d.availability.resize(avail.counterAvailabilityImageSize);
    avail.pCounterAvailabilityImage = d.availability.data();
    if (const CUptiResult r = cuptiPmSamplingGetCounterAvailability(&avail); r != CUPTI_SUCCESS) {
      d.problem = cupti::problem("cuptiPmSamplingGetCounterAvailability", r);
      return d;
    }
    d.groups = device_groups(d.chip, d.availability, &d.problem);
    return d;
  }();
  return found;
}

}  // namespace

const std::vector<DeviceMetric>& device_metrics() {
  static const std::vector<DeviceMetric> metrics = {
      {"lg_ld", {"sm__inst_executed_pipe_lsu_mem_lg_cmd_read.sum"}},
      {"shared_read", {"sm__inst_executed_pipe_lsu_mem_shared_cmd_read.sum"}},
      {"constant", {"idc__requests.sum"}},
      {"texture", {"sm__inst_executed_pipe_tex.sum"}},
      {"lsu", {"sm__inst_executed_pipe_lsu.sum"}},
      {"shared_ld_wavefronts", {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"}},
      {"shared_st_wavefronts", {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"}},
  };
  return metrics;
}

std::vector<DeviceGroup> device_groups(const std::string& chip,
                                       const std::vector<unsigned char>& availability,
                                       std::string* problem) {
  std::vector<DeviceGroup> groups;
  for (const DeviceMetric& m : device_metrics()) {
    const char* name = nullptr;
    for (const char* candidate : m.metrics)
      if (passes(chip, availability, {candidate}) == 1) {
        name = candidate;
        break;
      }
    if (name == nullptr) continue;  // not counted on this chip: the key is left out
    bool placed = false;
    for (DeviceGroup& g : groups) {
      std::vector<const char*> trial;
      for (const std::string& n : g.metrics) trial.push_back(n.c_str());
      trial.push_back(name);
      if (passes(chip, availability, trial) == 1) {
        g.keys.push_back(m.key);
        g.metrics.push_back(name);
        placed = true;
        break;
      }
    }
    if (!placed) groups.push_back({{m.key}, {name}});
  }
  if (groups.empty() && problem != nullptr)
    *problem = "CUPTI: none of the judge's counters can be sampled on " + chip;
  return groups;
}

std::map<std::string, double> as_executed(const std::map<std::string, double>& totals) {
  const auto has = [&](const char* k) { return totals.count(k) > 0; };
  const auto of = [&](const char* k) { return has(k) ? totals.at(k) : 0.0; };
  std::map<std::string, double> w;
  if (has("lg_ld")) w["global_ld"] = of("lg_ld");
  if (has("shared_read")) w["shared_ld"] = of("shared_read");
  if (has("constant")) w["constant_ld"] = of("constant");
  if (has("texture")) w["texture"] = of("texture");
  // A wavefront moves at most 128 bytes; a store instruction is one wavefront at least.
  if (has("shared_ld_wavefronts")) w["shared_ld_bytes"] = 128.0 * of("shared_ld_wavefronts");
  if (has("shared_st_wavefronts")) {
    w["shared_st"] = of("shared_st_wavefronts");
    w["shared_st_bytes"] = 128.0 * of("shared_st_wavefronts");
  }
  // What the load/store pipe did besides loads and shared stores: shuffles, global stores,
  // atomics without a result.
  if (has("lsu") && has("lg_ld") && has("shared_read") && has("shared_st_wavefronts"))
    w["shfl"] =
        std::max(0.0, of("lsu") - of("lg_ld") - of("shared_read") - of("shared_st_wavefronts"));
  // No global-load sectors: PM sampling has no L1 sector count of global loads alone, and its
  // count of every L1 sector is far from loads and stores (measured on an H200, lab 03's plain
  // answer: 1.37 global-load sectors per output by the candidate's counters, 2.19 L1 sectors by
  // the judge's, where the outputs' stores add 0.125).
  return w;
}

std::string not_whole(const DeviceCount& count, const std::string& the_case) {
  const double most = std::chrono::duration<double>(kTail).count() / 2;
  char line[260];
  if (count.longest_call_s > kMaxCallSeconds) {
    std::snprintf(line, sizeof line,
                  "a call of your function took %.2f s on %s, where the GPU's own count of what "
                  "it executed holds %.0f s of a call",
                  count.longest_call_s, the_case.c_str(), kMaxCallSeconds);
    return line;
  }
  if (!count.counted || (count.shortfall_s <= most && count.gap_s <= most)) return "";
  std::snprintf(line, sizeof line,
                "a call of your function took %.2f s on %s, and the GPU's samples of what it "
                "executed %s %.3f s: the grader's count of the call is not whole",
                count.longest_call_s, the_case.c_str(),
                count.shortfall_s > most ? "ended before it did by" : "missed",
                std::max(count.shortfall_s, count.gap_s));
  return line;
}

DeviceCount count_candidate_calls(const std::function<void()>& work) {
  DeviceCount count;
  const Device& d = device();
  if (!d.problem.empty()) {
    count.problem = d.problem;
    return count;
  }
  // A candidate process without CUPTI's kernel records: nothing of CUPTI's runs in it beside the
  // calls (the first run of the check has them).
  remote::record_kernels(false);
  struct Restore {
    ~Restore() { remote::record_kernels(true); }
  } restore;
  for (const DeviceGroup& group : d.groups) {
    Sampler sampler(d.index, d.chip, d.availability, group);
    if (!sampler.problem().empty()) {
      count.problem = sampler.problem();
      return count;
    }
    remote::set_candidate_window([&sampler](bool open) {
      if (open)
        sampler.open();
      else
        sampler.close();
    });
    try {
      work();
    } catch (...) {
      remote::set_candidate_window(nullptr);
      throw;
    }
    remote::set_candidate_window(nullptr);
    count.longest_call_s = std::max(count.longest_call_s, sampler.longest_call());
    if (count.longest_call_s > kMaxCallSeconds) return count;  // the caller fails the check
    if (!sampler.problem().empty()) {
      count.problem = sampler.problem();
      return count;
    }
    if (sampler.windows() == 0) {
      count.problem = "no call to the candidate's process to count";
      return count;
    }
    sampler.add_to(&count.totals);
    count.windows += sampler.windows();
    count.samples += sampler.samples();
    count.window_s += sampler.window_s();
    count.shortfall_s = std::max(count.shortfall_s, sampler.shortfall_s());
    count.gap_s = std::max(count.gap_s, sampler.gap_s());
  }
  count.counted = true;
  return count;
}

struct CallCounter::State {
  const Device& device = cudalab::grade::device();
  std::string problem;
  std::unique_ptr<Sampler> sampler;  // the group of the call under way
  std::vector<bool> done;            // each group's call counted
  DeviceCount count;
};

CallCounter::CallCounter() : state_(std::make_unique<State>()) {
  state_->problem = state_->device.problem;
  state_->done.assign(state_->device.groups.size(), false);
}

CallCounter::~CallCounter() {
  if (state_->sampler) remote::set_candidate_window(nullptr);
}

std::size_t CallCounter::calls() const {
  return state_->problem.empty() ? state_->device.groups.size() : 0;
}

void CallCounter::begin(std::size_t group) {
  State& s = *state_;
  if (!s.problem.empty() || group >= s.device.groups.size() || s.sampler) return;
  s.sampler = std::make_unique<Sampler>(s.device.index, s.device.chip, s.device.availability,
                                        s.device.groups[group]);
  if (!s.sampler->problem().empty()) {
    s.problem = s.sampler->problem();
    s.sampler.reset();
    return;
  }
  s.done[group] = true;
  remote::set_candidate_window([sampler = s.sampler.get()](bool open) {
    if (open)
      sampler->open();
    else
      sampler->close();
  });
}

void CallCounter::end() {
  State& s = *state_;
  if (!s.sampler) return;
  remote::set_candidate_window(nullptr);
  const Sampler& sampler = *s.sampler;
  s.count.longest_call_s = std::max(s.count.longest_call_s, sampler.longest_call());
  if (s.problem.empty() && !sampler.problem().empty()) s.problem = sampler.problem();
  if (s.problem.empty() && sampler.windows() == 0)
    s.problem = "no call to the candidate's process to count";
  if (s.problem.empty()) {
    sampler.add_to(&s.count.totals);
    s.count.windows += sampler.windows();
    s.count.samples += sampler.samples();
    s.count.window_s += sampler.window_s();
    s.count.shortfall_s = std::max(s.count.shortfall_s, sampler.shortfall_s());
    s.count.gap_s = std::max(s.count.gap_s, sampler.gap_s());
  }
  s.sampler.reset();
}

DeviceCount CallCounter::result() const {
  DeviceCount count = state_->count;
  count.problem = state_->problem;
  count.counted = count.problem.empty() && !state_->done.empty() &&
                  std::all_of(state_->done.begin(), state_->done.end(), [](bool d) { return d; });
  if (count.problem.empty() && !count.counted)
    count.problem = "not every group of counters was sampled";
  return count;
}

}  // namespace cudalab::grade
