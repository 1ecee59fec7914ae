// Lab 08 grading support: an implementation as a BfsVariant, the graphs (the course's example,
// generated graphs of every kind, the real graphs), running one BFS on guarded device buffers
// against the CPU BFS, and the performance workloads with their TEPS.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "bfs.h"
#include "cudalab/device_buffer.h"
#include "cudalab/sparse/graph.h"
#include "cudalab/timing.h"
#include "harness.h"
#include "perf.h"

namespace lab08 {

// One implementation of bfs.h (the student's, the reference).
struct BfsVariant {
  std::string name;
  void (*edge_parallel)(const int* edge_src, const int* edge_dst, int num_edges, int num_vertices,
                        int source, int* depth, const BfsWorkspace& ws, cudaStream_t stream);
  void (*frontier)(const int* row_ptr, const int* col_idx, int num_vertices, int source, int* depth,
                   const BfsWorkspace& ws, cudaStream_t stream);
  void (*direction_optimizing)(const int* row_ptr, const int* col_idx, int num_vertices, int source,
                               int* depth, const BfsWorkspace& ws, cudaStream_t stream);
};

enum class Algo { edge_parallel, frontier, direction_optimizing };
const char* algo_name(Algo a);  // "edge-parallel", "frontier", "direction-optimising"

// A graph in both layouts: the edge list as read or generated (part 1 gets it as is, self-loops
// and repeats included) and its undirected CSR (part 2), with the sources to search from.
struct GraphCase {
  std::string name;
  cudalab::sparse::EdgeList edges;
  cudalab::sparse::CsrGraph csr;
  std::vector<int> sources;
  std::uint64_t seed = 0;  // 0: fixed data
};

// CSR of `edges`: simple (self-loops and repeats removed), or the multigraph that keeps them.
GraphCase make_case(std::string name, cudalab::sparse::EdgeList edges, std::uint64_t seed,
                    bool keep_loops_and_duplicates = false);

// The course's example: 7 vertices, edges 0-1, 1-2, 2-3, 3-4, 2-6, 5-6, source 2; depths
// 2 1 0 1 2 2 1 (two levels), plus the same graph from every other source.
GraphCase worked_example();
std::vector<int> worked_example_depths();  // from source 2

// The technique check's contention graph: a source joined to `sharing` vertices, each of them
// joined to each of `shared` vertices (a complete bipartite graph), and a leaf on each of those;
// source 0. At depth 2 every one of the `shared` vertices is reached from all `sharing` frontier
// vertices at once: claims by a plain test and a write let many of them win (the lanes of a warp
// test together, before any of them writes), so the next frontier gets each vertex many times
// and its queue of num_vertices entries overflows (or, cut at its size, loses vertices, whose
// leaves then keep -1). Exactly one winner per vertex: the queue holds each once. Defaults:
// 256 and 4096 (8,449 vertices, 2.1 million arcs).
GraphCase contention_case(int sharing = 256, int shared = 4096);

// Which cases a check runs: all of them, or, under compute-sanitizer (racecheck slows a search
// with the single-block kernel's shared-memory levels by 100x and more, and its time grows with
// levels x sources x graphs), a few graphs from one or two sources each that still run every
// kernel and branch of the reference and of a plain solution: a grid from its middle (many
// levels, small frontiers), a star from its tail (a hub of degree 5000, a frontier overflowing
// the single-block queue, a multi-block level), Kronecker graphs of scales 12 and 14 from a
// vertex, a hub and an isolated vertex (hubs for blocks and warps, multi-block levels, the
// direction-optimising switch to bottom-up and back), a disconnected graph, a spider
// (multi-block top-down levels that count edges), a single vertex and two without an edge.
enum class CaseSet { full, sanitizer };
// CaseSet::sanitizer when cudalab::grade::under_sanitizer(), otherwise full.
CaseSet checks_case_set();

// A single vertex; two vertices without an edge; grids (square and not, sizes no multiple of a
// block); a star (one vertex of degree 5000); Kronecker graphs of scales 8 to 14 (hubs, isolated
// vertices, self-loops and repeats in the edge list); disconnected graphs with isolated vertices;
// a sparse random graph of many small components; a spider (a hub and 3200 legs of 18 vertices).
// The edge lists of grids, the star and the spider are written half one way, half the other
// (seeded), so that checking only one end of an edge fails. Sources: 0, the last vertex, the
// highest-degree vertex, random vertices, and an isolated vertex wherever the graph has one.
// The one-argument form gives checks_case_set()'s set.
std::vector<GraphCase> generated_cases(std::uint64_t seed);
std::vector<GraphCase> generated_cases(std::uint64_t seed, CaseSet set);
// Chains of 1,000 and 3,000 vertices and a 3 x 700 grid (written half one way, half the other, as
// above): thousands of levels. Their checks are tagged [large]: under compute-sanitizer racecheck,
// which inspects every shared-memory access between two barriers, a search of thousands of
// levels takes many minutes.
std::vector<GraphCase> long_cases(std::uint64_t seed);
// Kronecker graphs and a grid whose CSR KEEPS self-loops and repeated edges (a multigraph): a
// vertex listed twice as a neighbour must still be visited once. Under the sanitizer: the
// Kronecker graph of scale 9 from its hub and two other vertices, and the grid from a corner.
std::vector<GraphCase> multigraph_cases(std::uint64_t seed);
std::vector<GraphCase> multigraph_cases(std::uint64_t seed, CaseSet set);
// The real graphs (docs/labs/08-bfs.md, scripts/fetch-data) found in the data folder
// (CUDALAB_DATA_DIR, default <source>/data): METIS meshes 4elt, copter2, mdual, the US power grid
// (power.gml.gz, needs zlib) and WormNet. `missing` gets the files not found.
std::vector<GraphCase> real_cases(std::vector<std::string>* missing);
std::string data_dir();

// Sources for a graph: 0, the last vertex, the highest-degree vertex, `random` random vertices,
// and an isolated vertex if there is one (duplicates removed).
std::vector<int> pick_sources(const cudalab::sparse::CsrGraph& g, int random, std::uint64_t seed);

// Compares depths exactly: "" or a report (the source's depth, unwritten vertices, reachable
// vertices left at -1, unreachable vertices given a depth, the first 10 differences).
std::string compare_depths(const std::vector<int>& got, const std::vector<int>& expected,
                           int source);

// Runs `algo` of `v` from every source of `c` on guarded buffers: depth filled with kUnwritten,
// guard zones around every buffer (queues and counters included: a queue that overflows writes
// into them), inputs checked unchanged. "" or the first problem, naming the case and source.
std::string run_case(const GraphCase& c, Algo algo, const BfsVariant& v);
inline constexpr int kUnwritten = 0x7E7E7E7E;  // depth's fill: neither -1 nor any depth

// TEPS (Graph500): the edges of the searched component divided by the time. The edges are
// counted in the simple undirected graph: sum over reached vertices of their degree, halved (an
// edge inside the component has both ends reached). Self-loops and repeats are not counted.
double component_edges(const cudalab::sparse::CsrGraph& simple, const std::vector<int>& depth);

// A graph resident on the device with its workspace, for timing. Without `edge_list`, only the
// CSR goes to the device (edge_src and edge_dst stay empty: no edge-parallel search).
struct DeviceGraph {
  explicit DeviceGraph(const GraphCase& c, bool edge_list = true);
  int num_vertices, num_edges;
  cudalab::DeviceBuffer<int> edge_src, edge_dst, row_ptr, col_idx, depth, frontier, next, counters;
  BfsWorkspace workspace();
  // One search of `algo` from `source` into `out`, with `ws` (a copy of workspace()).
  void search(Algo algo, const BfsVariant& v, int source, int* out, const BfsWorkspace& ws,
              cudaStream_t stream);
  cudalab::Launch launch(Algo algo, const BfsVariant& v, int source);  // into depth
  // The timed runs' launch: searches from `*source` as it is when the launch runs (the grader
  // sets it before each sample), into `out`.
  cudalab::Launch launch(Algo algo, const BfsVariant& v, const int* source, int* out);
  std::vector<int> download_depth() const;
};

using cudalab::grade::ContextWarmup;  // harness.h

// The performance workloads: part 2 on a Kronecker graph of scale 20, edge factor 16; part 1 on
// a 256 x 256 grid (257 to 511 levels: the O(V*E) cost stays bounded). `source` is where the
// untimed searches start (a corner of the grid: the most levels); every timed run searches from
// a new source of its component, drawn from the run's key (timed_source; sample_key in perf.h:
// no earlier call can foresee it). No candidate result is checked against the CPU here:
// grade_performance compares every run with the reference's
// (the correctness checks compared the same code with the CPU BFS).
struct PerfCase {
  PerfCase(Algo algo, std::uint64_t seed);
  ContextWarmup context;  // first: overlaps the graph's generation
  Algo algo;
  GraphCase graph;
  int source;
  std::vector<int> expected;   // the CPU BFS from source: its component and levels
  double edges;                // component_edges, for TEPS: the same from every timed source
  std::vector<int> component;  // the vertices reached from source
  std::uint64_t sources_seed;  // of timed_source
  DeviceGraph device;          // the edge list only for the edge-parallel search
  int timed_source(std::uint64_t key) const;  // a vertex of `component`
  cudalab::grade::Workload workload() const;
};

// Runs every case and FAILs the current check with the first three problems (bfs_require.cpp).
void require_all_pass(const std::vector<GraphCase>& cases, Algo algo, const BfsVariant& v);
// Reports GTEPS, then grades the ratio against the reference (policy row "08"); the framework
// compares the candidate's depths with the reference's before and during the timing.
void grade_bfs_performance(Algo algo, const BfsVariant& candidate, const BfsVariant& reference);

}  // namespace lab08
