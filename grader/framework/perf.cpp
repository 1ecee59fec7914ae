#include "perf.h"

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "cudalab/device_info.h"
#include "grading.h"
#include "policy.h"

namespace cudalab::grade {

namespace {

struct Measured {
  Timing candidate, reference;
  double ratio;
  DeviceInfo device;
};

Measured measure_pair(const Launch& candidate, const Launch& reference, const Workload& work) {
  Measured m;
  m.device = query_device(0, /*measure_copy=*/true);
  Stream stream;
  TimingOptions options;
  options.flush_l2 = work.flush_l2;
  auto t = time_interleaved({candidate, reference}, stream.get(), options);
  m.candidate = t[0];
  m.reference = t[1];
  m.ratio = m.candidate.median_ms / m.reference.median_ms;
  return m;
}

double gbs(double bytes, double ms) {
  return bytes / (ms * 1e-3) / 1e9;
}

}  // namespace

void grade_performance(const std::string& lab, const Launch& candidate, const Launch& reference,
                       const Workload& work) {
  const LabPolicy& policy = lab_policy(lab);
  const Measured m = measure_pair(candidate, reference, work);
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
  if (credit <= 0.0) {
    std::snprintf(line, sizeof line, "too slow: r = %.3f is at or above r_zero = %.2f", m.ratio,
                  policy.r_zero);
    FAIL(line);
  }
  set_credit(credit);
}

void check_timing_harness(const Launch& reference, const Workload& work) {
  const Measured m = measure_pair(reference, reference, work);
  measure("ratio", m.ratio);
  measure("reference_ms", m.reference.median_ms);
  char line[256];
  std::snprintf(line, sizeof line, "reference vs itself on %s: r = %.3f (must be in [%.1f, %.1f])",
                m.device.name.c_str(), m.ratio, kSelfCheckLow, kSelfCheckHigh);
  note(line);
  if (m.ratio < kSelfCheckLow || m.ratio > kSelfCheckHigh) FAIL(line);
}

}  // namespace cudalab::grade
