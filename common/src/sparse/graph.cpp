#include "cudalab/sparse/graph.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace cudalab::sparse {

namespace {

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument(what);
}

}  // namespace

CsrGraph to_undirected_csr(const EdgeList& edges, const UndirectedOptions& options) {
  const index_t n = edges.num_vertices;
  if (n < 0) fail("graph: negative vertex count");
  if (edges.src.size() != edges.dst.size()) fail("graph: src and dst have different lengths");
  const std::size_t m = edges.num_edges();
  std::vector<std::size_t> degree(static_cast<std::size_t>(n) + 1, 0);
  for (std::size_t k = 0; k < m; ++k) {
    const index_t u = edges.src[k], v = edges.dst[k];
    if (u < 0 || u >= n || v < 0 || v >= n)
      fail("graph: edge " + std::to_string(k) + " (" + std::to_string(u) + ", " +
           std::to_string(v) + ") has a vertex outside 0.." + std::to_string(n - 1));
    if (u == v) {
      if (!options.remove_self_loops) ++degree[static_cast<std::size_t>(u) + 1];
    } else {
      ++degree[static_cast<std::size_t>(u) + 1];
      ++degree[static_cast<std::size_t>(v) + 1];
    }
  }
  std::partial_sum(degree.begin(), degree.end(), degree.begin());
  const std::size_t arcs = degree.back();
  if (arcs > static_cast<std::size_t>(std::numeric_limits<index_t>::max()))
    fail("graph: more than 2^31 - 1 arcs");
  std::vector<index_t> adj(arcs);
  {
    std::vector<std::size_t> next(degree.begin(), degree.end() - 1);
    for (std::size_t k = 0; k < m; ++k) {
      const index_t u = edges.src[k], v = edges.dst[k];
      if (u == v) {
        if (!options.remove_self_loops) adj[next[u]++] = u;
      } else {
        adj[next[u]++] = v;
        adj[next[v]++] = u;
      }
    }
  }
  CsrGraph g;
  g.num_vertices = n;
  g.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  g.col_idx.reserve(arcs);
  for (index_t v = 0; v < n; ++v) {
    const auto first = adj.begin() + static_cast<std::ptrdiff_t>(degree[v]);
    const auto last = adj.begin() + static_cast<std::ptrdiff_t>(degree[v + 1]);
    std::sort(first, last);
    const auto end = options.remove_duplicates ? std::unique(first, last) : last;
    g.col_idx.insert(g.col_idx.end(), first, end);
    g.row_ptr[static_cast<std::size_t>(v) + 1] = static_cast<index_t>(g.col_idx.size());
  }
  return g;
}

void validate(const CsrGraph& g, bool require_symmetric) {
  const index_t n = g.num_vertices;
  if (n < 0) fail("graph: negative vertex count");
  if (g.row_ptr.size() != static_cast<std::size_t>(n) + 1)
    fail("graph: row_ptr has " + std::to_string(g.row_ptr.size()) + " entries, expected " +
         std::to_string(static_cast<std::size_t>(n) + 1));
  if (g.row_ptr[0] != 0 || static_cast<std::size_t>(g.row_ptr[n]) != g.col_idx.size())
    fail("graph: row_ptr does not span col_idx");
  for (index_t v = 0; v < n; ++v) {
    if (g.row_ptr[v + 1] < g.row_ptr[v]) fail("graph: row_ptr decreases at " + std::to_string(v));
    for (index_t k = g.row_ptr[v]; k < g.row_ptr[v + 1]; ++k) {
      if (g.col_idx[k] < 0 || g.col_idx[k] >= n)
        fail("graph: vertex " + std::to_string(v) + " has neighbour " +
             std::to_string(g.col_idx[k]) + " outside the graph");
      if (k > g.row_ptr[v] && g.col_idx[k] < g.col_idx[k - 1])
        fail("graph: neighbours of vertex " + std::to_string(v) + " are not sorted");
    }
  }
  if (!require_symmetric) return;
  // Each arc u->v (u != v) must be matched by v->u with the same multiplicity: walk the arcs in
  // (u, v) order and consume the reverse ones per vertex with a cursor.
  std::vector<index_t> cursor(g.row_ptr.begin(), g.row_ptr.end() - 1);
  for (index_t u = 0; u < n; ++u) {
    for (index_t k = g.row_ptr[u]; k < g.row_ptr[u + 1]; ++k) {
      const index_t v = g.col_idx[k];
      if (v == u) continue;
      // Arcs v->w with w < u that were not consumed have no partner u'->v.
      index_t& c = cursor[v];
      while (c < g.row_ptr[v + 1] && g.col_idx[c] == v) ++c;  // self-loops need no partner
      if (c >= g.row_ptr[v + 1] || g.col_idx[c] != u)
        fail("graph: not symmetric: arc " + std::to_string(u) + " -> " + std::to_string(v) +
             " and the arcs of " + std::to_string(v) + " do not match");
      ++c;
    }
  }
  for (index_t v = 0; v < n; ++v) {
    index_t c = cursor[v];
    while (c < g.row_ptr[v + 1] && g.col_idx[c] == v) ++c;
    if (c < g.row_ptr[v + 1])
      fail("graph: arc " + std::to_string(v) + " -> " + std::to_string(g.col_idx[c]) +
           " has no matching reverse arc");
  }
}

std::vector<index_t> bfs_depths(const CsrGraph& g, index_t source) {
  if (source < 0 || source >= g.num_vertices)
    fail("BFS: source " + std::to_string(source) + " is not a vertex of a graph with " +
         std::to_string(g.num_vertices) + " vertices");
  std::vector<index_t> depth(static_cast<std::size_t>(g.num_vertices), -1);
  std::vector<index_t> frontier{source}, next;
  depth[source] = 0;
  for (index_t level = 1; !frontier.empty(); ++level) {
    next.clear();
    for (index_t u : frontier)
      for (index_t k = g.row_ptr[u]; k < g.row_ptr[u + 1]; ++k) {
        const index_t v = g.col_idx[k];
        if (depth[v] < 0) {
          depth[v] = level;
          next.push_back(v);
        }
      }
    frontier.swap(next);
  }
  return depth;
}

std::size_t count_self_loops(const CsrGraph& g) {
  std::size_t loops = 0;
  for (index_t v = 0; v < g.num_vertices; ++v)
    for (index_t k = g.row_ptr[v]; k < g.row_ptr[v + 1]; ++k) loops += g.col_idx[k] == v;
  return loops;
}

std::size_t count_duplicate_arcs(const CsrGraph& g) {
  std::size_t dups = 0;
  for (index_t v = 0; v < g.num_vertices; ++v)
    for (index_t k = g.row_ptr[v] + 1; k < g.row_ptr[v + 1]; ++k)
      dups += g.col_idx[k] == g.col_idx[k - 1];
  return dups;
}

}  // namespace cudalab::sparse
