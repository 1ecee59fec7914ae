#include "perf.h"

#include "gpu_state.h"

#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <stdexcept>

#include "cudalab/device_buffer.h"
#include "cudalab/device_data.h"
#include "cudalab/device_info.h"
#include "device_counts.h"
#include "grading.h"
#include "policy.h"
#include "profile.h"
#include "remote.h"

namespace cudalab::grade {

std::uint64_t sample_key() {
  std::uint64_t key = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&key);
  for (std::size_t got = 0; got < sizeof key;) {
    const ssize_t n = getrandom(bytes + got, sizeof key - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::runtime_error("no random key for a timed sample (getrandom failed)");
    got += static_cast<std::size_t>(n);
  }
  return key;
}

std::vector<std::size_t> counted_rounds(std::size_t calls, std::size_t first, std::uint64_t key) {
  std::vector<std::size_t> rounds(first);
  for (std::size_t r = 0; r < first; ++r) rounds[r] = r;
  std::mt19937_64 draw(key);
  std::shuffle(rounds.begin(), rounds.end(), draw);
  rounds.resize(std::min(calls, first));
  return rounds;
}

namespace {

struct Measured {
  Timing candidate, reference;
  double ratio;
  DeviceInfo device;
  bool host_clocked = false;  // timed on the host's clock (the candidate in its own process)
  GpuReadings gpu;            // the GPU's state during the samples (NVML)
  std::string gpu_why_not;    // why it could not be read
  // Why the samples give no time (work that cannot be told from the call's round trip): a
  // verdict only after the outputs are compared, since a call that skipped its work gets here.
  std::string timing_problem;
  // What the GPU executed during the counted rounds (TimedRunChecks::executed), when counted.
  DeviceCount executed;
};

// What the GPU did during the samples: in the check's measurements and notes, and a warning
// when it slowed its clocks (a power or thermal limit), since the ratio may then not be the usual.
void report_gpu_state(const Measured& m) {
  if (m.gpu.readings.empty()) {
    if (!m.gpu_why_not.empty()) note("GPU clocks during the samples not read: " + m.gpu_why_not);
    return;
  }
  unsigned sm_min = ~0u, sm_max = 0, memory = 0, temperature = 0;
  double power = 0.0;
  for (const GpuReading& r : m.gpu.readings) {
    sm_min = std::min(sm_min, r.sm_mhz);
    sm_max = std::max(sm_max, r.sm_mhz);
    memory = std::max(memory, r.memory_mhz);
    temperature = std::max(temperature, r.temperature_c);
    power = std::max(power, r.power_w);
  }
  measure("gpu_sm_mhz_min", sm_min);
  measure("gpu_sm_mhz_max", sm_max);
  measure("gpu_memory_mhz", memory);
  measure("gpu_temperature_c_max", temperature);
  measure("gpu_power_w_max", power);
  measure("gpu_slowing_reasons", static_cast<double>(m.gpu.slowing()));
  note("GPU during the samples: " + m.gpu.summary());
  if (const unsigned long long slowing = m.gpu.slowing(); slowing != 0)
    note("the GPU slowed its clocks during the timed samples (" + throttle_reason_names(slowing) +
         "): this ratio may differ from one taken on a GPU that did not");
}

// The processes a performance check's candidate and reference launches call.
std::vector<remote::Endpoint> both_remote() {
  if (!remote::active()) return {};
  return {remote::Endpoint::candidate, remote::Endpoint::reference};
}

// The device's facts and copy bandwidth, measured once per process.
const DeviceInfo& cached_device() {
  static const DeviceInfo device = [] {
    trace("device facts and copy bandwidth: start");
    DeviceInfo d = query_device(0, /*measure_copy=*/true);
    trace("device facts and copy bandwidth: measured");
    return d;
  }();
  return device;
}

// The device-side check of every timed output (TimedRunChecks::outputs).
class OutputChecks {
 public:
  // `drawn_keys`: each sample's inputs from a key of sample_key(); otherwise always key 1 (a
  // profile's runs: untimed, in two processes that must see the same inputs).
  explicit OutputChecks(const TimedRunChecks& checks, bool drawn_keys = true)
      : checks_(checks),
        drawn_keys_(drawn_keys),
        counters_(checks.outputs.size() + 2 * checks.unchanged.size()) {
    const cudalab::DeviceMismatches none{0, ~0ull};
    for (std::size_t i = 0; i < counters_.size(); ++i)
      CUDA_CHECK(cudaMemcpy(counters_.data() + i, &none, sizeof none, cudaMemcpyHostToDevice));
    for (const auto& r : checks.unchanged) {
      copies_.emplace_back(r.bytes / 4);
      CUDA_CHECK(
          cudaMemcpy(copies_.back().data(), r.data, r.bytes / 4 * 4, cudaMemcpyDeviceToDevice));
    }
  }

