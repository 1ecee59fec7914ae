// Seeded sparse-matrix and graph generators: sizes and nnz by formula, symmetry, the shape each
// promises (power-law tail, one long row, empty rows, components), determinism per seed.
#include <algorithm>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cudalab/catch.h"
#include "cudalab/sparse/formats.h"
#include "cudalab/sparse/generators.h"
#include "cudalab/sparse/graph.h"

using namespace cudalab::sparse;  // the library under test

namespace {

bool same(const CsrMatrix& a, const CsrMatrix& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col_idx == b.col_idx &&
         a.val == b.val;
}

bool same(const EdgeList& a, const EdgeList& b) {
  return a.num_vertices == b.num_vertices && a.src == b.src && a.dst == b.dst;
}

CsrMatrix transpose(const CsrMatrix& a) {
  CooMatrix t;
  t.rows = a.cols;
  t.cols = a.rows;
  for (index_t i = 0; i < a.rows; ++i)
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      t.push_back(a.col_idx[k], i, a.val[k]);
  return coo_to_csr(t);
}

// Connected components counted with the BFS reference.
index_t count_components(const CsrGraph& g) {
  std::vector<index_t> seen(static_cast<std::size_t>(g.num_vertices), -1);
  index_t components = 0;
  for (index_t v = 0; v < g.num_vertices; ++v) {
    if (seen[v] >= 0) continue;
    ++components;
    const std::vector<index_t> depth = bfs_depths(g, v);
    for (index_t u = 0; u < g.num_vertices; ++u)
      if (depth[u] >= 0) seen[u] = 1;
  }
  return components;
}

// FNV-1a over the arrays: pins a generator's output in a test without listing it.
std::uint64_t fingerprint(const std::vector<index_t>& a, const std::vector<index_t>& b) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const auto* v : {&a, &b})
    for (index_t x : *v) h = (h ^ static_cast<std::uint32_t>(x)) * 1099511628211ULL;
  return h;
}

}  // namespace

TEST_CASE("Poisson 2D: 5-point stencil, nnz = 5 n^2 - 4 n, symmetric, zero row sums inside",
          "[common][sparse][generators]") {
  const index_t n = GENERATE(1, 2, 5, 32);
  CAPTURE(n);
  const CsrMatrix a = poisson_2d(n);
  CHECK_NOTHROW(validate(a));
  CHECK(a.rows == n * n);
  CHECK(a.nnz() == static_cast<std::size_t>(5 * n * n - 4 * n));
  CHECK(same(a, transpose(a)));
  for (index_t i = 0; i < a.rows; ++i) {
    const index_t r = i / n, c = i % n;
    const bool interior = r > 0 && c > 0 && r + 1 < n && c + 1 < n;
    double sum = 0;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) sum += a.val[k];
    if (interior) CHECK(sum == 0.0);
    if (interior) CHECK(a.row_length(i) == 5);
  }
  CHECK_THROWS_AS(poisson_2d(0), std::invalid_argument);
  CHECK_THROWS_AS(poisson_2d(30000), std::invalid_argument);
}

TEST_CASE("Poisson 3D: 7-point stencil, nnz = 7 n^3 - 6 n^2, symmetric",
          "[common][sparse][generators]") {
  const index_t n = GENERATE(1, 2, 6);
  CAPTURE(n);
  const CsrMatrix a = poisson_3d(n);
  CHECK_NOTHROW(validate(a));
  CHECK(a.rows == n * n * n);
  CHECK(a.nnz() == static_cast<std::size_t>(7 * n * n * n - 6 * n * n));
  CHECK(same(a, transpose(a)));
  // The centre of a 6^3 grid is interior: 6 on the diagonal, six -1.
  if (n == 6) {
    const index_t centre = (3 * n + 3) * n + 3;
    CHECK(a.row_length(centre) == 7);
  }
}

