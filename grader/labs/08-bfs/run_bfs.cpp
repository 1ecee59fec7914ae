// lab08-bfs: breadth-first search with the student's or the reference's code on a graph file or
// a generated graph: verifies the depths against the CPU BFS, times the search and reports
// GTEPS and the number of levels. --bench runs both parts of the student and the reference, and
// the reference's direction-optimising BFS, on each graph class.
//
//   lab08-bfs --generate kronecker --scale 20 --edge-factor 16 --algo both
//   lab08-bfs --generate grid --size 1024 --algo frontier --impl reference
//   lab08-bfs --graph data/graphs/4elt.graph --source 0
//   lab08-bfs --graph data/graphs/WormNet.v3.benchmark.txt --ids names
//   lab08-bfs --bench --json bench.json
//
// TEPS (Graph500): traversed edges per second = the edges of the searched component / time,
// where the edges are those of the simple undirected graph with both ends reached (sum of the
// reached vertices' degrees / 2; self-loops and repeats not counted). GTEPS = TEPS / 1e9.
#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "cudalab/cli.h"
#include "cudalab/cli_options.h"
#include "cudalab/device_info.h"
#include "cudalab/json.h"
#include "cudalab/random.h"
#include "cudalab/runner_output.h"
#include "cudalab/sparse/generators.h"
#include "cudalab/sparse/graph_io.h"
#include "impls.h"