  // Before the candidate's (launch 0) or the reference's (launch 1) sample.
  void before(std::size_t launch, cudaStream_t s) {
    if (launch == 0) key_ = drawn_keys_ ? sample_key() : 1;
    if (checks_.fresh_inputs) checks_.fresh_inputs(key_, s);
    // Before the reference's sample, each fixed input as it was before the timing, whatever the
    // candidate's sample did to it (a change is counted first): the reference never reads what
    // the candidate wrote, so zeroing a const input and then writing zeros "matches" nothing.
    if (launch == 1) {
      const std::size_t first = restored_counters();
      for (std::size_t i = 0; i < checks_.unchanged.size(); ++i) {
        cudalab::count_different_words_async(
            static_cast<const std::uint32_t*>(checks_.unchanged[i].data), copies_[i].data(),
            copies_[i].size(), counters_.data() + first + i, s);
        CUDA_CHECK(cudaMemcpyAsync(const_cast<void*>(checks_.unchanged[i].data), copies_[i].data(),
                                   copies_[i].size() * 4, cudaMemcpyDeviceToDevice, s));
      }
    }
    for (const TimedOutput& o : checks_.outputs)
      CUDA_CHECK(cudaMemsetAsync(launch == 0 ? o.candidate : o.reference, o.poison, bytes(o), s));
  }

  // After the reference's sample: both outputs are there, from the same inputs.
  void after(std::size_t launch, cudaStream_t s) {
    if (launch != 1) return;
    ++compared_;
    for (std::size_t i = 0; i < checks_.outputs.size(); ++i) {
      const TimedOutput& o = checks_.outputs[i];
      if (o.exact)
        cudalab::count_different_words_async(static_cast<const std::uint32_t*>(o.candidate),
                                             static_cast<const std::uint32_t*>(o.reference),
                                             o.count, counters_.data() + i, s);
      else if (o.atol_each != nullptr)
        cudalab::count_mismatches_async(static_cast<const float*>(o.candidate),
                                        static_cast<const float*>(o.reference), o.count,
                                        o.atol_each, o.tol.rtol, counters_.data() + i, s);
      else
        cudalab::count_mismatches_async(static_cast<const float*>(o.candidate),
                                        static_cast<const float*>(o.reference), o.count, o.tol,
                                        counters_.data() + i, s);
    }
  }

