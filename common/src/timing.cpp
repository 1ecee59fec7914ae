#include "cudalab/timing.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <stdexcept>

#include "cudalab/stats.h"

namespace cudalab {

L2Flusher::L2Flusher(std::size_t l2_bytes) : scratch_(std::max<std::size_t>(2 * l2_bytes, 1)) {}

void L2Flusher::flush(cudaStream_t stream) {
  // Writing every line of a buffer twice the L2's size evicts whatever the timed work left there.
  CUDA_CHECK(cudaMemsetAsync(scratch_.data(), 0, scratch_.bytes(), stream));
}

bool tracing() {
  static const bool on = [] {
    const char* v = std::getenv("CUDALAB_TRACE");
    return v != nullptr && std::string(v) == "1";
  }();
  return on;
}

void trace(const std::string& what) {
  if (!tracing()) return;
  static const auto t0 = std::chrono::steady_clock::now();
  const double t = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::fprintf(stderr, "[cudalab +%.3f s] %s\n", t, what.c_str());
}

bool sampling_done(const std::vector<std::vector<double>>& samples, double elapsed_s,
                   const TimingOptions& options) {
  if (samples.empty()) return true;
  const std::size_t n = samples.front().size();
  if (n < static_cast<std::size_t>(options.min_samples)) return false;
  if (n >= static_cast<std::size_t>(options.max_samples)) return true;
  if (elapsed_s >= options.time_cap_s) return true;
  return std::all_of(samples.begin(), samples.end(), [&](const std::vector<double>& s) {
    return median_relative_standard_error(s) <= options.target_rse;
  });
}

std::vector<double> host_clock_samples(const std::vector<double>& fenced_ms,
                                       const std::vector<double>& empty_call_ms) {
  if (empty_call_ms.empty())
    throw std::invalid_argument("host_clock_samples: no empty call was timed");
  const double empty = median(empty_call_ms);
  std::vector<double> samples;
  samples.reserve(fenced_ms.size());
  for (const double f : fenced_ms) samples.push_back(f - empty);
  if (samples.empty()) return samples;
  const double work = median(samples);
  if (!(work >= kMeasurableFraction * empty)) {
    char text[256];
    std::snprintf(text, sizeof text,
                  "the work took %.4f ms by the host's clock and an empty call %.4f ms: its time "
                  "cannot be told from the call's round trip",
                  median(fenced_ms), empty);
    throw RoundTripNoise(text);
  }
  // A sample below the empty call's median is noise of the round trip: a floor, never zero.
  for (double& s : samples) s = std::max(s, kMeasurableFraction * empty);
  return samples;
}

std::vector<Timing> time_interleaved(const std::vector<Launch>& launches, cudaStream_t stream,
                                     const TimingOptions& options) {
  if (launches.empty()) return {};
  trace("timing: start");
  if (options.min_samples < 1 || options.max_samples < options.min_samples)
    throw std::invalid_argument("time_interleaved: need 1 <= min_samples <= max_samples");
  const bool host_clock = !options.host_clock_overhead.empty();
  if (host_clock && (!options.fence || options.host_clock_overhead.size() != launches.size()))
    throw std::invalid_argument(
        "time_interleaved: host-clock timing needs fence and one empty call "
        "per launch");

  std::unique_ptr<L2Flusher> flusher;
  if (options.flush_l2) {
    int device = 0, l2 = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    flusher = std::make_unique<L2Flusher>(static_cast<std::size_t>(l2));
  }

  for (int w = 0; w < options.warmup; ++w)
    for (std::size_t i = 0; i < launches.size(); ++i) {
      launches[i](stream);
      if (host_clock) options.host_clock_overhead[i]();
    }
  CUDA_CHECK(options.fence ? cudaDeviceSynchronize() : cudaStreamSynchronize(stream));

  using Clock = std::chrono::steady_clock;
  Event start, stop;
  std::vector<std::vector<double>> samples(launches.size()), fenced(launches.size()),
      empty(launches.size());
  const auto t0 = Clock::now();
  for (std::size_t round = 0;; ++round) {
    const bool aside = options.set_aside && options.set_aside(round);
    for (std::size_t i = 0; i < launches.size(); ++i) {
      if (host_clock) {
        if (flusher) flusher->flush(stream);
        CUDA_CHECK(cudaDeviceSynchronize());
        empty[i].push_back(options.host_clock_overhead[i]());
      }
      if (options.before_sample) options.before_sample(i, stream);
      if (flusher) flusher->flush(stream);
      if (options.fence) CUDA_CHECK(cudaDeviceSynchronize());
      const auto host_start = Clock::now();
      start.record(stream);
      launches[i](stream);
      stop.record(stream);
      if (options.fence) {
        CUDA_CHECK(cudaDeviceSynchronize());
        fenced[i].push_back(
            std::chrono::duration<double, std::milli>(Clock::now() - host_start).count());
      }
      samples[i].push_back(host_clock ? fenced[i].back() - median(empty[i])
                                      : stop.elapsed_since(start));
      if (options.after_sample) options.after_sample(i, stream);
      if (aside) {  // run as the others were; not kept
        samples[i].pop_back();
        if (options.fence) fenced[i].pop_back();
        if (host_clock) empty[i].pop_back();
      }
    }
    CUDA_CHECK(cudaGetLastError());
    if (aside) continue;
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (sampling_done(samples, elapsed, options)) break;
    if (options.settled && options.settled(samples)) break;
  }

  trace("timing: " + std::to_string(samples.front().size()) + " samples of " +
        std::to_string(launches.size()) + " launch(es)");
  std::vector<Timing> result(launches.size());
  for (std::size_t i = 0; i < launches.size(); ++i) {
    if (host_clock) {
      samples[i] = host_clock_samples(fenced[i], empty[i]);
      result[i].median_empty_call_ms = median(empty[i]);
      result[i].empty_call_ms = std::move(empty[i]);
    }
    result[i].median_ms = median(samples[i]);
    result[i].rse = relative_standard_error(samples[i]);
    result[i].median_rse = median_relative_standard_error(samples[i]);
    result[i].samples_ms = std::move(samples[i]);
    if (options.fence) result[i].median_fenced_ms = median(fenced[i]);
    result[i].fenced_ms = std::move(fenced[i]);
  }
  return result;
}

Timing time_launch(const Launch& launch, cudaStream_t stream, const TimingOptions& options) {
  return time_interleaved({launch}, stream, options).front();
}

}  // namespace cudalab
