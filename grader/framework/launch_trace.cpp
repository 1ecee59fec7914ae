#include "launch_trace.h"

#include <cuda_runtime.h>
#include <cupti.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "cudalab/device_info.h"
#include "device_counts.h"
#include "grading.h"
#include "remote.h"

namespace cudalab::grade {

namespace {

// The kernel records CUPTI has delivered, guarded: it may call back from a thread of its own.
std::mutex records_mutex;
std::vector<LaunchedKernel>* records = nullptr;  // where records go while tracing, else nullptr

constexpr std::size_t kBufferBytes = 1u << 20;
constexpr std::size_t kRecordAlignment = 8;  // CUPTI's activity records need 8-byte alignment

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
  *buffer = static_cast<uint8_t*>(std::aligned_alloc(kRecordAlignment, kBufferBytes));
  *size = *buffer != nullptr ? kBufferBytes : 0;
  *max_records = 0;  // as many as fit
}

void record_kernel(const CUpti_ActivityKernel10& k) {
  if (records == nullptr || k.name == nullptr) return;
  const long long threads =
      static_cast<long long>(k.gridX) * k.gridY * k.gridZ * k.blockX * k.blockY * k.blockZ;
  for (LaunchedKernel& seen : *records)
    if (seen.name == k.name) {
      ++seen.launches;
      seen.static_shared = std::max<long long>(seen.static_shared, k.staticSharedMemory);
      seen.dynamic_shared = std::min<long long>(seen.dynamic_shared, k.dynamicSharedMemory);
      seen.threads += threads;
      return;
    }
  records->push_back({k.name, 1, k.staticSharedMemory, k.dynamicSharedMemory, threads, {}});
}

void CUPTIAPI buffer_completed(CUcontext, uint32_t, uint8_t* buffer, size_t, size_t valid) {
  {
    std::lock_guard<std::mutex> lock(records_mutex);
    CUpti_Activity* record = nullptr;
    while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
      if (record->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ||
          record->kind == CUPTI_ACTIVITY_KIND_KERNEL)
        record_kernel(*reinterpret_cast<const CUpti_ActivityKernel10*>(record));
    }
  }
  std::free(buffer);
}

std::string cupti_error(const char* call, CUptiResult r) {
  const char* text = nullptr;
  if (cuptiGetResultString(r, &text) != CUPTI_SUCCESS || text == nullptr) text = "unknown error";
  return std::string("CUPTI: ") + call + " failed: " + text;
}

// Registers the buffer callbacks once per process; "" or the error.
std::string register_callbacks() {
  static const std::string error = [] {
    const CUptiResult r = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    return r == CUPTI_SUCCESS ? std::string() : cupti_error("cuptiActivityRegisterCallbacks", r);
  }();
  return error;
}

}  // namespace

LaunchTrace trace_launches(const std::function<void()>& work, Counting counting) {
  LaunchTrace trace;
  std::string reason;
  if (!has_cuda_device(&reason)) {
    trace.not_verified = reason.empty() ? "no CUDA device" : reason;
    return trace;
  }
  trace.has_device = true;
  // Not verified on a device: the check fails (a skip would let a crash dodge it).
  const auto fail = [&](const std::string& why) {
    trace.kernels.clear();
    trace.not_verified = why;
    return trace;
  };
  if (const std::string e = register_callbacks(); !e.empty())
    return fail("grader problem, not yours: " + e);
  // Work queued before the trace is not the candidate's.
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    return fail(std::string("the device failed before your function ran: ") +
                cudaGetErrorString(e));
  if (const CUptiResult r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
      r != CUPTI_SUCCESS)
    return fail("grader problem, not yours: " + cupti_error("cuptiActivityFlushAll", r));
  // A candidate in its own process: the kernels it ran come from CUPTI there (records it keeps
  // whatever the call, so that a traced call looks like any other); what ran before is dropped.
  const bool remote_candidate = remote::active();
  // The grade command's confirming run: the GPU's own count, taken here, not the candidate's.
  const bool device_mode = counting == Counting::on && remote_candidate && device_counts_wanted();
  if (remote_candidate) {
    // The candidate process reads what each kernel executes (the performance counters).
    if (counting == Counting::on && !device_mode) remote::count_kernels();
    std::string ignored;
    remote::collect_kernels(&ignored);
  }
  std::vector<LaunchedKernel> seen;
  {
    std::lock_guard<std::mutex> lock(records_mutex);
    records = &seen;
  }
  const auto stop = [&] {
    cudaDeviceSynchronize();
    const CUptiResult flushed = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    const CUptiResult disabled = cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    std::lock_guard<std::mutex> lock(records_mutex);
    records = nullptr;
    return flushed != CUPTI_SUCCESS ? flushed : disabled;
  };
  if (const CUptiResult r = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
      r != CUPTI_SUCCESS) {
    stop();
    return fail("grader problem, not yours: " + cupti_error("cuptiActivityEnable", r));
  }
  try {
    work();
  } catch (...) {
    stop();
    throw;
  }
  // A failed kernel leaves the device unusable; what ran up to it is still recorded.
  const cudaError_t device = cudaDeviceSynchronize();
  if (const CUptiResult r = stop(); r != CUPTI_SUCCESS)
    return fail("grader problem, not yours: " + cupti_error("cuptiActivityFlushAll", r));
  if (device != cudaSuccess)
    return fail(std::string("your function's work failed on the device: ") +
                cudaGetErrorString(device));
  if (remote_candidate) {
    if (const std::string e = remote::take_error(); !e.empty())
      return fail("your function's work failed: " + e);
    std::string problem, counters_problem;
    for (const remote::Kernel& k : remote::collect_kernels(&problem, &counters_problem))
      seen.push_back({k.name, static_cast<int>(k.launches), k.static_shared, k.dynamic_shared,
                      k.threads, k.counters});
    if (!problem.empty()) return fail("the launched kernels were " + problem);
    trace.counted = counting == Counting::on && counters_problem.empty();
    trace.not_counted = counting == Counting::on ? counters_problem : "not counted";
    if (device_mode) {
      // The same work again, once per group of counters the GPU samples in one pass, each call
      // to the candidate's process counted by this process.
      const DeviceCount count = count_candidate_calls(work);
      if (const std::string e = remote::take_error(); !e.empty())
        return fail("your function's work failed: " + e);
      if (const std::string whole = not_whole(count); !whole.empty()) return fail(whole);
      trace.device_mode = true;
      char note[80];
      std::snprintf(note, sizeof note, "%zu samples over %.1f ms of calls", count.samples,
                    1e3 * count.window_s);
      trace.device_note = note;
      trace.counted = count.counted;
      trace.not_counted = count.counted ? "" : count.problem;
      trace.device = as_executed(count.totals);
    }
  } else {
    trace.not_counted = "not counted: the candidate runs in the grader's process";
  }
  trace.verified = true;
  trace.kernels = std::move(seen);
  return trace;
}

}  // namespace cudalab::grade
