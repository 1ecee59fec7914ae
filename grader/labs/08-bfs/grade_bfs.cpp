// Lab 08 graded checks: breadth-first search, the course's edge-parallel version (part 1) and
// the frontier (queue) version (part 2).
//
// Correctness: depths must equal the CPU BFS (cudalab::sparse::bfs_depths) EXACTLY, -1 for
// unreachable vertices, on the course's example (from every vertex), generated graphs (a single
// vertex, chains, grids, a star, Kronecker graphs with hubs, self-loops and repeats, disconnected
// graphs with isolated vertices), multigraph CSRs (part 2: repeated neighbours) and the real
// graphs when installed; several sources each, an isolated vertex among them where there is one.
// Depth starts filled with 0x7E7E7E7E (never a depth), so an unwritten vertex fails; guard zones
// around the queues catch a frontier that overflows (a vertex enqueued twice).
// The technique check reads the candidate's PTX: bfs_frontier_kernel must claim vertices with an
// atomic (atom.*.cas / min / exch) and reserve queue slots with atomic adds; on a GPU the claims
// must also be exclusive in what they did (contention_case: 256 frontier vertices sharing each
// of 4096 neighbours).
// The sanitize label runs memcheck and racecheck (the course's benign race is on global memory:
// racecheck checks shared memory and stays clean) on every correctness check but the [large]
// ones: the real graphs and the searches of thousands of levels (chains, a long thin grid), which
// take many minutes under racecheck; the grids and Kronecker graphs it does run cover the same
// kernels.
#include "grading.h"
#include "impls.h"
#include "launch_trace.h"
#include "technique.h"

using cudalab::grade::base_seed;
using lab08::Algo;

GRADED_CHECK("frontier kernel claims vertices and queue slots with atomics", "[lab08][technique]",
             10, Needs::host) {
  using namespace cudalab::grade;
  TechniqueRule rule = ptx_rule(
      "bfs_frontier_kernel", [](const KernelAnalysis& k, const std::string& label) -> std::string {
        if (!k.problem.empty()) return label + " (" + k.name + "): " + k.problem;
        int claims = 0, adds = 0;
        for (const char* op : {"atom.global.cas", "atom.cas", "atom.global.min", "atom.min",
                               "atom.global.exch", "atom.exch"})
          claims += k.count(op);
        for (const char* op : {"atom.global.add", "atom.add", "atom.shared.add", "red.global.add",
                               "red.add", "red.shared.add"})
          adds += k.count(op);
        if (claims == 0)
          return "no atomic claim in " + label + " (no atom.cas, atom.min or atom.exch; " + k.name +
                 ")\na vertex reached from several frontier vertices must be claimed by ONE\n"
                 "thread (atomicCAS or atomicMin on its depth), or it enters the next\n"
                 "frontier several times";
        if (adds == 0)
          return "no atomic add in " + label + " (" + k.name +
                 "): the next frontier's slots must be\nreserved with atomicAdd on its size";
        return "";
      });
  // A kernel that expands a frontier: atomics, or a loop that stores what it read (the queue).
  rule.does_work = [](const KernelAnalysis& k) {
    if (k.count("atom") + k.count("red") > 0) return true;
    for (const auto& s : k.stored)
      if (s.in_loop && (s.sources & kAnyMemory)) return true;
    return false;
  };
  const LaunchTrace trace = trace_launches(
      [] { lab08::run_case(lab08::worked_example(), Algo::frontier, lab08::kCandidate); });
  TechniqueVerdict verdict = judge_technique(candidate_ptx(), rule, trace);
  // On a GPU, what the claims did: counters see an atomic executed, not whether it won, so a
  // token atomicCAS beside a plain test-and-write looks like the lesson. The contention graph
  // tells them apart by the result: with plain claims the lanes of a warp that share a neighbour
  // all see it unvisited and all queue it, and the next frontier overflows its num_vertices
  // entries (the guard zones, or an illegal address) or, cut at its size, loses vertices.
  if (verdict.status == TechniqueVerdict::Status::pass && trace.has_device) {
    const lab08::GraphCase contention = lab08::contention_case();
    const std::string problem = lab08::run_case(contention, Algo::frontier, lab08::kCandidate);
    if (!problem.empty()) {
      verdict.status = TechniqueVerdict::Status::fail;
      verdict.message =
          "the frontier kernel's claims are not exclusive: on a graph where 256 frontier "
          "vertices reach each of 4096 vertices at once, the search went wrong:\n" +
          problem +
          "\nexactly one thread may win a vertex: an atomic on its depth whose result says who "
          "won;\na plain test and write lets every lane of a warp that tests it win it together";
    }
  }
  require_technique({verdict});
}

