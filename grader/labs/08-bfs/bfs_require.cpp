// The parts of lab 08's grading support that FAIL the current Catch2 check; in a file of their
// own so that the runner, which links the rest of the support library, needs no Catch2.
#include <cstdio>
#include <iostream>

#include "bfs_check.h"
#include "grading.h"

namespace lab08 {

using cudalab::grade::base_seed;

void require_all_pass(const std::vector<GraphCase>& cases, Algo algo, const BfsVariant& v) {
  cudalab::grade::require_all_cases(
      cases, [&](const GraphCase& c) { return run_case(c, algo, v); }, "graphs");
}

void grade_bfs_performance(Algo algo, const BfsVariant& candidate, const BfsVariant& reference) {
  PerfCase perf(algo, base_seed());
  if (std::string p = perf.validate(candidate); !p.empty())
    FAIL("not timed: the output must be correct first\n" + p);
  // TEPS = edges of the searched component / time (component_edges); timed here on their own
  // (a few samples) because grade_performance reports times, not rates.
  cudalab::TimingOptions quick;
  quick.min_samples = 5;
  quick.max_samples = 20;
  quick.time_cap_s = 3.0;
  cudalab::Stream stream;
  const double cand_ms =
      cudalab::time_launch(perf.device.launch(algo, candidate, perf.source), stream.get(), quick)
          .median_ms;
  const double ref_ms =
      cudalab::time_launch(perf.device.launch(algo, reference, perf.source), stream.get(), quick)
          .median_ms;
  cudalab::grade::measure("component_edges", perf.edges);
  cudalab::grade::measure("candidate_gteps", perf.edges / (cand_ms * 1e-3) / 1e9);
  cudalab::grade::measure("reference_gteps", perf.edges / (ref_ms * 1e-3) / 1e9);
  char line[256];
  std::snprintf(
      line, sizeof line, "%.0f edges in the component: candidate %.3f GTEPS, reference %.3f GTEPS",
      perf.edges, perf.edges / (cand_ms * 1e-3) / 1e9, perf.edges / (ref_ms * 1e-3) / 1e9);
  cudalab::grade::note(line);
  std::cout << line << std::endl;
  cudalab::grade::grade_performance("08", perf.device.launch(algo, candidate, perf.source),
                                    perf.device.launch(algo, reference, perf.source),
                                    perf.workload());
}

}  // namespace lab08
