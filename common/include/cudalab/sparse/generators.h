// Seeded generators of sparse matrices (lab 07) and graphs (lab 08). Like random.h, each takes
// its seed explicitly and uses only std::mt19937_64, a counter-based stream (SplitMix64) and
// integer or correctly rounded arithmetic, so a seed gives the same matrix or graph on every
// platform and standard library. The large ones (power_law_matrix, kronecker_graph) draw each
// row or edge from its own position in a counter-based stream and spread the work over host
// threads: the result does not depend on the number of threads.
#pragma once

#include <cstdint>

#include "cudalab/sparse/formats.h"
#include "cudalab/sparse/graph.h"

namespace cudalab::sparse {

// ---- Matrices (CSR, columns sorted; invalid sizes throw std::invalid_argument) -------------

// The 5-point Laplacian on an n x n grid (Dirichlet boundary): n^2 rows, 4 on the diagonal, -1
// for each grid neighbour. nnz = 5 n^2 - 4 n. Row i*n + j is grid point (i, j).
CsrMatrix poisson_2d(index_t n);

// The 7-point Laplacian on an n x n x n grid: n^3 rows, 6 on the diagonal, -1 per neighbour.
// nnz = 7 n^3 - 6 n^2. Row (i*n + j)*n + k is grid point (i, j, k).
CsrMatrix poisson_3d(index_t n);

// Values of the random matrices below: uniform in [-1, 1] in steps of 2^-23 (never 0), or
// small integers in [-4, 4] without 0, whose products with small-integer x sum exactly in float
// as long as a row's sum stays below 2^24.
enum class Values { uniform, small_ints };

// Power-law ("Zipf-ish") row lengths: each row's length is min(max_length, floor(min_length / u))
// for u uniform in (0, 1], so P(length >= k) = min_length / k: a Pareto tail of exponent 1 (Zipf
// exponent 2) where most rows are short and a few are very long. Needs
// 1 <= min_length <= max_length <= cols. Distinct uniform columns per row. Built by host
// threads (the lab 07 performance matrix has 2^21 rows).
CsrMatrix power_law_matrix(index_t rows, index_t cols, index_t min_length, index_t max_length,
                           std::uint64_t seed, Values values = Values::uniform);

// Row lengths uniform in [min_length, max_length] (min_length 0 gives some empty rows).
CsrMatrix random_matrix(index_t rows, index_t cols, index_t min_length, index_t max_length,
                        std::uint64_t seed, Values values = Values::uniform);

// Every row has `row_length` entries except row `long_row`, which has `long_length`: the warp
// that holds it (thread per row) runs as long as that row.
CsrMatrix long_row_matrix(index_t rows, index_t cols, index_t row_length, index_t long_row,
                          index_t long_length, std::uint64_t seed, Values values = Values::uniform);

// Rows of `row_length` entries, each row empty with probability empty_percent / 100; the first
// and last rows are always empty (the boundary cases of row_ptr).
CsrMatrix empty_rows_matrix(index_t rows, index_t cols, index_t row_length, int empty_percent,
                            std::uint64_t seed, Values values = Values::uniform);

// ---- Graphs (edge lists; make the BFS graph with to_undirected_csr) ------------------------

struct KroneckerParams {
  double a = 0.57, b = 0.19, c = 0.19;  // Graph500; d = 1 - a - b - c = 0.05
};

// Graph500-style Kronecker (R-MAT) graph: 2^scale vertices and exactly edge_factor * 2^scale
// edges before any deduplication (self-loops and repeats included, as Graph500 generates them).
// Each edge descends `scale` levels, picking quadrant a/b/c/d of the adjacency matrix with 16
// random bits per level (the probabilities rounded to multiples of 2^-16); vertex numbers are
// then permuted by a seeded random permutation, so the high-degree vertices are not clustered
// at 0. The edges are independent draws, so their order is already a random one (no shuffle
// needed). Built by host threads (the lab 08 performance graph has 2^24 edges). scale in 0..30.
EdgeList kronecker_graph(int scale, int edge_factor, std::uint64_t seed,
                         const KroneckerParams& params = {});

// rows x cols grid, 4-neighbour edges: rows*(cols-1) + cols*(rows-1) edges, vertex r*cols + c.
// A long thin grid is a BFS worst case with many levels.
EdgeList grid_graph(index_t rows, index_t cols);

// The path 0 - 1 - ... - (n-1): n - 1 edges, depth n - 1 from vertex 0 (the course's O(V E)
// worst case for edge-parallel BFS).
EdgeList chain_graph(index_t n);

// `components` random connected components of `component_size` vertices (a random spanning tree
// plus as many random extra edges within the component) and `isolated` vertices of degree 0,
// with all vertex numbers permuted so components interleave.
EdgeList disconnected_graph(index_t components, index_t component_size, index_t isolated,
                            std::uint64_t seed);

// `edges` uniform random edges over n vertices (self-loops and repeats possible).
EdgeList random_graph(index_t n, std::int64_t edges, std::uint64_t seed);

// A copy of `g` with `self_loops` self-loops at random vertices and `duplicates` repeats of
// random existing edges (about half of them reversed); the whole edge order is then shuffled.
EdgeList add_loops_and_duplicates(const EdgeList& g, std::int64_t self_loops,
                                  std::int64_t duplicates, std::uint64_t seed);

}  // namespace cudalab::sparse