// ---- Part 1: the course's edge-parallel BFS --------------------------------------------------

GRADED_CHECK("edge-parallel: course worked example", "[lab08][correctness]", 5, Needs::gpu) {
  lab08::require_all_pass({lab08::worked_example()}, Algo::edge_parallel, lab08::kCandidate);
}

GRADED_CHECK("edge-parallel: generated graphs", "[lab08][correctness]", 10, Needs::gpu) {
  lab08::require_all_pass(lab08::generated_cases(base_seed()), Algo::edge_parallel,
                          lab08::kCandidate);
}

GRADED_CHECK("edge-parallel: chains and a long thin grid", "[lab08][correctness][large]", 5,
             Needs::gpu) {
  lab08::require_all_pass(lab08::long_cases(base_seed()), Algo::edge_parallel, lab08::kCandidate);
}

namespace {
void real_graphs(Algo algo) {
  std::vector<std::string> missing;
  const auto cases = lab08::real_cases(&missing);
  if (!missing.empty()) {
    cudalab::grade::skip_check(
        "graphs not found (scripts/fetch-data graphs installs them; or set CUDALAB_DATA_DIR): " +
        missing.front() +
        (missing.size() > 1 ? " and " + std::to_string(missing.size() - 1) + " more" : ""));
    return;
  }
  lab08::require_all_pass(cases, algo, lab08::kCandidate);
}
}  // namespace

GRADED_CHECK("edge-parallel: real graphs", "[lab08][correctness][large]", 5, Needs::gpu) {
  real_graphs(Algo::edge_parallel);
}

// ---- Part 2: the frontier BFS ----------------------------------------------------------------

GRADED_CHECK("frontier: course worked example", "[lab08][correctness]", 5, Needs::gpu) {
  lab08::require_all_pass({lab08::worked_example()}, Algo::frontier, lab08::kCandidate);
}

GRADED_CHECK("frontier: generated graphs", "[lab08][correctness]", 10, Needs::gpu) {
  lab08::require_all_pass(lab08::generated_cases(base_seed()), Algo::frontier, lab08::kCandidate);
}

GRADED_CHECK("frontier: chains and a long thin grid", "[lab08][correctness][large]", 5,
             Needs::gpu) {
  lab08::require_all_pass(lab08::long_cases(base_seed()), Algo::frontier, lab08::kCandidate);
}

GRADED_CHECK("frontier: self-loops and repeated neighbours in the CSR", "[lab08][correctness]", 5,
             Needs::gpu) {
  lab08::require_all_pass(lab08::multigraph_cases(base_seed()), Algo::frontier, lab08::kCandidate);
}

GRADED_CHECK("frontier: real graphs", "[lab08][correctness][large]", 5, Needs::gpu) {
  real_graphs(Algo::frontier);
}

GRADED_CHECK("direction-optimising (stretch): every graph", "[lab08][correctness]", 0, Needs::gpu) {
  // Not graded (the skeleton calls bfs_frontier), but it keeps the reference's stretch honest.
  auto cases = lab08::generated_cases(base_seed());
  for (auto& c : lab08::multigraph_cases(base_seed())) cases.push_back(std::move(c));
  cases.push_back(lab08::worked_example());
  lab08::require_all_pass(cases, Algo::direction_optimizing, lab08::kCandidate);
}

GRADED_CHECK("direction-optimising (stretch): chains and a long thin grid",
             "[lab08][correctness][large]", 0, Needs::gpu) {
  lab08::require_all_pass(lab08::long_cases(base_seed()), Algo::direction_optimizing,
                          lab08::kCandidate);
}

// ---- Performance -----------------------------------------------------------------------------

GRADED_CHECK("edge-parallel: performance vs reference", "[lab08][perf]", 10, Needs::gpu) {
  lab08::grade_bfs_performance(Algo::edge_parallel, lab08::kCandidate, lab08::kReference);
}

GRADED_CHECK("frontier: performance vs reference", "[lab08][perf][profile]", 15, Needs::gpu) {
  lab08::grade_bfs_performance(Algo::frontier, lab08::kCandidate, lab08::kReference);
}

GRADED_CHECK("timing harness self-check", "[lab08][selfcheck]", 0, Needs::gpu) {
  lab08::PerfCase perf(Algo::frontier, base_seed());
  cudalab::grade::check_timing_harness(
      perf.device.launch(Algo::frontier, lab08::kReference, perf.source), perf.workload());
}
