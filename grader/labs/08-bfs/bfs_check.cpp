#include "bfs_check.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <sstream>
#include <stdexcept>

#include "remote.h"

#include "cudalab/random.h"
#include "cudalab/sparse/generators.h"
#include "cudalab/sparse/graph_io.h"
#include "grading.h"
#include "harness.h"

#ifndef CUDALAB_DATA_DIR_DEFAULT
#define CUDALAB_DATA_DIR_DEFAULT "data"
#endif

namespace lab08 {

using cudalab::derive_seed;
using cudalab::sparse::CsrGraph;
using cudalab::sparse::EdgeList;
using namespace cudalab::grade;

namespace {

// Writes about half of the edges the other way round (seeded), so that an edge-parallel kernel
// that looks only from edge_src to edge_dst cannot pass on a chain or a grid.
EdgeList mixed_directions(EdgeList g, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (std::size_t k = 0; k < g.src.size(); ++k)
    if (rng() & 1u) std::swap(g.src[k], g.dst[k]);
  return g;
}

// A star: vertex 0 joined to every other vertex (degree n - 1), plus a short tail 1 - n - n+1
// so that the search from the tail's end reaches the hub at depth 3.
EdgeList star_graph(int leaves) {
  EdgeList g;
  g.num_vertices = leaves + 3;
  for (int v = 1; v <= leaves; ++v) g.add(0, v);
  g.add(1, leaves + 1);
  g.add(leaves + 1, leaves + 2);
  return g;
}

}  // namespace

GraphCase contention_case(int sharing, int shared) {
  EdgeList g;
  g.num_vertices = 1 + sharing + 2 * shared;
  const int first_shared = 1 + sharing, first_leaf = first_shared + shared;
  for (int a = 0; a < sharing; ++a) g.add(0, 1 + a);
  for (int a = 0; a < sharing; ++a)
    for (int b = 0; b < shared; ++b) g.add(1 + a, first_shared + b);
  for (int b = 0; b < shared; ++b) g.add(first_shared + b, first_leaf + b);
  GraphCase c = make_case("contention: " + std::to_string(sharing) +
                              " frontier vertices sharing each of " + std::to_string(shared) +
                              " neighbours (a complete bipartite graph), a leaf on each",
                          std::move(g), 0);
  c.sources = {0};
  return c;
}

namespace {

CaseInfo info_of(const GraphCase& c, Algo algo, const std::string& variant, int source) {
  return {variant + " " + algo_name(algo) + ", " + c.name, c.seed,
          "vertices=" + std::to_string(c.csr.num_vertices) +
              " edges=" + std::to_string(c.edges.num_edges()) +
              " arcs=" + std::to_string(c.csr.num_arcs()) + " source=" + std::to_string(source)};
}

// Like check_cuda_errors, with the error's name and text on lines of their own: Catch wraps
// long lines at 80 columns, and the broken variants' EXPECT-REJECT patterns must find
// "an illegal memory access" whole.
std::string cuda_error(const CaseInfo& info) {
  // A candidate in a process of its own reports its errors with its calls' answers.
  if (std::string e = cudalab::remote::take_error(); !e.empty()) return info.header() + ":\n  " + e;
  cudaError_t status = cudaDeviceSynchronize();
  if (status == cudaSuccess) status = cudaGetLastError();
  if (status == cudaSuccess) return "";
  return info.header() + ":\n  CUDA error " + cudaGetErrorName(status) + ":\n  " +
         cudaGetErrorString(status);
}

const char* function_name(Algo a) {
  switch (a) {
    case Algo::edge_parallel: return "bfs_edge_parallel";
    case Algo::frontier: return "bfs_frontier";
    case Algo::direction_optimizing: break;
  }
  return "bfs_direction_optimizing";
}

// One call of `algo`: a and b are edge_src and edge_dst (edge-parallel, num_a edges) or row_ptr
// and col_idx. `ws` is passed as it is: the callers hand a copy.
void call(Algo algo, const BfsVariant& v, const int* a, const int* b, int num_a, int n, int source,
          int* depth, const BfsWorkspace& ws, cudaStream_t stream) {
  switch (algo) {
    case Algo::edge_parallel: v.edge_parallel(a, b, num_a, n, source, depth, ws, stream); return;
    case Algo::frontier: v.frontier(a, b, n, source, depth, ws, stream); return;
    case Algo::direction_optimizing: v.direction_optimizing(a, b, n, source, depth, ws, stream);
  }
}

// The workspace is a host input (a const reference): the candidate gets a copy, which must come
// back as it was.
std::string check_workspace(const CaseInfo& info, Algo algo, const BfsWorkspace& handed,
                            const BfsWorkspace& original) {
  if (handed.frontier == original.frontier && handed.next_frontier == original.next_frontier &&
      handed.counters == original.counters)
    return "";
  return info.header() + ":\n  " + function_name(algo) +
         " wrote to its const workspace argument (the BfsWorkspace it was handed); an input is "
         "read-only, even through a cast";
}

template <typename T>
std::string check_input(const CaseInfo& info, const GuardedBuffer<T>& buffer,
                        const std::vector<T>& original) {
  if (std::string p = buffer.check_guards(); !p.empty()) return info.header() + ":\n  " + p;
  if (buffer.download() != original)
    return info.header() + ":\n  input " + buffer.name() + " was modified; inputs are read-only";
  return "";
}

}  // namespace

const char* algo_name(Algo a) {
  switch (a) {
    case Algo::edge_parallel: return "edge-parallel";
    case Algo::frontier: return "frontier";
    case Algo::direction_optimizing: return "direction-optimising";
  }
  return "?";
}

GraphCase make_case(std::string name, EdgeList edges, std::uint64_t seed,
                    bool keep_loops_and_duplicates) {
  cudalab::sparse::UndirectedOptions options;
  options.remove_self_loops = !keep_loops_and_duplicates;
  options.remove_duplicates = !keep_loops_and_duplicates;
  GraphCase c;
  c.name = std::move(name);
  c.csr = cudalab::sparse::to_undirected_csr(edges, options);
  c.edges = std::move(edges);
  c.seed = seed;
  return c;
}

// ---------------------------------------------------------------------------------------------
// Cases

GraphCase worked_example() {
  EdgeList g;
  g.num_vertices = 7;
  // The lecture's graph, in the order it visits them: 1-2, 2-3, 2-6 at level 1; 0-1, 3-4, 5-6
  // at level 2. Written both ways round.
  g.add(0, 1);
  g.add(2, 1);
  g.add(2, 3);
  g.add(4, 3);
  g.add(6, 2);
  g.add(5, 6);
  GraphCase c = make_case("course worked example (7 vertices, source 2: depths 2 1 0 1 2 2 1)",
                          std::move(g), 0);
  c.sources = {2, 0, 1, 3, 4, 5, 6};
  return c;
}

std::vector<int> worked_example_depths() {
  return {2, 1, 0, 1, 2, 2, 1};
}

std::vector<int> pick_sources(const CsrGraph& g, int random, std::uint64_t seed) {
  const int n = g.num_vertices;
  std::vector<int> s = {0, n - 1};
  int hub = 0, isolated = -1;
  for (int v = 0; v < n; ++v) {
    if (g.degree(v) > g.degree(hub)) hub = v;
    if (isolated < 0 && g.row_ptr[v + 1] == g.row_ptr[v]) isolated = v;
  }
  s.push_back(hub);
  for (int k = 0; k < random; ++k)
    s.push_back(static_cast<int>(cudalab::random_int(derive_seed(seed, 50 + k), 0, n - 1)));
  if (isolated >= 0) s.push_back(isolated);
  std::vector<int> unique;
  for (const int v : s)
    if (std::find(unique.begin(), unique.end(), v) == unique.end()) unique.push_back(v);
  return unique;
}

CaseSet checks_case_set() {
  return cudalab::grade::under_sanitizer() ? CaseSet::sanitizer : CaseSet::full;
}

namespace {

// The sources a case keeps under compute-sanitizer, named by what pick_sources would pick.
enum class Pick { first, middle, last, hub, isolated };

std::vector<int> few_sources(const CsrGraph& g, const std::vector<Pick>& picks) {
  const int n = g.num_vertices;
  int hub = 0, isolated = -1;
  for (int v = 0; v < n; ++v) {
    if (g.degree(v) > g.degree(hub)) hub = v;
    if (isolated < 0 && g.row_ptr[v + 1] == g.row_ptr[v]) isolated = v;
  }
  std::vector<int> sources;
  for (const Pick p : picks) {
    const int v = p == Pick::first    ? 0
                  : p == Pick::middle ? n / 2
                  : p == Pick::last   ? n - 1
                  : p == Pick::hub    ? hub
                                      : isolated;
    if (v >= 0 && std::find(sources.begin(), sources.end(), v) == sources.end())
      sources.push_back(v);
  }
  return sources;
}

// The cases of one set: every case of the full set (with `random_sources` random sources besides
// the fixed ones, pick_sources), or, for the sanitizer, only those given `few` sources, from
// those alone.
class CaseList {
 public:
  explicit CaseList(CaseSet set) : full_(set == CaseSet::full) {}