namespace {

namespace sp = cudalab::sparse;
using lab08::Algo;

constexpr const char* kProgram = "lab08-bfs";

struct Options {
  std::string graph;     // a file, or empty
  std::string generate;  // kronecker | grid | chain | disconnected
  int scale = 16, edge_factor = 16, size = 1024;
  std::uint64_t seed = 1;
  long long source = -1;  // -1: a seeded random vertex of nonzero degree
  std::string ids = "zero";
  std::string algo = "both";
  std::string impl = "student";
  bool bench = false;
  std::string json;
};

Options parse(int argc, char** argv) {
  cxxopts::Options cli(kProgram, "Lab 08: breadth-first search (edge-parallel and frontier)");
  using cxxopts::value;
  // clang-format off
  cli.add_options()
      ("graph", "graph file: .graph (METIS), .gml, .gml.gz, or an edge list (.txt, .edges, ...)",
       value<std::string>())
      ("ids", "vertex ids of an edge-list file: zero, one (1-based) or names",
       value<std::string>()->default_value("zero"))
      ("generate", "kronecker, grid, chain or disconnected", value<std::string>())
      ("scale", "kronecker: 2^scale vertices (1..26)", value<std::string>()->default_value("16"))
      ("edge-factor", "kronecker: edges per vertex (1..64)", value<std::string>()->default_value("16"))
      ("size", "grid: side; chain: vertices; disconnected: vertices per component",
       value<std::string>()->default_value("1024"))
      ("seed", "seed of the generated graph and of the source", value<std::string>()->default_value("1"))
      ("source", "source vertex (default: a random vertex of nonzero degree)", value<std::string>())
      ("algo", "edge, frontier or both", value<std::string>()->default_value("both"))
      ("impl", "student or reference", value<std::string>()->default_value("student"))
      ("bench", "benchmark both parts of the student and the reference, and the reference's "
                "direction-optimising BFS, on each graph class");
  // clang-format on
  const cxxopts::ParseResult r =
      cudalab::parse_runner_command_line(cli, "write results as JSON to this file", argc, argv);
  Options o;
  if (r.count("graph")) o.graph = r["graph"].as<std::string>();
  if (r.count("generate"))
    o.generate = cudalab::parse_choice(r["generate"].as<std::string>(), "--generate",
                                       {"kronecker", "grid", "chain", "disconnected"});
  if (!o.graph.empty() && !o.generate.empty())
    throw cudalab::UsageError("give --graph or --generate, not both");
  if (o.graph.empty() && o.generate.empty()) o.generate = "kronecker";
  o.ids = cudalab::parse_choice(r["ids"].as<std::string>(), "--ids", {"zero", "one", "names"});
  o.scale = cudalab::int_option(r, "scale", 1, 26);
  o.edge_factor = cudalab::int_option(r, "edge-factor", 1, 64);
  o.size = cudalab::int_option(r, "size", 1, 1 << 24);
  if (o.generate == "grid" && static_cast<long long>(o.size) * o.size > (1LL << 26))
    throw cudalab::UsageError("--size: a grid of " + std::to_string(o.size) + " x " +
                              std::to_string(o.size) + " is too large (at most 8192 x 8192)");
  o.seed = cudalab::parse_seed(r);
  if (r.count("source")) o.source = cudalab::int_option(r, "source", 0, INT_MAX);
  o.algo =
      cudalab::parse_choice(r["algo"].as<std::string>(), "--algo", {"edge", "frontier", "both"});
  o.impl = cudalab::parse_impl(r);
  o.bench = r.count("bench") > 0;
  o.json = cudalab::writable_path_option(r, "json");
  return o;
}

const lab08::BfsVariant& variant(const std::string& impl) {
  return impl == "student" ? lab08::kCandidate : lab08::kReference;
}

lab08::GraphCase generated(const std::string& kind, int scale, int edge_factor, int size,
                           std::uint64_t seed) {
  if (kind == "kronecker")
    return lab08::make_case(
        "kronecker scale " + std::to_string(scale) + " edge factor " + std::to_string(edge_factor),
        sp::kronecker_graph(scale, edge_factor, seed), seed);
  if (kind == "grid")
    return lab08::make_case("grid " + std::to_string(size) + " x " + std::to_string(size),
                            sp::grid_graph(size, size), seed);
  if (kind == "chain")
    return lab08::make_case("chain of " + std::to_string(size), sp::chain_graph(size), seed);
  return lab08::make_case(
      "disconnected: 16 components of " + std::to_string(size) + " and 1000 isolated vertices",
      sp::disconnected_graph(16, size, 1000, seed), seed);
}

// Reads or generates the graph and checks the source: everything that can be wrong with the
// input fails here, before the GPU is touched.
lab08::GraphCase load(const Options& o) {
  if (o.generate.empty()) {
    sp::EdgeListOptions options;
    options.ids = o.ids == "names" ? sp::VertexIds::names
                  : o.ids == "one" ? sp::VertexIds::one_based
                                   : sp::VertexIds::zero_based;
    return lab08::make_case(o.graph,
                            sp::read_graph_edges(o.graph, sp::GraphFormat::automatic, options), 0);
  }
  return generated(o.generate, o.scale, o.edge_factor, o.size, o.seed);
}

int choose_source(const lab08::GraphCase& g, long long requested, std::uint64_t seed) {
  if (requested >= 0) {
    if (requested >= g.csr.num_vertices)
      throw cudalab::UsageError("--source " + std::to_string(requested) +
                                " is not a vertex: the graph has " +
                                std::to_string(g.csr.num_vertices) + " vertices");
    return static_cast<int>(requested);
  }
  for (int k = 0; k < 64; ++k) {
    const auto v = static_cast<int>(
        cudalab::random_int(cudalab::derive_seed(seed, 900 + k), 0, g.csr.num_vertices - 1));
    if (g.csr.degree(v) > 0) return v;
  }
  return 0;
}

cudalab::TimingOptions bench_timing() {
  cudalab::TimingOptions t;
  t.warmup = 1;
  t.min_samples = 3;
  t.max_samples = 50;
  t.target_rse = 0.02;
  t.time_cap_s = 3.0;
  t.flush_l2 = true;
  return t;
}

struct Row {
  std::string variant, algo, graph;
  int vertices = 0;
  long long edges = 0, arcs = 0;
  int source = 0, levels = 0;
  double component_edges = 0, ms = 0, rse = 0;
  std::string status;  // ok | wrong: ...
  double gteps() const { return component_edges / (ms * 1e-3) / 1e9; }
};

// Verifies, then times one algorithm of one variant on a graph already on the device.
Row run_one(lab08::DeviceGraph& d, const lab08::GraphCase& g, int source,
            const std::vector<int>& expected, Algo algo, const std::string& impl,
            cudaStream_t stream) {
  Row r{impl,
        lab08::algo_name(algo),
        g.name,
        g.csr.num_vertices,
        static_cast<long long>(g.edges.num_edges()),
        static_cast<long long>(g.csr.num_arcs()),
        source,
        *std::max_element(expected.begin(), expected.end()) + 1,
        lab08::component_edges(g.csr, expected),
        0,
        0,
        "ok"};
  const cudalab::Launch launch = d.launch(algo, variant(impl), source);
  CUDA_CHECK(cudaMemset(d.depth.data(), 0x7E, d.depth.bytes()));
  CUDA_CHECK(cudaDeviceSynchronize());
  const auto start = std::chrono::steady_clock::now();
  launch(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::chrono::duration<double> first = std::chrono::steady_clock::now() - start;
  const std::string wrong = lab08::compare_depths(d.download_depth(), expected, source);
  if (!wrong.empty()) {
    r.status = "wrong: " + wrong.substr(0, wrong.find('\n'));
    return r;
  }
  cudalab::TimingOptions timing = bench_timing();
  if (first.count() > 1.0) {  // the edge-parallel search of a huge grid: seconds per run
    timing.warmup = 0;
    timing.min_samples = timing.max_samples = 2;
  }
  const cudalab::Timing t = cudalab::time_launch(launch, stream, timing);
  r.ms = t.median_ms;
  r.rse = t.rse;
  return r;
}

void print_header() {
  std::printf("%-9s %-20s %-40s %9s %10s %7s %10s %8s  %s\n", "variant", "algorithm", "graph",
              "vertices", "edges", "levels", "ms", "GTEPS", "status");
}

void print_row(const Row& r) {
  if (r.status == "ok")
    std::printf("%-9s %-20s %-40s %9d %10lld %7d %10.4f %8.3f  ok\n", r.variant.c_str(),
                r.algo.c_str(), r.graph.c_str(), r.vertices, r.edges, r.levels, r.ms, r.gteps());
  else
    std::printf("%-9s %-20s %-40s %9d %10lld %7d %10s %8s  %s\n", r.variant.c_str(), r.algo.c_str(),
                r.graph.c_str(), r.vertices, r.edges, r.levels, "-", "-", r.status.c_str());
  std::fflush(stdout);
}

void write_json(const std::string& path, const cudalab::DeviceInfo& dev,
                const std::vector<Row>& rows) {
  cudalab::JsonWriter w;
  w.begin_object()
      .field("lab", "08-bfs")
      .field("teps", "edges of the searched component (simple graph) / time");
  cudalab::write_device_field(w, dev);
  cudalab::write_rows_field(w, rows, [&](const Row& r) {
    w.field("variant", r.variant)
        .field("algorithm", r.algo)
        .field("graph", r.graph)
        .field("vertices", r.vertices)
        .field("edges", static_cast<std::int64_t>(r.edges))
        .field("arcs", static_cast<std::int64_t>(r.arcs))
        .field("source", r.source)
        .field("levels", r.levels)
        .field("component_edges", r.component_edges)
        .field("status", r.status);
    if (r.status == "ok") w.field("ms", r.ms).field("rse", r.rse).field("gteps", r.gteps());
  });
  w.end_object();
  cudalab::save_json(w, path);
}

int run_graph(const Options& o, const lab08::GraphCase& g, int source,
              const cudalab::DeviceInfo& dev) {
  const std::vector<int> expected = sp::bfs_depths(g.csr, source);
  lab08::DeviceGraph d(g);
  cudalab::Stream stream;
  std::vector<Row> rows;
  print_header();
  if (o.algo != "frontier")
    rows.push_back(run_one(d, g, source, expected, Algo::edge_parallel, o.impl, stream.get()));
  if (o.algo != "edge")
    rows.push_back(run_one(d, g, source, expected, Algo::frontier, o.impl, stream.get()));
  bool ok = true;
  for (const Row& r : rows) {
    print_row(r);
    ok = ok && r.status == "ok";
  }
  if (!o.json.empty()) write_json(o.json, dev, rows);
  return ok ? cudalab::kExitOk : cudalab::kExitFailure;
}

int run_bench(const Options& o, const cudalab::DeviceInfo& dev) {
  struct Class {
    const char* kind;
    int scale, size;
  };
  // Kronecker (Graph500, edge factor 16): small-world, a few levels, hubs. Grids and chains: the
  // high-diameter cases where the edge-parallel version pays O(V*E): levels x all edges, so its
  // time grows with the cube of the grid's side (seconds per search at 8192 x 8192, 67 million
  // vertices), the frontier version's work only with its square.
  const Class classes[] = {{"kronecker", 16, 0}, {"kronecker", 20, 0}, {"kronecker", 22, 0},
                           {"grid", 0, 256},     {"grid", 0, 1024},    {"grid", 0, 2048},
                           {"grid", 0, 8192},    {"chain", 0, 20000},  {"disconnected", 0, 100000}};
  std::vector<Row> rows;
  print_header();
  cudalab::Stream stream;
  for (const Class& c : classes) {
    const lab08::GraphCase g = generated(c.kind, c.scale, 16, c.size, o.seed);
    const int source =
        choose_source(g, c.size > 0 && std::string(c.kind) != "disconnected" ? 0 : -1, o.seed);
    const std::vector<int> expected = sp::bfs_depths(g.csr, source);
    lab08::DeviceGraph d(g);
    for (const auto& [impl, algo] :
         {std::pair{"student", Algo::edge_parallel}, std::pair{"reference", Algo::edge_parallel},
          std::pair{"student", Algo::frontier}, std::pair{"reference", Algo::frontier},
          std::pair{"reference", Algo::direction_optimizing}}) {
      rows.push_back(run_one(d, g, source, expected, algo, impl, stream.get()));
      print_row(rows.back());
    }
  }
  if (!o.json.empty()) write_json(o.json, dev, rows);
  return cudalab::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::guarded_main(kProgram, [&] {
    const Options o = parse(argc, argv);
    if (o.bench) {
      const cudalab::DeviceInfo dev = cudalab::open_device();
      return run_bench(o, dev);
    }
    const lab08::GraphCase g = load(o);
    const int source = choose_source(g, o.source, o.seed);
    const cudalab::DeviceInfo dev = cudalab::open_device();
    std::cout << g.name << ": " << g.csr.num_vertices << " vertices, " << g.edges.num_edges()
              << " edges, " << g.csr.num_arcs() << " arcs; source " << source << "\n";
    return run_graph(o, g, source, dev);
  });
}
