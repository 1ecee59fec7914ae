// Lab 08 host tests: the CPU BFS against the course's worked example, the graphs the grader
// builds (sources, mixed edge directions, multigraphs), the wording of the depth comparison that
// the broken variants' EXPECT-REJECT lines rely on, and the TEPS edge count.
#include <algorithm>
#include <regex>

#include "bfs_check.h"
#include "cudalab/catch.h"
#include "cudalab/sparse/generators.h"

using cudalab::sparse::bfs_depths;

TEST_CASE("CPU BFS gives the course's depths on its example", "[lab08][host]") {
  const lab08::GraphCase c = lab08::worked_example();
  CHECK(c.csr.num_vertices == 7);
  CHECK(c.edges.num_edges() == 6);
  CHECK(bfs_depths(c.csr, 2) == lab08::worked_example_depths());
  CHECK(c.sources.front() == 2);
  CHECK(c.sources.size() == 7);
}

TEST_CASE("generated graphs cover every kind and source", "[lab08][host]") {
  auto cases = lab08::generated_cases(20180914, lab08::CaseSet::full);
  for (auto& c : lab08::long_cases(20180914)) cases.push_back(std::move(c));
  REQUIRE(cases.size() >= 12);
  bool single = false, isolated_source = false, loops = false, chain_mixed = false;
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CHECK_NOTHROW(cudalab::sparse::validate(c.csr));
    CHECK(!c.sources.empty());
    if (c.csr.num_vertices == 1) single = true;
    for (const int s : c.sources) {
      CHECK(s >= 0);
      CHECK(s < c.csr.num_vertices);
      if (c.csr.degree(s) == 0 && c.csr.num_vertices > 2) {
        isolated_source = true;
        const auto d = bfs_depths(c.csr, s);
        CHECK(std::count(d.begin(), d.end(), -1) == c.csr.num_vertices - 1);
      }
    }
    for (std::size_t e = 0; e < c.edges.num_edges(); ++e)
      if (c.edges.src[e] == c.edges.dst[e]) loops = true;
    if (c.name.rfind("chain", 0) == 0) {
      // Both directions occur, so a kernel that checks one end only fails.
      std::size_t forward = 0;
      for (std::size_t e = 0; e < c.edges.num_edges(); ++e)
        forward += c.edges.src[e] < c.edges.dst[e];
      CHECK(forward > c.edges.num_edges() / 4);
      CHECK(forward < 3 * c.edges.num_edges() / 4);
      chain_mixed = true;
    }
  }
  CHECK(single);
  CHECK(isolated_source);
  CHECK(loops);
  CHECK(chain_mixed);
}

TEST_CASE("the contention graph: every shared vertex is reached from all the frontier at once",
          "[lab08][host]") {
  const lab08::GraphCase c = lab08::contention_case(8, 32);
  CHECK_NOTHROW(cudalab::sparse::validate(c.csr));
  REQUIRE(c.csr.num_vertices == 1 + 8 + 2 * 32);
  CHECK(c.sources == std::vector<int>{0});
  const auto d = bfs_depths(c.csr, 0);
  // depth 1: the 8 sharing vertices, each joined to all 32 shared ones (depth 2), each of which
  // has its own leaf (depth 3): a frontier that loses a shared vertex leaves a leaf at -1.
  CHECK(std::count(d.begin(), d.end(), 1) == 8);
  CHECK(std::count(d.begin(), d.end(), 2) == 32);
  CHECK(std::count(d.begin(), d.end(), 3) == 32);
  for (int b = 0; b < 32; ++b) CHECK(c.csr.degree(1 + 8 + b) == 8 + 1);
  // The graded size: as many arcs as the comment says, and a queue the size of the graph.
  const lab08::GraphCase graded = lab08::contention_case();
  CHECK(graded.csr.num_vertices == 8449);
  CHECK(graded.csr.num_arcs() == 2 * (256 + 256 * 4096 + 4096));
}

TEST_CASE("multigraph cases keep self-loops and repeated neighbours", "[lab08][host]") {
  for (const auto& c : lab08::multigraph_cases(7, lab08::CaseSet::full)) {
    CAPTURE(c.name);
    CHECK(cudalab::sparse::count_self_loops(c.csr) > 0);
    CHECK(cudalab::sparse::count_duplicate_arcs(c.csr) > 0);
    // The same depths as the simple graph.
    const auto simple = cudalab::sparse::to_undirected_csr(c.edges);
    for (const int s : c.sources) CHECK(bfs_depths(c.csr, s) == bfs_depths(simple, s));
  }
}

TEST_CASE("the seed changes the generated graphs", "[lab08][host]") {
  const auto a = lab08::generated_cases(1, lab08::CaseSet::full);
  const auto b = lab08::generated_cases(2, lab08::CaseSet::full);
  bool differ = false;
  for (std::size_t i = 0; i < a.size(); ++i) differ = differ || a[i].edges.src != b[i].edges.src;
  CHECK(differ);
}

