// Graphs for BFS (lab 08): an edge list as read or generated, and the undirected CSR graph the
// kernels traverse (each undirected edge {u, v} stored as the arcs u->v and v->u).
#pragma once

#include <cstddef>
#include <vector>

#include "cudalab/sparse/formats.h"

namespace cudalab::sparse {

// Edges (src[k], dst[k]) over vertices 0..num_vertices-1; may contain self-loops and repeats.
struct EdgeList {
  index_t num_vertices = 0;
  std::vector<index_t> src;
  std::vector<index_t> dst;
  bool directed = false;  // what the file said; to_undirected_csr ignores directions either way

  std::size_t num_edges() const { return src.size(); }
  void add(index_t u, index_t v) {
    src.push_back(u);
    dst.push_back(v);
  }
};

// Adjacency in CSR: the neighbours of v are col_idx[row_ptr[v] .. row_ptr[v+1]), ascending.
struct CsrGraph {
  index_t num_vertices = 0;
  std::vector<index_t> row_ptr{0};  // num_vertices + 1 entries
  std::vector<index_t> col_idx;     // arcs; an undirected edge appears twice, a self-loop once

  std::size_t num_arcs() const { return col_idx.size(); }
  index_t degree(index_t v) const { return row_ptr[v + 1] - row_ptr[v]; }
};

struct UndirectedOptions {
  // BFS wants simple graphs by default. Keeping them builds a multigraph: a self-loop {v, v}
  // is the single arc v->v per occurrence; each repeat of {u, v} (in either direction) adds
  // another u->v and v->u.
  bool remove_self_loops = true;
  bool remove_duplicates = true;
  // Host threads building the lists: 0 chooses (1 for small graphs); the graph is the same with
  // any number.
  int threads = 0;
};

// Symmetrises `edges` into an undirected CSR graph with sorted neighbour lists. Throws
// std::invalid_argument on a vertex outside 0..num_vertices-1 or more than 2^31 - 1 arcs.
CsrGraph to_undirected_csr(const EdgeList& edges, const UndirectedOptions& options = {});

// Throws std::invalid_argument naming the first inconsistency: sizes, ranges, unsorted
// neighbours, or (when `require_symmetric`) an arc u->v without v->u of the same multiplicity.
void validate(const CsrGraph& g, bool require_symmetric = true);

// CPU breadth-first search: depth[v] = number of edges on a shortest path from `source`, -1 when
// v is unreachable. Throws std::invalid_argument when source is not a vertex.
std::vector<index_t> bfs_depths(const CsrGraph& g, index_t source);

// Counts for tests and runner summaries.
std::size_t count_self_loops(const CsrGraph& g);
// Arcs equal to the previous arc of the same vertex (0 for a simple graph).
std::size_t count_duplicate_arcs(const CsrGraph& g);

}  // namespace cudalab::sparse
