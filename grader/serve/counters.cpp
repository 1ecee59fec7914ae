#include "counters.h"

#include <cupti.h>
#include <cupti_profiler_host.h>
#include <cupti_profiler_target.h>
#include <cupti_range_profiler.h>
#include <cupti_target.h>

#include "cupti_profiler.h"

namespace cudalab::serve {

namespace {

// Ranges per call: every launch of a call is one (lab 08's BFS launches one kernel per level).
constexpr std::size_t kMaxRanges = 512;

using cupti::params;
using cupti::patiently;

CUpti_RangeProfiler_Object* as_profiler(void* p) {
  return static_cast<CUpti_RangeProfiler_Object*>(p);
}
CUpti_Profiler_Host_Object* as_host(void* p) {
  return static_cast<CUpti_Profiler_Host_Object*>(p);
}

CUpti_Profiler_Host_Object* new_host_object(const char* chip, const std::vector<unsigned char>& a) {
  return cupti::host_with(CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip, a, {});
}

bool chip_counts(const char* chip, const std::vector<unsigned char>& availability,
                 const char* metric) {
  CUpti_Profiler_Host_Object* h =
      cupti::host_with(CUPTI_PROFILER_TYPE_RANGE_PROFILER, chip, availability, {metric});
  cupti::release(h);
  return h != nullptr;
}

}  // namespace

const std::vector<CounterSpec>& counter_specs() {
  // Warp-level instruction counts (a warp's load is one, whatever its active threads), sectors
  // of 32 bytes, bytes, percent. Only what a technique check or the profile reads: each pass the
  // counters need replays every launch, and for a GH100 CUPTI's host API
  // (cuptiProfilerHostGetNumOfPasses, the shuffles left out) gives 4 passes for these, 5 with
  // the global stores, texture sectors, all instructions and the duration counted before.
  static const std::vector<CounterSpec> specs = {
      {"global_ld", {"smsp__sass_inst_executed_op_global_ld.sum"}},
      {"global_atom", {"smsp__sass_inst_executed_op_global_atom.sum"}},
      {"global_red", {"smsp__sass_inst_executed_op_global_red.sum"}},
      {"shared_ld", {"smsp__sass_inst_executed_op_shared_ld.sum"}},
      {"shared_st", {"smsp__sass_inst_executed_op_shared_st.sum"}},
      {"texture",
       {"smsp__sass_inst_executed_op_texture.sum", "sm__sass_inst_executed_op_texture.sum"}},
      {"shfl",
       {"smsp__sass_inst_executed_op_shfl.sum", "smsp__inst_executed_op_shfl.sum",
        "sm__sass_inst_executed_op_shfl.sum", "smsp__inst_executed_op_shfl_pred_on.sum"}},
      {"constant_ld", {"idc__requests.sum"}},
      {"shared_ld_bytes",
       {"smsp__sass_data_bytes_mem_shared_op_ld.sum", "sm__sass_data_bytes_mem_shared_op_ld.sum"}},
      {"shared_st_bytes",
       {"smsp__sass_data_bytes_mem_shared_op_st.sum", "sm__sass_data_bytes_mem_shared_op_st.sum"}},
      {"local_ld", {"smsp__sass_inst_executed_op_local_ld.sum"}},
      {"global_ld_sectors", {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"}},
      {"shared_ld_bank_conflicts", {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"}},
      {"shared_st_bank_conflicts", {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"}},
      {"dram_read_bytes", {"dram__bytes_read.sum"}},
      {"dram_write_bytes", {"dram__bytes_write.sum"}},
      {"occupancy_pct", {"sm__warps_active.avg.pct_of_peak_sustained_active"}},
  };
  return specs;
}

std::string KernelCounters::fail(const char* call, int result) {
  return problem_ = cupti::problem(call, static_cast<CUptiResult>(result));
}

KernelCounters::KernelCounters(CUcontext context) : context_(context) {
  auto init =
      params<CUpti_Profiler_Initialize_Params>(CUpti_Profiler_Initialize_Params_STRUCT_SIZE);
  if (const CUptiResult r = cuptiProfilerInitialize(&init); r != CUPTI_SUCCESS) {
    fail("cuptiProfilerInitialize", r);
    return;
  }
  CUdevice device = 0;
  if (cuCtxGetDevice(&device) != CUDA_SUCCESS) {
    problem_ = "no device for the counters";
    return;
  }
  auto chip = params<CUpti_Device_GetChipName_Params>(CUpti_Device_GetChipName_Params_STRUCT_SIZE);
  chip.deviceIndex = static_cast<size_t>(device);
  if (const CUptiResult r = cuptiDeviceGetChipName(&chip); r != CUPTI_SUCCESS) {
    fail("cuptiDeviceGetChipName", r);
    return;
  }
  chip_ = chip.pChipName;
  enable();
}

bool KernelCounters::enable() {
  if (!problem_.empty()) return false;
  if (profiler_ != nullptr) return true;
  auto enable =
      params<CUpti_RangeProfiler_Enable_Params>(CUpti_RangeProfiler_Enable_Params_STRUCT_SIZE);
  enable.ctx = context_;
  if (const CUptiResult r = patiently([&] { return cuptiRangeProfilerEnable(&enable); });
      r != CUPTI_SUCCESS) {
    fail("cuptiRangeProfilerEnable", r);
    return false;
  }
  profiler_ = enable.pRangeProfilerObject;
  auto avail = params<CUpti_Profiler_GetCounterAvailability_Params>(
      CUpti_Profiler_GetCounterAvailability_Params_STRUCT_SIZE);
  avail.ctx = context_;
  if (const CUptiResult r = patiently([&] { return cuptiProfilerGetCounterAvailability(&avail); });
      r != CUPTI_SUCCESS) {
    fail("cuptiProfilerGetCounterAvailability", r);
    return false;
  }
  std::vector<unsigned char> availability(avail.counterAvailabilityImageSize);
  avail.pCounterAvailabilityImage = availability.data();
  if (const CUptiResult r = patiently([&] { return cuptiProfilerGetCounterAvailability(&avail); });
      r != CUPTI_SUCCESS) {
    fail("cuptiProfilerGetCounterAvailability", r);
    return false;
  }
  // Each counter under the first of its names this chip knows.
  for (const CounterSpec& spec : counter_specs())
    for (const char* metric : spec.metrics)
      if (chip_counts(chip_.c_str(), availability, metric)) {
        keys_.push_back(spec.key);
        metrics_.push_back(metric);
        break;
      }
  if (metrics_.empty()) {
    problem_ = std::string("CUPTI: none of the grader's counters is known on ") + chip_.c_str();
    return false;
  }
  CUpti_Profiler_Host_Object* host = new_host_object(chip_.c_str(), availability);
  host_ = host;
  if (host == nullptr) {
    problem_ = "CUPTI: cuptiProfilerHostInitialize failed";
    return false;
  }
  auto add = params<CUpti_Profiler_Host_ConfigAddMetrics_Params>(
      CUpti_Profiler_Host_ConfigAddMetrics_Params_STRUCT_SIZE);
  add.pHostObject = host;
  add.ppMetricNames = metrics_.data();
  add.numMetrics = metrics_.size();
  if (const CUptiResult r = cuptiProfilerHostConfigAddMetrics(&add); r != CUPTI_SUCCESS) {
    fail("cuptiProfilerHostConfigAddMetrics", r);
    return false;
  }
  auto size = params<CUpti_Profiler_Host_GetConfigImageSize_Params>(
      CUpti_Profiler_Host_GetConfigImageSize_Params_STRUCT_SIZE);
  size.pHostObject = host;
  if (const CUptiResult r = cuptiProfilerHostGetConfigImageSize(&size); r != CUPTI_SUCCESS) {
    fail("cuptiProfilerHostGetConfigImageSize", r);
    return false;
  }
  config_.resize(size.configImageSize);
  auto image = params<CUpti_Profiler_Host_GetConfigImage_Params>(
      CUpti_Profiler_Host_GetConfigImage_Params_STRUCT_SIZE);
  image.pHostObject = host;
  image.configImageSize = config_.size();
  image.pConfigImage = config_.data();
  if (const CUptiResult r = cuptiProfilerHostGetConfigImage(&image); r != CUPTI_SUCCESS) {
    fail("cuptiProfilerHostGetConfigImage", r);
    return false;
  }
  auto data = params<CUpti_RangeProfiler_GetCounterDataSize_Params>(
      CUpti_RangeProfiler_GetCounterDataSize_Params_STRUCT_SIZE);
  data.pRangeProfilerObject = as_profiler(profiler_);
  data.pMetricNames = metrics_.data();
  data.numMetrics = metrics_.size();
  data.maxNumOfRanges = kMaxRanges;
  data.maxNumRangeTreeNodes = kMaxRanges;
  if (const CUptiResult r = cuptiRangeProfilerGetCounterDataSize(&data); r != CUPTI_SUCCESS) {
    fail("cuptiRangeProfilerGetCounterDataSize", r);
    return false;
  }
  counter_data_.resize(data.counterDataSize);
  return true;
}

void KernelCounters::begin() {
  if (!enable()) return;
  auto init = params<CUpti_RangeProfiler_CounterDataImage_Initialize_Params>(
      CUpti_RangeProfiler_CounterDataImage_Initialize_Params_STRUCT_SIZE);
  init.pRangeProfilerObject = as_profiler(profiler_);
  init.counterDataSize = counter_data_.size();
  init.pCounterData = counter_data_.data();
  if (const CUptiResult r = cuptiRangeProfilerCounterDataImageInitialize(&init);
      r != CUPTI_SUCCESS) {
    fail("cuptiRangeProfilerCounterDataImageInitialize", r);
    return;
  }
  auto config = params<CUpti_RangeProfiler_SetConfig_Params>(
      CUpti_RangeProfiler_SetConfig_Params_STRUCT_SIZE);
  config.pRangeProfilerObject = as_profiler(profiler_);
  config.configSize = config_.size();
  config.pConfig = config_.data();
  config.counterDataImageSize = counter_data_.size();
  config.pCounterDataImage = counter_data_.data();
  config.range = CUPTI_AutoRange;
  config.replayMode = CUPTI_KernelReplay;
  config.maxRangesPerPass = kMaxRanges;
  config.numNestingLevels = 1;
  config.minNestingLevel = 1;
  config.passIndex = 0;
  config.targetNestingLevel = 0;
  if (const CUptiResult r = patiently([&] { return cuptiRangeProfilerSetConfig(&config); });
      r != CUPTI_SUCCESS) {
    fail("cuptiRangeProfilerSetConfig", r);
    return;
  }
  auto start =
      params<CUpti_RangeProfiler_Start_Params>(CUpti_RangeProfiler_Start_Params_STRUCT_SIZE);
  start.pRangeProfilerObject = as_profiler(profiler_);
  if (const CUptiResult r = patiently([&] { return cuptiRangeProfilerStart(&start); });
      r != CUPTI_SUCCESS) {
    fail("cuptiRangeProfilerStart", r);
    return;
  }
  started_ = true;
}

void KernelCounters::end(const std::vector<std::string>& names,
                         std::map<std::string, std::map<std::string, double>>* sums) {
  if (!started_) return;
  started_ = false;
  auto stop = params<CUpti_RangeProfiler_Stop_Params>(CUpti_RangeProfiler_Stop_Params_STRUCT_SIZE);
  stop.pRangeProfilerObject = as_profiler(profiler_);
  if (const CUptiResult r = cuptiRangeProfilerStop(&stop); r != CUPTI_SUCCESS) {
    fail("cuptiRangeProfilerStop", r);
    return;
  }
  auto decode = params<CUpti_RangeProfiler_DecodeData_Params>(
      CUpti_RangeProfiler_DecodeData_Params_STRUCT_SIZE);
  decode.pRangeProfilerObject = as_profiler(profiler_);
  if (const CUptiResult r = cuptiRangeProfilerDecodeData(&decode); r != CUPTI_SUCCESS) {
    fail("cuptiRangeProfilerDecodeData", r);
    return;
  }
  if (decode.numOfRangeDropped > 0) {
    problem_ = "more than " + std::to_string(kMaxRanges) +
               " kernel launches in one call: the counters of " +
               std::to_string(decode.numOfRangeDropped) + " were dropped";
    return;
  }
  auto info = params<CUpti_RangeProfiler_GetCounterDataInfo_Params>(
      CUpti_RangeProfiler_GetCounterDataInfo_Params_STRUCT_SIZE);
  info.pCounterDataImage = counter_data_.data();
  info.counterDataImageSize = counter_data_.size();
  if (const CUptiResult r = cuptiRangeProfilerGetCounterDataInfo(&info); r != CUPTI_SUCCESS) {
    fail("cuptiRangeProfilerGetCounterDataInfo", r);
    return;
  }
  if (info.numTotalRanges != names.size()) {
    problem_ = "the counters saw " + std::to_string(info.numTotalRanges) +
               " kernel launch(es) where the trace saw " + std::to_string(names.size());
    return;
  }
  std::vector<double> values(metrics_.size());
  for (std::size_t range = 0; range < info.numTotalRanges; ++range) {
    auto eval = params<CUpti_Profiler_Host_EvaluateToGpuValues_Params>(
        CUpti_Profiler_Host_EvaluateToGpuValues_Params_STRUCT_SIZE);
    eval.pHostObject = as_host(host_);
    eval.pCounterDataImage = counter_data_.data();
    eval.counterDataImageSize = counter_data_.size();
    eval.rangeIndex = range;
    eval.ppMetricNames = metrics_.data();
    eval.numMetrics = metrics_.size();
    eval.pMetricValues = values.data();
    if (const CUptiResult r = cuptiProfilerHostEvaluateToGpuValues(&eval); r != CUPTI_SUCCESS) {
      fail("cuptiProfilerHostEvaluateToGpuValues", r);
      return;
    }
    std::map<std::string, double>& sum = (*sums)[names[range]];
    sum["launches"] += 1;
    for (std::size_t m = 0; m < keys_.size(); ++m) sum[keys_[m]] += values[m];
  }
}

}  // namespace cudalab::serve