TEST_CASE("Random matrices: the same seed gives the same matrix, another seed another",
          "[common][sparse][generators]") {
  const std::uint64_t seed = GENERATE(std::uint64_t{1}, std::uint64_t{2024});
  CAPTURE(seed);
  CHECK(same(power_law_matrix(500, 400, 1, 400, seed), power_law_matrix(500, 400, 1, 400, seed)));
  CHECK_FALSE(
      same(power_law_matrix(500, 400, 1, 400, seed), power_law_matrix(500, 400, 1, 400, seed + 1)));
  CHECK(same(random_matrix(100, 80, 0, 20, seed), random_matrix(100, 80, 0, 20, seed)));
  CHECK(same(long_row_matrix(100, 80, 3, 7, 80, seed), long_row_matrix(100, 80, 3, 7, 80, seed)));
  CHECK(same(empty_rows_matrix(100, 80, 5, 20, seed), empty_rows_matrix(100, 80, 5, 20, seed)));
}

TEST_CASE("Random matrices: pinned output for a seed (portability)",
          "[common][sparse][generators]") {
  // Computed once on x86-64 Linux with g++; any platform must produce the same matrix.
  const CsrMatrix a = power_law_matrix(1000, 1000, 1, 1000, 42);
  CHECK(a.nnz() == 7413u);
  CHECK(fingerprint(a.row_ptr, a.col_idx) == 0xbb1b7153dae8eef8ULL);
  CHECK(a.val[0] == -0x1.7510d8p-2f);
  const EdgeList k = kronecker_graph(10, 16, 42);
  CHECK(fingerprint(k.src, k.dst) == 0x8947462f8ccbd41cULL);
}

TEST_CASE("Power-law rows: lengths in range with a P(length >= k) = min / k tail",
          "[common][sparse][generators]") {
  const CsrMatrix a = power_law_matrix(20000, 5000, 1, 5000, 7);
  CHECK_NOTHROW(validate(a));
  const std::vector<index_t> len = row_lengths(a);
  CHECK(*std::min_element(len.begin(), len.end()) >= 1);
  const auto at_least = [&](index_t k) {
    return static_cast<double>(
               std::count_if(len.begin(), len.end(), [k](index_t l) { return l >= k; })) /
           static_cast<double>(len.size());
  };
  CHECK(at_least(2) == Approx(0.5).margin(0.02));
  CHECK(at_least(10) == Approx(0.1).margin(0.01));
  CHECK(at_least(100) == Approx(0.01).margin(0.003));
  CHECK(*std::max_element(len.begin(), len.end()) > 1000);  // a heavy tail: some very long rows
  CHECK_THROWS_AS(power_law_matrix(10, 10, 0, 5, 1), std::invalid_argument);
  CHECK_THROWS_AS(power_law_matrix(10, 10, 1, 11, 1), std::invalid_argument);
}

TEST_CASE("Long row, empty rows, uniform rows: the promised row lengths",
          "[common][sparse][generators]") {
  const CsrMatrix l = long_row_matrix(256, 10000, 4, 100, 10000, 3);
  for (index_t i = 0; i < l.rows; ++i) CHECK(l.row_length(i) == (i == 100 ? 10000 : 4));
  CHECK_NOTHROW(validate(l));  // a full row: every column once, sorted
  CHECK_THROWS_AS(long_row_matrix(10, 10, 2, 10, 5, 3), std::invalid_argument);

  const CsrMatrix e = empty_rows_matrix(1000, 100, 6, 40, 3);
  const std::vector<index_t> len = row_lengths(e);
  CHECK(len.front() == 0);
  CHECK(len.back() == 0);
  const auto empty = std::count(len.begin(), len.end(), 0);
  CHECK(empty == Approx(400).margin(60));
  CHECK(std::count(len.begin(), len.end(), 6) == static_cast<long>(len.size()) - empty);

  const CsrMatrix u = random_matrix(300, 50, 2, 9, 3);
  const std::vector<index_t> ul = row_lengths(u);
  const std::set<index_t> seen(ul.begin(), ul.end());
  CHECK(seen == std::set<index_t>{2, 3, 4, 5, 6, 7, 8, 9});
}

TEST_CASE("Random matrix values: nonzero in [-1, 1], or small nonzero integers",
          "[common][sparse][generators]") {
  const CsrMatrix a = random_matrix(200, 100, 5, 30, 8);
  for (float v : a.val) {
    CHECK(v != 0.0f);
    CHECK(v >= -1.0f);
    CHECK(v <= 1.0f);
  }
  const CsrMatrix b = random_matrix(200, 100, 5, 30, 8, Values::small_ints);
  const std::set<float> seen(b.val.begin(), b.val.end());
  CHECK(seen == std::set<float>{-4, -3, -2, -1, 1, 2, 3, 4});
}