  // "" when every timed output matched the reference's and the fixed inputs are unchanged;
  // `untimed`: the run before the timing (its message says so).
  std::string problem(bool untimed = false) {
    const std::size_t outputs = checks_.outputs.size();
    for (std::size_t i = 0; i < checks_.unchanged.size(); ++i)
      cudalab::count_different_words_async(
          static_cast<const std::uint32_t*>(checks_.unchanged[i].data), copies_[i].data(),
          copies_[i].size(), counters_.data() + outputs + i, nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    const std::size_t restored = restored_counters();
    std::vector<cudalab::DeviceMismatches> found(counters_.size());
    if (!found.empty())
      CUDA_CHECK(cudaMemcpy(found.data(), counters_.data(), found.size() * sizeof found[0],
                            cudaMemcpyDeviceToHost));
    if (tracing()) {  // what was found, for CUDALAB_TRACE=1
      std::string counts =
          "outputs checked after " + std::to_string(compared_) + " comparison(s), differences:";
      for (std::size_t i = 0; i < outputs; ++i)
        counts += " " + checks_.outputs[i].name + " " + std::to_string(found[i].elements);
      for (std::size_t i = 0; i < checks_.unchanged.size(); ++i)
        counts += " unchanged " + checks_.unchanged[i].name + " " +
                  std::to_string(found[outputs + i].elements) + " (before the restores " +
                  std::to_string(found[restored + i].elements) + ")";
      trace(counts);
    }
    for (std::size_t i = 0; i < checks_.unchanged.size(); ++i) {
      // Changed since the last restore (found[outputs + i]), or before one of them
      // (found[restored + i]: words summed over the samples, so only its first word is told).
      const cudalab::DeviceMismatches& now = found[outputs + i];
      const cudalab::DeviceMismatches& before = found[restored + i];
      if (now.elements == 0 && before.elements == 0) continue;
      return "the input " + checks_.unchanged[i].name + " changed during the timed runs (" +
             (now.elements > 0
                  ? std::to_string(now.elements) + " of " + std::to_string(copies_[i].size()) +
                        " 32-bit words, the first at word " + std::to_string(now.first)
                  : "the first changed word at " + std::to_string(before.first)) +
             "; the reference's runs read it as it was): a const input is read-only, even "
             "through a cast.";
    }
    unsigned long long elements = 0;
    for (std::size_t i = 0; i < outputs; ++i) elements += found[i].elements;
    for (std::size_t i = 0; i < outputs; ++i) {
      if (found[i].elements == 0) continue;
      // The values at the first difference, from the last sample's buffers.
      const TimedOutput& o = checks_.outputs[i];
      double got = std::nan(""), expected = std::nan("");
      if (!o.exact) {
        float g = 0, e = 0;
        const std::size_t at = found[i].first * sizeof(float);
        CUDA_CHECK(cudaMemcpy(&g, static_cast<const char*>(o.candidate) + at, sizeof g,
                              cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaMemcpy(&e, static_cast<const char*>(o.reference) + at, sizeof e,
                              cudaMemcpyDeviceToHost));
        cudalab::Tolerance tol = o.tol;
        if (o.atol_each != nullptr) {
          float atol = 0;
          CUDA_CHECK(
              cudaMemcpy(&atol, o.atol_each + found[i].first, sizeof atol, cudaMemcpyDeviceToHost));
          tol.atol = atol;
        }
        if (!cudalab::within_tolerance(g, e, tol)) got = g, expected = e;
      }
      return timed_output_problem(elements, untimed ? 0 : compared_, o.name, found[i].first, got,
                                  expected);
    }
    return "";
  }

 private:
  static std::size_t bytes(const TimedOutput& o) { return o.count * 4; }
  // counters_: one per output, one per fixed input (since its last restore), then one per fixed
  // input counting the changes the restores undid.
  std::size_t restored_counters() const {
    return checks_.outputs.size() + checks_.unchanged.size();
  }

  const TimedRunChecks& checks_;
  bool drawn_keys_;
  cudalab::DeviceBuffer<cudalab::DeviceMismatches> counters_;
  std::vector<cudalab::DeviceBuffer<std::uint32_t>> copies_;  // of checks_.unchanged
  std::uint64_t key_ = 0;                                     // the current sample's (sample_key())
  std::size_t compared_ = 0;
};

// The grader's sampling: at least 20 samples each, then until the median's relative standard
// error is 1%, at most 500 samples or 3 s; one warm-up (the check's untimed run came first).
// With `r_zero` > 0, a candidate whose every sample (3 or more) is slower than r_zero times the
// reference's slowest is past r_zero already: sampling stops there (a one-thread-block kernel
// would otherwise spend the time cap).
// `remote`: the processes the two launches call (empty: both run in this process).
// `count`: the judge counts what the GPU executes during a few rounds chosen at random
// (counted_rounds), which are set aside from the samples.
Measured measure_pair(const Launch& candidate, const Launch& reference, const Workload& work,
                      OutputChecks* outputs, double r_zero,
                      const std::vector<remote::Endpoint>& remote, bool count = false) {
  Measured m;
  m.device = cached_device();
  Stream stream;
  TimingOptions options;
  options.flush_l2 = work.flush_l2;
  options.fence = true;
  options.warmup = 1;
  options.time_cap_s = 3.0;
  if (r_zero > 0)
    options.settled = [r_zero](const std::vector<std::vector<double>>& s) {
      if (s[0].size() < 3) return false;
      const double slowest_reference = *std::max_element(s[1].begin(), s[1].end());
      return *std::min_element(s[0].begin(), s[0].end()) > r_zero * slowest_reference;
    };
  if (!remote.empty()) {
    // Candidate and reference in processes of their own: both timed on the host's clock, each
    // round beside its process's empty call after the same preparation as a sample (the L2
    // flush): the call's round trip and the device's turn to that process's context.
    for (const remote::Endpoint e : remote)
      options.host_clock_overhead.push_back([e] { return remote::ping_ms(e, 1, nullptr); });
    m.host_clocked = true;
  }
  // The judge's count: the rounds counted, each with its group of counters, drawn anew for each
  // attempt of the timing.
  std::unique_ptr<CallCounter> counter;
  std::map<std::size_t, std::size_t> counted;  // round -> group
  std::size_t round = 0;
  if (count)
    options.set_aside = [&counted, &round](std::size_t r) {
      round = r;
      return counted.count(r) > 0;
    };
  options.before_sample = [&](std::size_t launch, cudaStream_t s) {
    if (outputs != nullptr) outputs->before(launch, s);
    if (const auto c = counted.find(round); launch == 0 && counter && c != counted.end())
      counter->begin(c->second);
  };
  // The GPU's clocks, temperature, power and throttle reasons: before, every 8th round, after.
  GpuMonitor gpu;
  gpu.read();
  std::size_t rounds = 0;
  options.after_sample = [&](std::size_t launch, cudaStream_t s) {
    if (launch == 0 && counter) counter->end();
    if (outputs != nullptr) outputs->after(launch, s);
    if (launch == 1 && ++rounds % 8 == 0) gpu.read();
  };
  std::vector<Timing> t;
  // Work lost in the round trip is sampled again, twice at most: a solution's work of 0.2 ms, as
  // long as the round trip, was once lost in round trips three times their usual length.
  for (int attempt = 1;; ++attempt) {
    if (count) {
      counter = std::make_unique<CallCounter>();
      counted.clear();
      const std::vector<std::size_t> chosen = counted_rounds(
          counter->calls(), static_cast<std::size_t>(options.min_samples), sample_key());
      for (std::size_t g = 0; g < chosen.size(); ++g) counted[chosen[g]] = g;
    }
    try {
      t = time_interleaved({candidate, reference}, stream.get(), options);
      if (counter) m.executed = counter->result();
      break;
    } catch (const RoundTripNoise& e) {
      if (attempt < 3) continue;
      m.timing_problem = std::string("not timed: ") + e.what() + " (in 3 attempts)";
      return m;
    } catch (const std::runtime_error& e) {
      m.timing_problem = std::string("not timed: ") + e.what();
      return m;
    }
  }
  gpu.read();
  m.gpu = gpu.readings();
  m.gpu_why_not = gpu.why_not();
  m.candidate = t[0];
  m.reference = t[1];
  if (m.host_clocked) {
    measure("candidate_call_overhead_ms", m.candidate.median_empty_call_ms);
    measure("reference_call_overhead_ms", m.reference.median_empty_call_ms);
  }
  m.ratio = m.candidate.median_ms / m.reference.median_ms;
  return m;
}

double gbs(double bytes, double ms) {
  return bytes / (ms * 1e-3) / 1e9;
}

constexpr double kImplausible = 1.5;

}  // namespace

std::string outside_stream_problem(double candidate_ms, double candidate_fenced_ms,
                                   double reference_ms, double reference_fenced_ms) {
  // The fenced time adds the launch and synchronisation overhead to the events' time; the
  // reference shows how much that is here. Beyond it, with a margin for noise, the device was
  // busy with something the events on the stream did not see.
  const double overhead = std::max(0.0, reference_fenced_ms - reference_ms);
  const double unseen = candidate_fenced_ms - candidate_ms - overhead;
  if (unseen <= std::max(0.05, 0.15 * candidate_ms)) return "";
  char line[400];
  std::snprintf(line, sizeof line,
                "work launched outside the given stream: the timed call's work on `stream` took "
                "%.4f ms, but the device (or the host) was busy for %.4f ms. Launch every kernel "
                "and copy on the stream the function is given (not the default stream 0, not a "
                "stream of your own), and do no work on the host.",
                candidate_ms, candidate_fenced_ms - overhead);
  return line;
}

std::string timed_output_problem(unsigned long long elements, std::size_t samples_compared,
                                 const std::string& first_output, unsigned long long first_index,
                                 double got, double expected) {
  if (elements == 0) return "";
  // 0 samples compared: the untimed run before the timing.
  std::string text =
      samples_compared == 0
          ? "the output differs from the reference's on the same inputs: " +
                std::to_string(elements) + " element(s), the first at "
          : "a timed run's output differs from the reference's on the same inputs: " +
                std::to_string(elements) + " element(s) over " + std::to_string(samples_compared) +
                " timed runs, the first at ";
  text += first_output + "[" + std::to_string(first_index) + "]";
  if (!std::isnan(expected))
    text += " (" + cudalab::format_value(got) + ", the reference gives " +
            cudalab::format_value(expected) + ")";
  return text +
         ". Every timed call must do the whole work on the inputs it is given (they change "
         "between runs) and write every output element.";
}

std::string implausible_problem(double gbs, double copy_gbs, double gflops, double peak_gflops) {
  // "" unless `rate` (in `unit`) is beyond kImplausible times `limit`, the hardware's `what`.
  const auto beyond = [](double rate, double limit, const char* unit,
                         const char* what) -> std::string {
    if (rate <= 0 || limit <= 0 || rate <= kImplausible * limit) return "";
    char line[300];
    std::snprintf(line, sizeof line,
                  "implausible: %.0f %s is more than %.1fx %s (%.0f %s); the timed calls cannot "
                  "have done the work",
                  rate, unit, kImplausible, what, limit, unit);
    return line;
  };
  if (std::string p = beyond(gbs, copy_gbs, "GB/s", "the measured copy bandwidth"); !p.empty())
    return p;
  return beyond(gflops, peak_gflops, "GFLOP/s", "the FP32 peak");
}

namespace {

// The profile of a performance case, one side of it (the grade command runs a check tagged
// [profile] twice more this way, untimed, in turn with the other counted runs: once counting the
// candidate's process, once the reference's; remote::profiled()): the two run on the same fresh
// inputs as in a sample, in the same order (a lab's fresh inputs may prepare each in turn), and
// only the counted side's call is read, normalised per output element.
void profile_performance(remote::Endpoint side, const Launch& candidate, const Launch& reference,
                         const TimedRunChecks& checks) {
  double outputs = 0;
  for (const TimedOutput& o : checks.outputs) outputs += static_cast<double>(o.count);
  if (!remote::active() || outputs <= 0) {
    skip_check("no profile: this check's processes are not counted");
    return;
  }
  const bool of_candidate = side == remote::Endpoint::candidate;
  const char* name = of_candidate ? "candidate" : "reference";
  const std::size_t counted_launch = of_candidate ? 0 : 1;
  OutputChecks first(checks, /*drawn_keys=*/false);  // the other side's run sees the same inputs
  Stream stream;
  std::map<std::string, double> sums;
  for (std::size_t launch = 0; launch <= counted_launch; ++launch) {
    const bool counted = launch == counted_launch;
    first.before(launch, stream.get());
    CUDA_CHECK(cudaDeviceSynchronize());
    std::string error, counters_error;
    if (counted) remote::collect_kernels(side, &error, &counters_error);  // setup's: dropped
    (launch == 0 ? candidate : reference)(stream.get());
    CUDA_CHECK(cudaDeviceSynchronize());
    if (!counted) continue;
    const auto kernels = remote::collect_kernels(side, &error, &counters_error);
    std::string problem = !counters_error.empty() ? counters_error : error;
    if (const std::string e = remote::take_error(); problem.empty()) problem = e;
    if (!problem.empty()) {
      skip_check(std::string("no profile of the ") + name + ": " + problem);
      return;
    }
    for (const remote::Kernel& k : kernels)
      for (const auto& [key, value] : k.counters) sums[key] += value;
  }
  for (const auto& [key, value] : profile_figures(name, sums, outputs)) measure(key, value);
  // The profile run ends here, never passed: what a lab's check does after grade_performance is
  // for timed results (the grade command takes the figures).
  skip_check(std::string("profile of the ") + name + ": measured");
}

// The lab's technique at the timed size (TimedRunChecks::executed), judged on what the GPU
// executed during the counted rounds, as the grader's process counted it: FAILs when it is not
// the lesson's, or when the count cannot be whole (only the candidate's call can cut it short);
// a note otherwise.
void require_timed_technique(const DeviceCount& count, const ExecutionSignature& executed) {
  if (const std::string whole = not_whole(count, "the timed case"); !whole.empty()) FAIL(whole);
  if (!count.counted) {
    note(
        "what the timed calls executed was not counted for the grader, so the lab's technique "
        "at the timed size is not verified: " +
        count.problem);
    return;
  }
  ExecutedWork w;
  w.all = w.named = as_executed(count.totals);
  std::string summary;
  const std::string why = executed(w, &summary);
  char calls[160];
  std::snprintf(calls, sizeof calls, "%d timed call(s) chosen at random, %zu samples over %.1f ms",
                count.windows, count.samples, 1e3 * count.window_s);
  if (why.empty()) {
    note("the timed kernels are the lesson's: the GPU counted (" + std::string(calls) + ") " +
         summary);
    return;
  }
  if (const std::string uncounted = not_sampled(w.all); !uncounted.empty()) {
    note("what the timed calls executed (" + why +
         ") is not verified: this GPU's sampling "
         "counts no " +
         uncounted);
    return;
  }
  FAIL("what your function's timed calls executed, as the GPU counted it for the grader (" +
       std::string(calls) + ", all their kernels together), is not the lesson's: " + why +
       (summary.empty() ? "" : " (" + summary + ")") +
       ". The performance points are for the lab's technique at the timed size, as the "
       "technique check asks it at its own.");
}

}  // namespace

void grade_performance(const std::string& lab, const Launch& candidate, const Launch& reference,
                       const Workload& work, const TimedRunChecks& checks) {
  const LabPolicy& policy = lab_policy(lab);
  if (const auto side = remote::profiled()) {
    profile_performance(*side, candidate, reference, checks);
    return;
  }
  trace("performance: inputs ready");
  // Correctness first, on this workload: one untimed run of each on the same fresh inputs,
  // compared on the device (the checks with the CPU's results ran before, on the same code).
  {
    OutputChecks first(checks);
    Stream stream;
    // Fenced as the timed samples are: work a candidate puts on another stream is ordered
    // after the fresh inputs and before the comparison.
    // One run's wall time, the device synchronised before and after.
    const auto run_ms = [&stream](const Launch& run) {
      const auto start = std::chrono::steady_clock::now();
      run(stream.get());
      CUDA_CHECK(cudaDeviceSynchronize());
      return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
          .count();
    };
    double ms[2] = {0.0, 0.0};
    for (std::size_t launch = 0; launch < 2; ++launch) {
      first.before(launch, stream.get());
      CUDA_CHECK(cudaDeviceSynchronize());
      ms[launch] = run_ms(launch == 0 ? candidate : reference);
      first.after(launch, stream.get());
    }
    CUDA_CHECK(cudaGetLastError());
    if (const std::string e = remote::take_error(); !e.empty()) FAIL("not timed: " + e);
    if (const std::string p = first.problem(/*untimed=*/true); !p.empty())
      FAIL(
          "not timed: the output must match the reference's on the performance workload "
          "first\n" +
          p);
    // A candidate this far past r_zero needs no samples (one-thread blocks take seconds a run):
    // four times r_zero, and half a second, so that noise cannot decide it; and timed once more
    // on the same inputs before it does, since a first run may include loading the module or
    // compiling its PTX for this GPU (536 ms once, for a solution).
    const double too_slow = std::max(500.0, 4.0 * policy.r_zero * ms[1]);
    if (ms[0] > too_slow) {
      ms[0] = std::min(ms[0], run_ms(candidate));
      if (const std::string e = remote::take_error(); !e.empty()) FAIL("not timed: " + e);
    }
    if (ms[0] > too_slow) {
      measure("ratio_untimed_run", ms[0] / ms[1]);
      char line[300];
      std::snprintf(line, sizeof line,
                    "too slow: r = %.0f from one untimed run each (%.1f ms, the reference's "
                    "%.3f ms), far above r_zero = %.2f: not sampled further",
                    ms[0] / ms[1], ms[0], ms[1], policy.r_zero);
      FAIL(line);
    }
  }
  trace("performance: untimed run compared");
  OutputChecks outputs(checks);
  // The judge counts a few timed rounds where the timed checks have the GPU to themselves.
  const bool count = checks.executed && device_counts_wanted() && remote::active();
  const Measured m =
      measure_pair(candidate, reference, work, &outputs, policy.r_zero, both_remote(), count);
  if (!m.timing_problem.empty()) {
    if (const std::string e = remote::take_error(); !e.empty()) FAIL(e);
    if (const std::string p = outputs.problem(); !p.empty()) FAIL(p);
    FAIL(m.timing_problem);
  }
  const double credit = perf_credit(m.ratio, policy.r_full, policy.r_zero);

  measure("ratio", m.ratio);
  measure("candidate_ms", m.candidate.median_ms);
  measure("reference_ms", m.reference.median_ms);
  measure("candidate_rse", m.candidate.rse);
  measure("samples", static_cast<double>(m.candidate.samples_ms.size()));
  measure("copy_gbs", m.device.copy_bandwidth_gbs);
  if (work.bytes > 0) {
    const double cand_gbs = gbs(work.bytes, m.candidate.median_ms);
    measure("candidate_gbs", cand_gbs);
    measure("reference_gbs", gbs(work.bytes, m.reference.median_ms));
    measure("candidate_pct_copy", 100.0 * cand_gbs / m.device.copy_bandwidth_gbs);
  }
  if (work.flops > 0) {
    const double gflops = work.flops / (m.candidate.median_ms * 1e-3) / 1e9;
    measure("candidate_gflops", gflops);
    measure("candidate_pct_fp32_peak", 100.0 * gflops / m.device.fp32_peak_gflops);
  }

  // Each figure goes into the check's message and to stdout (ctest --verbose shows passing
  // checks' figures too).
  char line[512];
  const auto say = [&line] {
    note(line);
    std::cout << line << std::endl;
  };
  std::snprintf(line, sizeof line,
                "%s on %s: candidate %.4f ms, reference %.4f ms, r = %.3f (full credit at r <= "
                "%.2f, none at r >= %.2f)",
                work.description.c_str(), m.device.name.c_str(), m.candidate.median_ms,
                m.reference.median_ms, m.ratio, policy.r_full, policy.r_zero);
  say();
  if (work.bytes > 0) {
    const double cand_gbs = gbs(work.bytes, m.candidate.median_ms);
    std::snprintf(line, sizeof line,
                  "candidate %.0f GB/s = %.0f%% of the measured copy bandwidth (%.0f GB/s)",
                  cand_gbs, 100.0 * cand_gbs / m.device.copy_bandwidth_gbs,
                  m.device.copy_bandwidth_gbs);
    say();
  }
  if (work.flops > 0) {
    const double gflops = work.flops / (m.candidate.median_ms * 1e-3) / 1e9;
    std::snprintf(line, sizeof line,
                  "candidate %.0f GFLOP/s = %.1f%% of the FP32 peak (%.0f GFLOP/s)", gflops,
                  100.0 * gflops / m.device.fp32_peak_gflops, m.device.fp32_peak_gflops);
    say();
  }
  measure("candidate_fenced_ms", m.candidate.median_fenced_ms);
  report_gpu_state(m);
  if (const std::string e = remote::take_error(); !e.empty()) FAIL(e);
  // In its own process the candidate's time is all its context did, whatever stream it used.
  if (!m.host_clocked)
    if (const std::string p =
            outside_stream_problem(m.candidate.median_ms, m.candidate.median_fenced_ms,
                                   m.reference.median_ms, m.reference.median_fenced_ms);
        !p.empty())
      FAIL(p);
  if (const std::string p = outputs.problem(); !p.empty()) FAIL(p);
  trace("performance: timed outputs compared");
  if (const std::string p = implausible_problem(
          // Only from DRAM (a cold L2) is the copy bandwidth a bound.
          work.bytes > 0 && work.flush_l2 ? gbs(work.bytes, m.candidate.median_ms) : 0.0,
          m.device.copy_bandwidth_gbs,
          work.flops > 0 ? work.flops / (m.candidate.median_ms * 1e-3) / 1e9 : 0.0,
          m.device.fp32_peak_gflops);
      !p.empty())
    FAIL(p);
  if (credit <= 0.0) {
    std::snprintf(line, sizeof line, "too slow: r = %.3f is at or above r_zero = %.2f", m.ratio,
                  policy.r_zero);
    FAIL(line);
  }
  if (count) require_timed_technique(m.executed, checks.executed);
  set_credit(credit);
}

Launch prepared_launch(const std::function<Launch()>& make) {
  try {
    return make();
  } catch (const std::exception& e) {
    FAIL(std::string("not timed: ") + e.what());
  }
  return {};
}

void check_timing_harness(const Launch& reference, const Workload& work) {
  const Measured m = measure_pair(
      reference, reference, work, nullptr, 0.0,
      remote::active()
          ? std::vector<remote::Endpoint>{remote::Endpoint::reference, remote::Endpoint::reference}
          : std::vector<remote::Endpoint>{});
  if (!m.timing_problem.empty()) FAIL(m.timing_problem);
  measure("ratio", m.ratio);
  measure("reference_ms", m.reference.median_ms);
  char line[256];
  std::snprintf(line, sizeof line, "reference vs itself on %s: r = %.3f (must be in [%.1f, %.1f])",
                m.device.name.c_str(), m.ratio, kSelfCheckLow, kSelfCheckHigh);
  note(line);
  report_gpu_state(m);
  if (m.ratio < kSelfCheckLow || m.ratio > kSelfCheckHigh) FAIL(line);
}

}  // namespace cudalab::grade