  void add(std::string name, EdgeList edges, std::uint64_t s, int random_sources,
           std::vector<Pick> few = {}, bool keep_loops_and_duplicates = false) {
    if (!full_ && few.empty()) return;
    GraphCase c = make_case(std::move(name), std::move(edges), s, keep_loops_and_duplicates);
    c.sources = full_ ? pick_sources(c.csr, random_sources, s) : few_sources(c.csr, few);
    cases_.push_back(std::move(c));
  }
  std::vector<GraphCase> take() { return std::move(cases_); }

 private:
  bool full_;
  std::vector<GraphCase> cases_;
};

// A spider: vertex 0 joined to the first vertex of each of `legs` paths of `length` vertices.
// From the hub every level has `legs` vertices of degree 2 (1 at the feet): with more legs than
// the reference's single-block queue (3072) and legs of at least 15 vertices (the frontier's
// arcs then stay below 1 / alpha = 1/14 of the unexplored ones), its direction-optimising
// search runs its multi-block top-down kernel, which counts the frontier's edges, level after
// level.
EdgeList spider_graph(int legs, int length) {
  EdgeList g;
  g.num_vertices = 1 + legs * length;
  for (int leg = 0; leg < legs; ++leg) {
    const int first = 1 + leg * length;
    g.add(0, first);
    for (int k = 1; k < length; ++k) g.add(first + k - 1, first + k);
  }
  return g;
}

}  // namespace

std::vector<GraphCase> generated_cases(std::uint64_t seed) {
  return generated_cases(seed, checks_case_set());
}

std::vector<GraphCase> generated_cases(std::uint64_t seed, CaseSet set) {
  namespace sp = cudalab::sparse;
  CaseList cases(set);
  EdgeList single;
  single.num_vertices = 1;
  cases.add("a single vertex", single, 0, 0, {Pick::first});
  EdgeList pair;
  pair.num_vertices = 2;
  cases.add("two vertices, no edge", pair, 0, 0, {Pick::first, Pick::last});
  std::uint64_t s = derive_seed(seed, 802);
  // From the middle: 45 levels of at most 74 vertices (the single-block kernel's many levels).
  cases.add("grid 37 x 53", mixed_directions(sp::grid_graph(37, 53), s), s, 2, {Pick::middle});
  s = derive_seed(seed, 804);
  cases.add("grid 129 x 130", mixed_directions(sp::grid_graph(129, 130), s), s, 1);
  s = derive_seed(seed, 805);
  // From the tail's end: the hub is expanded by a whole block, its 5000 leaves overflow the
  // single-block queue and are searched by the multi-block kernel.
  cases.add("star: one vertex of degree 5000", mixed_directions(star_graph(5000), s), s, 1,
            {Pick::last});
  int k = 0;
  for (const int scale : {8, 10, 12, 14}) {
    s = derive_seed(seed, 810 + k++);
    // Under the sanitizer: scale 14 from its hub and two vertices of any degree (the numbering
    // is permuted), scale 12 from one: hubs expanded by blocks and warps, frontiers of thousands
    // (multi-block levels), the direction-optimising switch to bottom-up and back; and scale 14
    // from an isolated vertex.
    const std::vector<Pick> few = scale == 14   ? std::vector<Pick>{Pick::hub, Pick::isolated}
                                  : scale == 12 ? std::vector<Pick>{Pick::first}
                                                : std::vector<Pick>{};
    cases.add(
        "Kronecker scale " + std::to_string(scale) + ", edge factor 16 (self-loops and repeats)",
        sp::kronecker_graph(scale, 16, s), s, 2, few);
  }
  s = derive_seed(seed, 820);
  cases.add("disconnected: 8 components of 300 vertices and 40 isolated vertices",
            sp::disconnected_graph(8, 300, 40, s), s, 3, {Pick::hub, Pick::isolated});
  s = derive_seed(seed, 821);
  cases.add("sparse random graph (3000 vertices, 2000 edges: many small components)",
            sp::random_graph(3000, 2000, s), s, 3);
  s = derive_seed(seed, 822);
  cases.add("Kronecker scale 10 with 500 extra self-loops and 2000 repeated edges",
            sp::add_loops_and_duplicates(sp::kronecker_graph(10, 8, s), 500, 2000, s + 1), s, 2);
  s = derive_seed(seed, 823);
  cases.add("spider: a hub and 3200 legs of 18 vertices",
            mixed_directions(spider_graph(3200, 18), s), s, 1, {Pick::first});
  return cases.take();
}

std::vector<GraphCase> long_cases(std::uint64_t seed) {
  namespace sp = cudalab::sparse;
  CaseList cases(CaseSet::full);  // [large]: never run under a sanitizer
  std::uint64_t s = derive_seed(seed, 800);
  cases.add("chain of 1000 vertices", mixed_directions(sp::chain_graph(1000), s), s, 1);
  s = derive_seed(seed, 801);
  cases.add("chain of 3000 vertices", mixed_directions(sp::chain_graph(3000), s), s, 1);
  s = derive_seed(seed, 803);
  cases.add("grid 3 x 700 (long and thin)", mixed_directions(sp::grid_graph(3, 700), s), s, 1);
  return cases.take();
}

std::vector<GraphCase> multigraph_cases(std::uint64_t seed) {
  return multigraph_cases(seed, checks_case_set());
}

std::vector<GraphCase> multigraph_cases(std::uint64_t seed, CaseSet set) {
  namespace sp = cudalab::sparse;
  CaseList cases(set);
  int k = 0;
  for (const int scale : {9, 12}) {
    const std::uint64_t s = derive_seed(seed, 840 + k++);
    cases.add(
        "Kronecker scale " + std::to_string(scale) +
            " with 1000 self-loops and 4000 repeated edges, KEPT in the CSR (multigraph)",
        sp::add_loops_and_duplicates(sp::kronecker_graph(scale, 16, s), 1000, 4000, s + 1), s, 2,
        scale == 9 ? std::vector<Pick>{Pick::first, Pick::last, Pick::hub} : std::vector<Pick>{},
        /*keep_loops_and_duplicates=*/true);
  }
  const std::uint64_t s = derive_seed(seed, 850);
  EdgeList grid = sp::grid_graph(40, 40);
  const EdgeList once = grid;
  for (int r = 0; r < 2; ++r)
    for (std::size_t e = 0; e < once.num_edges(); ++e) grid.add(once.dst[e], once.src[e]);
  for (int v = 0; v < grid.num_vertices; ++v) grid.add(v, v);
  cases.add("grid 40 x 40, every edge repeated 3 times, a self-loop on every vertex (multigraph)",
            mixed_directions(grid, s), s, 1, {Pick::first}, /*keep_loops_and_duplicates=*/true);
  return cases.take();
}

std::string data_dir() {
  if (const char* env = std::getenv("CUDALAB_DATA_DIR"); env != nullptr && *env != '\0') return env;
  return CUDALAB_DATA_DIR_DEFAULT;
}

std::vector<GraphCase> real_cases(std::vector<std::string>* missing) {
  namespace sp = cudalab::sparse;
  std::vector<GraphCase> cases;
  const auto add = [&](const std::string& file, const std::string& what, sp::GraphFormat format,
                       const sp::EdgeListOptions& options) {
    const std::string path = data_dir() + "/graphs/" + file;
    if (!std::filesystem::exists(path) ||
        (file.size() > 3 && file.substr(file.size() - 3) == ".gz" && !sp::gzip_supported())) {
      missing->push_back(path);
      return;
    }
    GraphCase c =
        make_case(file + " (" + what + ")", sp::read_graph_edges(path, format, options), 0);
    c.sources = pick_sources(c.csr, 1, 0x08);
    cases.push_back(std::move(c));
  };
  add("4elt.graph", "METIS, 2D finite-element mesh", sp::GraphFormat::metis, {});
  add("copter2.graph", "METIS, helicopter mesh", sp::GraphFormat::metis, {});
  add("mdual.graph", "METIS, dual mesh, 258K vertices", sp::GraphFormat::metis, {});
  add("power.gml.gz", "US power grid, high diameter", sp::GraphFormat::gml, {});
  sp::EdgeListOptions names;
  names.ids = sp::VertexIds::names;
  add("WormNet.v3.benchmark.txt", "gene network, named vertices", sp::GraphFormat::edge_list,
      names);
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Checking

std::string compare_depths(const std::vector<int>& got, const std::vector<int>& expected,
                           int source) {
  std::size_t differ = 0, unwritten = 0, left_unreached = 0, wrongly_reached = 0;
  std::ostringstream first;
  for (std::size_t v = 0; v < got.size(); ++v) {
    if (got[v] == expected[v]) continue;
    ++differ;
    if (got[v] == kUnwritten)
      ++unwritten;
    else if (got[v] == -1)
      ++left_unreached;
    else if (expected[v] == -1)
      ++wrongly_reached;
    if (differ <= 10) {
      first << "\n  vertex " << v << ": expected " << expected[v] << ", got ";
      if (got[v] == kUnwritten)
        first << "never written";
      else
        first << got[v];
    }
  }
  if (differ == 0) return "";
  std::ostringstream out;
  out << "depth is wrong at " << differ << " of " << got.size() << " vertices (exact comparison)";
  if (got[static_cast<std::size_t>(source)] != 0)
    out << "\n  the source's depth is "
        << (got[static_cast<std::size_t>(source)] == kUnwritten
                ? std::string("never written")
                : std::to_string(got[static_cast<std::size_t>(source)]))
        << ", not 0";
  if (unwritten > 0)
    out << "\n  " << unwritten << " vertices never written (depth must be set for every vertex)";
  if (left_unreached > 0)
    out << "\n  " << left_unreached << " reachable vertices left at -1 (the BFS stopped early)";
  if (wrongly_reached > 0)
    out << "\n  " << wrongly_reached << " unreachable vertices were given a depth";
  return out.str() + first.str();
}

std::string run_case(const GraphCase& c, Algo algo, const BfsVariant& v) {
  const int n = c.csr.num_vertices;
  const bool edge_list = algo == Algo::edge_parallel;
  const std::vector<int>& in_a = edge_list ? c.edges.src : c.csr.row_ptr;
  const std::vector<int>& in_b = edge_list ? c.edges.dst : c.csr.col_idx;
  GuardedBuffer<int> a(edge_list ? "edge_src" : "row_ptr", in_a.size());
  GuardedBuffer<int> b(edge_list ? "edge_dst" : "col_idx", in_b.size());
  a.upload(in_a);
  b.upload(in_b);
  GuardedBuffer<int> depth("depth", static_cast<std::size_t>(n));
  GuardedBuffer<int> frontier("frontier", static_cast<std::size_t>(n));
  GuardedBuffer<int> next("next_frontier", static_cast<std::size_t>(n));
  GuardedBuffer<int> counters("counters", kBfsCounters);
  const BfsWorkspace ws{frontier.data(), next.data(), counters.data()};
  cudalab::Stream stream;
  for (const int source : c.sources) {
    const CaseInfo info = info_of(c, algo, v.name, source);
    CUDA_CHECK(cudaMemset(depth.data(), 0x7E, depth.size() * sizeof(int)));
    CUDA_CHECK(cudaDeviceSynchronize());
    BfsWorkspace handed = ws;  // not const: a write through a cast must be defined, then seen
    try {
      call(algo, v, a.data(), b.data(), static_cast<int>(in_a.size()), n, source, depth.data(),
           handed, stream.get());
    } catch (const std::exception& e) {
      return info.header() + ":\n  threw " + e.what();
    }
    if (std::string p = cuda_error(info); !p.empty()) return p;
    if (std::string p = check_workspace(info, algo, handed, ws); !p.empty()) return p;
    for (const GuardedBuffer<int>* scratch : {&frontier, &next, &counters, &depth})
      if (std::string p = scratch->check_guards(); !p.empty())
        return info.header() + ":\n  " + p +
               (scratch == &depth ? ""
                                  : "\n  frontier overflow: a queue holds at most num_vertices "
                                    "entries (a vertex must enter it only once)");
    const std::vector<int> expected = cudalab::sparse::bfs_depths(c.csr, source);
    if (std::string p = compare_depths(depth.download(), expected, source); !p.empty())
      return info.header() + ":\n  " + p;
    if (std::string p = check_input(info, a, in_a); !p.empty()) return p;
    if (std::string p = check_input(info, b, in_b); !p.empty()) return p;
  }
  return "";
}

double component_edges(const CsrGraph& simple, const std::vector<int>& depth) {
  double arcs = 0.0;
  for (int v = 0; v < simple.num_vertices; ++v)
    if (depth[static_cast<std::size_t>(v)] >= 0) arcs += simple.degree(v);
  return arcs / 2.0;
}

// ---------------------------------------------------------------------------------------------
// Performance

DeviceGraph::DeviceGraph(const GraphCase& c, bool edge_list)
    : num_vertices(c.csr.num_vertices),
      num_edges(static_cast<int>(c.edges.num_edges())),
      edge_src(edge_list ? cudalab::DeviceBuffer<int>(c.edges.src) : cudalab::DeviceBuffer<int>()),
      edge_dst(edge_list ? cudalab::DeviceBuffer<int>(c.edges.dst) : cudalab::DeviceBuffer<int>()),
      row_ptr(c.csr.row_ptr),
      col_idx(c.csr.col_idx),
      depth(static_cast<std::size_t>(c.csr.num_vertices)),
      frontier(static_cast<std::size_t>(c.csr.num_vertices)),
      next(static_cast<std::size_t>(c.csr.num_vertices)),
      counters(kBfsCounters) {}

BfsWorkspace DeviceGraph::workspace() {
  return {frontier.data(), next.data(), counters.data()};
}

void DeviceGraph::search(Algo algo, const BfsVariant& v, int source, int* out,
                         const BfsWorkspace& ws, cudaStream_t stream) {
  const bool edge_list = algo == Algo::edge_parallel;
  call(algo, v, edge_list ? edge_src.data() : row_ptr.data(),
       edge_list ? edge_dst.data() : col_idx.data(), num_edges, num_vertices, source, out, ws,
       stream);
}

// The launches hand each call a workspace of its own (a temporary): what the candidate does to
// its const argument dies with it.
cudalab::Launch DeviceGraph::launch(Algo algo, const BfsVariant& v, int source) {
  return [this, algo, v, source](cudaStream_t s) {
    search(algo, v, source, depth.data(), workspace(), s);
  };
}

cudalab::Launch DeviceGraph::launch(Algo algo, const BfsVariant& v, const int* source, int* out) {
  return [this, algo, v, source, out](cudaStream_t s) {
    search(algo, v, *source, out, workspace(), s);
  };
}

std::vector<int> DeviceGraph::download_depth() const {
  return depth.download();
}

namespace {

GraphCase perf_graph(Algo algo, std::uint64_t seed) {
  if (algo == Algo::edge_parallel) {
    const std::uint64_t s = derive_seed(seed, 900);
    return make_case("grid 256 x 256", mixed_directions(cudalab::sparse::grid_graph(256, 256), s),
                     s);
  }
  const std::uint64_t s = derive_seed(seed, 901);
  return make_case("Kronecker scale 20, edge factor 16",
                   cudalab::sparse::kronecker_graph(20, 16, s), s);
}

// The untimed searches' source: a corner of the grid (its most levels); on the Kronecker graph,
// as Graph500 searches, a random vertex of nonzero degree (the first in a seeded random order).
int perf_source(const GraphCase& g, std::uint64_t seed) {
  if (g.name.rfind("grid", 0) == 0) return 0;
  for (int k = 0;; ++k) {
    const auto v = static_cast<int>(
        cudalab::random_int(derive_seed(seed, 950 + k), 0, g.csr.num_vertices - 1));
    if (g.csr.degree(v) > 0) return v;
  }
}

}  // namespace

PerfCase::PerfCase(Algo algo_, std::uint64_t seed)
    : algo(algo_),
      graph(perf_graph(algo_, seed)),
      source(perf_source(graph, seed)),
      expected(cudalab::sparse::bfs_depths(graph.csr, source)),
      edges(component_edges(graph.csr, expected)),
      sources_seed(derive_seed(seed, 960)),
      device(graph, /*edge_list=*/algo_ == Algo::edge_parallel) {
  for (int v = 0; v < graph.csr.num_vertices; ++v)
    if (expected[static_cast<std::size_t>(v)] >= 0) component.push_back(v);
}

int PerfCase::timed_source(std::uint64_t key) const {
  // From the first source's component (on the Kronecker graph, the giant one): every timed
  // search covers the same edges, so the TEPS stay comparable, and no source repeats often
  // enough for a result kept from an earlier run to pass.
  const auto k = cudalab::random_int(derive_seed(sources_seed, key), 0,
                                     static_cast<std::int64_t>(component.size()) - 1);
  return component[static_cast<std::size_t>(k)];
}

Workload PerfCase::workload() const {
  const double n = graph.csr.num_vertices;
  const double arcs = static_cast<double>(graph.csr.num_arcs());
  // The timed searches start anywhere in the component: every vertex's eccentricity is at least
  // half of the first source's (e(s) <= d(s, v) + e(v) <= 2 e(v)), so no search has fewer
  // levels than that.
  const int deepest = *std::max_element(expected.begin(), expected.end());
  const double levels = (deepest + 1) / 2 + 1.0;
  // Minimum DRAM traffic of one search. Frontier: the CSR read once (row_ptr (n + 1) ints,
  // col_idx one int per arc) and depth written once, 4 bytes each. Edge-parallel: the course's
  // algorithm reads every edge (8 bytes) at every level and depth once per level is not
  // counted, so the figure is a lower bound of (levels + 1) passes over the edge list.
  const double bytes =
      algo == Algo::edge_parallel
          ? 8.0 * static_cast<double>(graph.edges.num_edges()) * (levels + 1.0) + 4.0 * n
          : 4.0 * (n + 1.0) + 4.0 * arcs + 4.0 * n;
  return {std::string(algo_name(algo)) + " BFS, " + graph.name + ", a new source each run (" +
              std::to_string(component.size()) + " vertices reachable, at least " +
              std::to_string(static_cast<long long>(levels)) + " levels)",
          bytes, 0.0, true};
}

}  // namespace lab08