TEST_CASE("Kronecker: 2^scale vertices, edge_factor * 2^scale edges before dedup, skewed degrees",
          "[common][sparse][generators][graph]") {
  const int scale = GENERATE(0, 1, 8, 12);
  const int edge_factor = GENERATE(1, 16);
  CAPTURE(scale, edge_factor);
  const EdgeList g = kronecker_graph(scale, edge_factor, 5);
  CHECK(g.num_vertices == (1 << scale));
  CHECK(g.num_edges() == static_cast<std::size_t>(edge_factor) << scale);
  CHECK(same(g, kronecker_graph(scale, edge_factor, 5)));
  const CsrGraph csr = to_undirected_csr(g);
  CHECK_NOTHROW(validate(csr));
  CHECK(csr.num_arcs() <= 2 * g.num_edges());
  if (scale == 12 && edge_factor == 16) {
    CHECK_FALSE(same(g, kronecker_graph(scale, edge_factor, 6)));
    CHECK(csr.num_arcs() < 2 * g.num_edges());  // R-MAT repeats edges; dedup removes them
    index_t max_degree = 0;
    for (index_t v = 0; v < csr.num_vertices; ++v) max_degree = std::max(max_degree, csr.degree(v));
    const double mean = static_cast<double>(csr.num_arcs()) / csr.num_vertices;
    CHECK(max_degree > 20 * mean);
    // The permutation spreads the hubs: vertex 0 (the hub before permuting) is not special.
    CHECK(csr.degree(0) < max_degree);
  }
  CHECK_THROWS_AS(kronecker_graph(31, 1, 1), std::invalid_argument);
  CHECK_THROWS_AS(kronecker_graph(4, 0, 1), std::invalid_argument);
}

TEST_CASE("Kronecker: each quadrant probability picks its quadrant",
          "[common][sparse][generators][graph]") {
  // a = 1: every level picks the top-left quadrant, so every edge is (0, 0) before the vertex
  // permutation: one self-loop vertex. b = 1: top-right, (0, n - 1); c = 1: (n - 1, 0);
  // a = b = c = 0: d, (n - 1, n - 1).
  for (int q = 0; q < 4; ++q) {
    CAPTURE(q);
    KroneckerParams p;
    p.a = q == 0 ? 1.0 : 0.0;
    p.b = q == 1 ? 1.0 : 0.0;
    p.c = q == 2 ? 1.0 : 0.0;
    const EdgeList g = kronecker_graph(6, 4, 11, p);
    const std::set<std::pair<index_t, index_t>> edges = [&] {
      std::set<std::pair<index_t, index_t>> e;
      for (std::size_t k = 0; k < g.num_edges(); ++k) e.insert({g.src[k], g.dst[k]});
      return e;
    }();
    REQUIRE(edges.size() == 1);
    const auto [u, v] = *edges.begin();
    CHECK((u == v) == (q == 0 || q == 3));
  }
  // Graph500's parameters: the share of edges whose level-0 bits (before the permutation) fall
  // in each quadrant is not observable after it, but the self-loops are: a level keeps u and v
  // equal with probability a + d = 0.62, so about 0.62^scale of the edges are self-loops.
  const EdgeList g = kronecker_graph(3, 4096, 12);
  std::size_t loops = 0;
  for (std::size_t k = 0; k < g.num_edges(); ++k) loops += g.src[k] == g.dst[k];
  const double share = static_cast<double>(loops) / static_cast<double>(g.num_edges());
  CHECK(share == Approx(0.62 * 0.62 * 0.62).margin(0.02));
}

