#include "cudalab/sparse/graph.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>

#include "parallel.h"

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
  const int threads = detail::thread_count(m, std::size_t{1} << 18, options.threads);
  {
    // The first edge with a vertex outside the graph (each thread looks at its share).
    std::vector<std::size_t> bad(static_cast<std::size_t>(threads), m);
    detail::run_threads(threads, [&](int t) {
      const std::size_t end = detail::part_begin(m, t + 1, threads);
      for (std::size_t k = detail::part_begin(m, t, threads); k < end; ++k) {
        const index_t u = edges.src[k], v = edges.dst[k];
        if (u < 0 || u >= n || v < 0 || v >= n) {
          bad[static_cast<std::size_t>(t)] = k;
          return;
        }
      }
    });
    const std::size_t k = *std::min_element(bad.begin(), bad.end());
    if (k < m)
      fail("graph: edge " + std::to_string(k) + " (" + std::to_string(edges.src[k]) + ", " +
           std::to_string(edges.dst[k]) + ") has a vertex outside 0.." + std::to_string(n - 1));
  }
  // Thread t owns the vertices [first(t), first(t + 1)): it reads every edge, in order, and
  // counts, then lists, the arcs of its own vertices only. Each adjacency list is then in edge
  // order, as one thread alone would make it, and no two threads write the same element.
  const auto first = [&](int t) {
    return static_cast<index_t>(detail::part_begin(static_cast<std::size_t>(n), t, threads));
  };
  const auto owns = [](index_t v, index_t lo, index_t hi) {
    return static_cast<std::uint32_t>(v - lo) < static_cast<std::uint32_t>(hi - lo);
  };
  std::vector<std::size_t> degree(static_cast<std::size_t>(n) + 1, 0);
  detail::run_threads(threads, [&](int t) {
    const index_t lo = first(t), hi = first(t + 1);
    for (std::size_t k = 0; k < m; ++k) {
      const index_t u = edges.src[k], v = edges.dst[k];
      if (u == v) {
        if (!options.remove_self_loops && owns(u, lo, hi))
          ++degree[static_cast<std::size_t>(u) + 1];
      } else {
        if (owns(u, lo, hi)) ++degree[static_cast<std::size_t>(u) + 1];
        if (owns(v, lo, hi)) ++degree[static_cast<std::size_t>(v) + 1];
      }
    }
  });
  std::partial_sum(degree.begin(), degree.end(), degree.begin());
  const std::size_t arcs = degree.back();
  if (arcs > static_cast<std::size_t>(std::numeric_limits<index_t>::max()))
    fail("graph: more than 2^31 - 1 arcs");
  // Not zeroed: every element is written below, by the thread that owns its vertex.
  const std::unique_ptr<index_t[]> adj(new index_t[std::max<std::size_t>(arcs, 1)]);
  CsrGraph g;
  g.num_vertices = n;
  g.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  detail::run_threads(threads, [&](int t) {
    const index_t lo = first(t), hi = first(t + 1);
    std::vector<std::size_t> next(degree.begin() + lo, degree.begin() + hi);
    for (std::size_t k = 0; k < m; ++k) {
      const index_t u = edges.src[k], v = edges.dst[k];
      if (u == v) {
        if (!options.remove_self_loops && owns(u, lo, hi)) adj[next[u - lo]++] = u;
      } else {
        if (owns(u, lo, hi)) adj[next[u - lo]++] = v;
        if (owns(v, lo, hi)) adj[next[v - lo]++] = u;
      }
    }
    // Each list sorted (and deduplicated) in place; row_ptr[v + 1] holds its length for now.
    for (index_t v = lo; v < hi; ++v) {
      index_t* const list = adj.get() + degree[v];
      index_t* const last = adj.get() + degree[v + 1];
      std::sort(list, last);
      index_t* const end = options.remove_duplicates ? std::unique(list, last) : last;
      g.row_ptr[static_cast<std::size_t>(v) + 1] = static_cast<index_t>(end - list);
    }
  });
  std::partial_sum(g.row_ptr.begin(), g.row_ptr.end(), g.row_ptr.begin());
  g.col_idx.resize(static_cast<std::size_t>(g.row_ptr.back()));
  detail::run_threads(threads, [&](int t) {
    for (index_t v = first(t); v < first(t + 1); ++v) {
      const index_t* const list = adj.get() + degree[v];
      std::copy(list, list + (g.row_ptr[v + 1] - g.row_ptr[v]), g.col_idx.begin() + g.row_ptr[v]);
    }
  });
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