TEST_CASE("the sanitizer's cases: some of the graphs, from fewer sources", "[lab08][host]") {
  using lab08::CaseSet;
  for (const bool multigraph : {false, true}) {
    CAPTURE(multigraph);
    const auto full = multigraph ? lab08::multigraph_cases(20180914, CaseSet::full)
                                 : lab08::generated_cases(20180914, CaseSet::full);
    const auto few = multigraph ? lab08::multigraph_cases(20180914, CaseSet::sanitizer)
                                : lab08::generated_cases(20180914, CaseSet::sanitizer);
    CHECK(few.size() < full.size());
    std::size_t full_searches = 0, few_searches = 0;
    for (const auto& c : full) full_searches += c.sources.size();
    bool isolated_source = false, many_levels = false, overflow = false, multi_block = false;
    for (const auto& c : few) {
      CAPTURE(c.name);
      few_searches += c.sources.size();
      // The same graph as the full set's case of that name (from fewer sources).
      const auto same = std::find_if(full.begin(), full.end(),
                                     [&](const lab08::GraphCase& f) { return f.name == c.name; });
      REQUIRE(same != full.end());
      CHECK(same->edges.src == c.edges.src);
      CHECK(same->edges.dst == c.edges.dst);
      CHECK(same->csr.col_idx == c.csr.col_idx);
      REQUIRE(!c.sources.empty());
      for (const int s : c.sources) {
        CHECK(s >= 0);
        CHECK(s < c.csr.num_vertices);
        const auto d = bfs_depths(c.csr, s);
        if (c.csr.degree(s) == 0 && c.csr.num_vertices > 2) isolated_source = true;
        const int deepest = *std::max_element(d.begin(), d.end());
        if (deepest >= 40) many_levels = true;
        // A level wider than the reference's single-block queue (3072 vertices).
        std::vector<int> width(static_cast<std::size_t>(deepest) + 1, 0);
        for (const int x : d)
          if (x >= 0) ++width[static_cast<std::size_t>(x)];
        for (std::size_t l = 1; l < width.size(); ++l)
          if (width[l] > 3072) (width[l - 1] <= 3072 ? overflow : multi_block) = true;
      }
    }
    CHECK(few_searches * 3 < full_searches);
    CHECK(many_levels);
    if (!multigraph) {
      CHECK(isolated_source);
      CHECK(overflow);
      CHECK(multi_block);
    }
  }
}

namespace {
// Catch wraps FAIL messages at 80 columns: each line the EXPECT-REJECT patterns look for must
// be short enough to stay whole.
void check_line(const std::string& report, const std::string& pattern) {
  CAPTURE(report, pattern);
  bool found = false;
  std::size_t start = 0;
  while (start <= report.size()) {
    const std::size_t end = std::min(report.find('\n', start), report.size());
    const std::string line = report.substr(start, end - start);
    if (std::regex_search(line, std::regex(pattern))) {
      found = true;
      CHECK(line.size() < 78);
    }
    start = end + 1;
  }
  CHECK(found);
}
}  // namespace

TEST_CASE("depth comparison names what went wrong", "[lab08][host]") {
  const std::vector<int> expected = {2, 1, 0, 1, 2, 2, 1, -1};
  CHECK(lab08::compare_depths(expected, expected, 2).empty());

  // Stopped after one level.
  std::vector<int> got = {-1, 1, 0, 1, -1, -1, 1, -1};
  std::string r = lab08::compare_depths(got, expected, 2);
  check_line(r, "reachable vertices left at -1");
  check_line(r, "expected [0-9]+, got -1");

  // Searched from vertex 0 instead of 2.
  got = {0, 1, 2, 3, 4, 4, 3, -1};
  got[2] = 2;
  r = lab08::compare_depths(got, expected, 2);
  check_line(r, "the source's depth is -?[0-9]+, not 0");

  // Never written.
  got.assign(8, lab08::kUnwritten);
  r = lab08::compare_depths(got, expected, 2);
  check_line(r, "vertices never written");
  check_line(r, "the source's depth is never written, not 0");

  // An unreachable vertex given a depth.
  got = expected;
  got[7] = 3;
  r = lab08::compare_depths(got, expected, 2);
  check_line(r, "unreachable vertices were given a depth");
}

TEST_CASE("TEPS counts the edges of the searched component once", "[lab08][host]") {
  cudalab::sparse::EdgeList g;
  g.num_vertices = 6;
  g.add(0, 1);
  g.add(1, 2);
  g.add(2, 0);
  g.add(1, 1);  // a self-loop: not counted
  g.add(0, 1);  // a repeat: not counted
  g.add(3, 4);  // another component
  const auto csr = cudalab::sparse::to_undirected_csr(g);
  CHECK(lab08::component_edges(csr, bfs_depths(csr, 0)) == 3.0);
  CHECK(lab08::component_edges(csr, bfs_depths(csr, 3)) == 1.0);
  CHECK(lab08::component_edges(csr, bfs_depths(csr, 5)) == 0.0);
}

TEST_CASE("pick_sources includes an isolated vertex and no duplicates", "[lab08][host]") {
  const auto g =
      cudalab::sparse::to_undirected_csr(cudalab::sparse::disconnected_graph(3, 50, 5, 11));
  const auto s = lab08::pick_sources(g, 3, 11);
  bool isolated = false;
  for (const int v : s) isolated = isolated || g.degree(v) == 0;
  CHECK(isolated);
  auto sorted = s;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
}

TEST_CASE("real graphs load with sources inside them, when installed", "[lab08][host]") {
  std::vector<std::string> missing;
  const auto cases = lab08::real_cases(&missing);
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CHECK(c.csr.num_vertices > 1000);
    CHECK_NOTHROW(cudalab::sparse::validate(c.csr));
    for (const int s : c.sources) {
      CHECK(s >= 0);
      CHECK(s < c.csr.num_vertices);
    }
  }
  CHECK(cases.size() + missing.size() == 5);
}
