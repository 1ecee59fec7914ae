// Timing GPU work the way the grader and the benchmarks need it:
//   - CUDA events around each sample on the caller's stream;
//   - warm-up launches first (also the launches that validated the result);
//   - the L2 cache flushed before every sample for memory-bound work (a memset of a buffer
//     larger than the L2), outside the timed interval;
//   - candidates interleaved sample by sample (A B A B ...), so that clock and thermal drift
//     hit all of them alike;
//   - at least `min_samples`, then until the relative standard error of every candidate's
//     median is under `target_rse`, or `max_samples`, or `time_cap_s` of wall time, or `settled`
//     says the outcome is known (the grader: a candidate already past r_zero);
//   - the median reported;
//   - with `fence` (the grader's timings), each sample also timed device-wide: the device idle
//     before it, and the host's clock from before the launch to the end of a
//     cudaDeviceSynchronize() after it, so that work launched on another stream, on the legacy
//     default stream or on the host is seen (fenced_ms), whatever the events on `stream` say;
//   - `before_sample` and `after_sample`, when set, are called before and after every sample,
//     outside the timed interval (the grader gives the inputs fresh values and poisons the
//     outputs before, and compares the outputs after);
//   - rounds that `set_aside` names run like the others and are not kept.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/device_buffer.h"

namespace cudalab {

struct TimingOptions {
  int warmup = 3;
  int min_samples = 20;
  int max_samples = 500;
  double target_rse = 0.01;
  double time_cap_s = 10.0;
  bool flush_l2 = true;
  bool fence = false;
  // Optional: called after each round with the samples so far (samples[i] of launch i); true
  // stops sampling (after at least 1 sample each).
  std::function<bool(const std::vector<std::vector<double>>&)> settled;
  // When set (one function per launch; needs `fence`): every launch is timed by the host's
  // clock. Each round also times launch i's empty call, after the same preparation as a sample
  // (the L2 flush, the device idle): host_clock_overhead[i]() makes it and returns its round trip
  // in ms. A sample is its fenced time less the median of the empty calls, so that both were
  // measured in the same conditions (host_clock_samples). The grader's way when the work runs in
  // processes of their own, where events on `stream` cannot see it.
  std::vector<std::function<double()>> host_clock_overhead;
  std::function<void(std::size_t launch, cudaStream_t)> before_sample;
  std::function<void(std::size_t launch, cudaStream_t)> after_sample;
  // Optional: called as each round begins (0, 1, ...); a round for which it returns true runs
  // as every other does, hooks included, and its samples are not kept (the grader counts what the
  // GPU executed during such a round, which adds to its time; the calls cannot tell it apart).
  std::function<bool(std::size_t round)> set_aside;
};

struct Timing {
  std::vector<double> samples_ms;
  double median_ms = 0.0;
  double rse = 0.0;         // relative standard error of the mean of samples_ms
  double median_rse = 0.0;  // ... of their median (the stopping rule's)
  // With TimingOptions::fence: each sample's device-wide time, and their median.
  std::vector<double> fenced_ms;
  double median_fenced_ms = 0.0;
  // With TimingOptions::host_clock_overhead: the empty calls' round trips, and their median.
  std::vector<double> empty_call_ms;
  double median_empty_call_ms = 0.0;
};

// Host-clock samples: each fenced time less the median of the empty calls timed beside them.
// Throws std::runtime_error when the work cannot be told from an empty call's round trip (its
// median under kMeasurableFraction of it: lost in the noise of the round trip, never a time of
// zero), std::invalid_argument without empty calls.
inline constexpr double kMeasurableFraction = 0.05;
// What host_clock_samples throws when the work is lost in the round trip: a state of the machine
// that passes (round trips three times their usual length were seen on an H200 for one check's
// samples, both the call's and the empty call's), so a caller may sample again.
class RoundTripNoise : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
std::vector<double> host_clock_samples(const std::vector<double>& fenced_ms,
                                       const std::vector<double>& empty_call_ms);

using Launch = std::function<void(cudaStream_t)>;

// Writes a buffer larger than the L2 so that the next sample starts with a cold cache.
class L2Flusher {
 public:
  explicit L2Flusher(std::size_t l2_bytes);
  void flush(cudaStream_t stream);

 private:
  DeviceBuffer<unsigned char> scratch_;
};

// The stopping rule, separate so it can be unit-tested without a GPU: true when sampling may stop.
bool sampling_done(const std::vector<std::vector<double>>& samples, double elapsed_s,
                   const TimingOptions& options);

// Times every launch in `launches`, interleaved; result[i] belongs to launches[i].
std::vector<Timing> time_interleaved(const std::vector<Launch>& launches, cudaStream_t stream,
                                     const TimingOptions& options = {});

// With CUDALAB_TRACE=1 in the environment, writes "[cudalab +T s] what" to stderr, T the seconds
// since the process's first trace: where a check's time goes (setup, sampling, comparisons).
void trace(const std::string& what);
// Whether trace() prints (CUDALAB_TRACE=1): to build a costly message only when it does.
bool tracing();

// Convenience for one launch.
Timing time_launch(const Launch& launch, cudaStream_t stream, const TimingOptions& options = {});

// The benches' table rows: times `launches` interleaved and stores each median (ms) and relative
// standard error (rse) in its row, launch i in rows[timed[i]]. Row is any type with `ms` and `rse`
// members; rows not named in `timed` (skipped, wrong) keep theirs.
template <typename Row>
void time_rows(std::vector<Row>& rows, const std::vector<std::size_t>& timed,
               const std::vector<Launch>& launches, cudaStream_t stream,
               const TimingOptions& options = {}) {
  const std::vector<Timing> times = time_interleaved(launches, stream, options);
  for (std::size_t i = 0; i < timed.size() && i < times.size(); ++i) {
    rows[timed[i]].ms = times[i].median_ms;
    rows[timed[i]].rse = times[i].rse;
  }
}

// The step before time_rows for a row whose output was checked, `wrong` being the check's problem
// ("" when the output is right): a right row queues make_launch() (called only then) and is
// marked for timing; a wrong one gets the status "wrong: <the problem's first line>" and is not
// timed. The row is appended either way.
template <typename Row, typename MakeLaunch>
void add_checked_row(std::vector<Row>& rows, std::vector<std::size_t>& timed,
                     std::vector<Launch>& launches, Row row, const std::string& wrong,
                     MakeLaunch make_launch) {
  if (wrong.empty()) {
    launches.push_back(Launch(make_launch()));
    timed.push_back(rows.size());
  } else {
    row.status = "wrong: " + wrong.substr(0, wrong.find('\n'));
  }
  rows.push_back(std::move(row));
}

// The indices of the rows whose status is "ok", in order: the `timed` of time_rows when exactly
// those rows queued a launch.
template <typename Row>
std::vector<std::size_t> ok_rows(const std::vector<Row>& rows) {
  std::vector<std::size_t> ok;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (rows[i].status == "ok") ok.push_back(i);
  return ok;
}

}  // namespace cudalab
