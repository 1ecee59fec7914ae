// The parts of lab 08's grading support that FAIL the current Catch2 check; in a file of their
// own so that the runner, which links the rest of the support library, needs no Catch2.
#include <cstdio>
#include <iostream>

#include "bfs_check.h"
#include "grading.h"
#include "remote.h"

namespace lab08 {

using cudalab::grade::base_seed;

void require_all_pass(const std::vector<GraphCase>& cases, Algo algo, const BfsVariant& v) {
  cudalab::grade::require_all_cases(
      cases, [&](const GraphCase& c) { return run_case(c, algo, v); }, "graphs");
}

void grade_bfs_performance(Algo algo, const BfsVariant& candidate, const BfsVariant& reference) {
  PerfCase perf(algo, base_seed());
  // TEPS = edges of the searched component / time (component_edges); timed here on their own
  // (a few samples) because grade_performance reports times, not rates. Not in the profile's
  // runs, which count every call of the profiled process.
  if (!cudalab::remote::profiled()) {
    cudalab::TimingOptions quick;
    quick.min_samples = 5;
    quick.max_samples = 8;
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
    std::snprintf(line, sizeof line,
                  "%.0f edges in the component: candidate %.3f GTEPS, reference %.3f GTEPS",
                  perf.edges, perf.edges / (cand_ms * 1e-3) / 1e9,
                  perf.edges / (ref_ms * 1e-3) / 1e9);
    cudalab::grade::note(line);
    std::cout << line << std::endl;
  }
  // Every timed run searches from a new source (timed_source of the run's key: the
  // reference's run after the candidate's searches from the same one); each writes its own
  // depth, filled with kUnwritten before the run (not -1, a depth), compared exactly.
  int source = perf.source;  // the warm-up runs'
  cudalab::DeviceBuffer<int> depth_reference(perf.device.depth.size());
  cudalab::grade::TimedRunChecks checks;
  checks.fresh_inputs = [&](std::uint64_t sample, cudaStream_t) {
    source = perf.timed_source(sample);
  };
  cudalab::grade::TimedOutput depth;
  depth.name = "depth";
  depth.candidate = perf.device.depth.data();
  depth.reference = depth_reference.data();
  depth.count = perf.device.depth.size();
  depth.exact = true;
  static_assert(kUnwritten == 0x7E7E7E7E, "depth's poison is kUnwritten's byte");
  depth.poison = 0x7E;
  checks.outputs = {depth};
  // The graph stays the same: a candidate that changed it would change what the reference reads.
  const DeviceGraph& g = perf.device;
  if (algo == Algo::edge_parallel)
    checks.unchanged = {{"edge_src", g.edge_src.data(), g.edge_src.bytes()},
                        {"edge_dst", g.edge_dst.data(), g.edge_dst.bytes()}};
  else
    checks.unchanged = {{"row_ptr", g.row_ptr.data(), g.row_ptr.bytes()},
                        {"col_idx", g.col_idx.data(), g.col_idx.bytes()}};
  cudalab::grade::grade_performance(
      "08", perf.device.launch(algo, candidate, &source, perf.device.depth.data()),
      perf.device.launch(algo, reference, &source, depth_reference.data()), perf.workload(),
      checks);
}

}  // namespace lab08