TEST_CASE("Undirected CSR: the same graph with any number of threads", "[common][sparse][graph]") {
  const EdgeList g = add_loops_and_duplicates(kronecker_graph(12, 16, 3), 300, 3000, 4);
  for (const bool keep : {false, true}) {
    CAPTURE(keep);
    UndirectedOptions one;
    one.remove_self_loops = one.remove_duplicates = !keep;
    one.threads = 1;
    const CsrGraph reference = to_undirected_csr(g, one);
    CHECK_NOTHROW(validate(reference));
    for (const int threads : {2, 3, 7, 16}) {
      CAPTURE(threads);
      UndirectedOptions many = one;
      many.threads = threads;
      const CsrGraph c = to_undirected_csr(g, many);
      CHECK(c.row_ptr == reference.row_ptr);
      CHECK(c.col_idx == reference.col_idx);
    }
  }
  // An edge outside the graph is reported by its first occurrence, whichever thread finds it.
  EdgeList bad = g;
  bad.dst[bad.num_edges() / 2] = bad.num_vertices;
  bad.src[bad.num_edges() - 1] = -1;
  UndirectedOptions seven;
  seven.threads = 7;
  try {
    to_undirected_csr(bad, seven);
    FAIL("accepted a vertex outside the graph");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("edge " + std::to_string(bad.num_edges() / 2) + " ") !=
          std::string::npos);
  }
}

TEST_CASE("Grids and chains: edge counts and BFS depths by formula",
          "[common][sparse][generators][graph]") {
  const index_t rows = GENERATE(1, 3, 17), cols = GENERATE(1, 4, 9);
  CAPTURE(rows, cols);
  const EdgeList grid = grid_graph(rows, cols);
  CHECK(grid.num_vertices == rows * cols);
  CHECK(grid.num_edges() == static_cast<std::size_t>(rows * (cols - 1) + cols * (rows - 1)));
  const std::vector<index_t> depth = bfs_depths(to_undirected_csr(grid), 0);
  for (index_t v = 0; v < rows * cols; ++v) CHECK(depth[v] == v / cols + v % cols);

  const index_t n = rows * cols;
  const CsrGraph chain = to_undirected_csr(chain_graph(n));
  CHECK(chain.num_arcs() == static_cast<std::size_t>(2 * (n - 1)));
  const std::vector<index_t> d = bfs_depths(chain, 0);
  CHECK(d.back() == n - 1);
}

TEST_CASE("Disconnected graphs: components + isolated vertices, interleaved",
          "[common][sparse][generators][graph]") {
  const EdgeList g = disconnected_graph(5, 40, 13, 9);
  CHECK(g.num_vertices == 5 * 40 + 13);
  const CsrGraph csr = to_undirected_csr(g);
  CHECK(count_components(csr) == 5 + 13);
  index_t isolated = 0;
  for (index_t v = 0; v < csr.num_vertices; ++v) isolated += csr.degree(v) == 0;
  CHECK(isolated == 13);
  CHECK(count_self_loops(csr) == 0);
  // Interleaved: the component of vertex 0 is not the block 0..39.
  const std::vector<index_t> depth = bfs_depths(csr, 0);
  bool contiguous = true;
  for (index_t v = 0; v < 40; ++v) contiguous = contiguous && depth[v] >= 0;
  CHECK_FALSE(contiguous);
  CHECK(same(g, disconnected_graph(5, 40, 13, 9)));
}

TEST_CASE("Self-loops and duplicate edges: kept or removed by option",
          "[common][sparse][generators][graph]") {
  const EdgeList base = grid_graph(6, 7);
  const EdgeList noisy = add_loops_and_duplicates(base, 9, 15, 4);
  CHECK(noisy.num_edges() == base.num_edges() + 24);
  CHECK(same(noisy, add_loops_and_duplicates(base, 9, 15, 4)));

  const CsrGraph clean = to_undirected_csr(noisy);
  const CsrGraph reference = to_undirected_csr(base);
  CHECK(clean.row_ptr == reference.row_ptr);
  CHECK(clean.col_idx == reference.col_idx);

  UndirectedOptions keep;
  keep.remove_self_loops = false;
  keep.remove_duplicates = false;
  const CsrGraph multi = to_undirected_csr(noisy, keep);
  CHECK(count_self_loops(multi) == 9);
  CHECK(multi.num_arcs() == reference.num_arcs() + 9 + 2 * 15);
  CHECK_NOTHROW(validate(multi));
  // BFS depths do not change with loops and repeats.
  CHECK(bfs_depths(multi, 3) == bfs_depths(reference, 3));

  const EdgeList random = random_graph(50, 400, 2);
  CHECK(random.num_edges() == 400);
  CHECK(same(random, random_graph(50, 400, 2)));
}
