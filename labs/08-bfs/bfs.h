// Lab 08 - breadth-first search: the interface the grader and the runner call.
//
// The graph is undirected, with vertices 0 .. num_vertices-1. BFS from `source` writes
//
//   depth[v] = the number of edges on a shortest path from source to v   (depth[source] = 0)
//   depth[v] = -1                                                          when v is unreachable
//
// for every v in 0 .. num_vertices-1. Two layouts of the same graph:
//
//   edge list  edge_src[k], edge_dst[k] for k in 0 .. num_edges-1: edge k joins both ends, in
//              whichever order it was read or generated (the course's version, part 1). Self-loops
//              and repeated edges may occur and change nothing.
//   CSR        the neighbours of u are col_idx[row_ptr[u] .. row_ptr[u+1]); an undirected edge
//              {u, v} is stored in both lists (u -> v and v -> u). Lists may hold self-loops and
//              repeats (part 2 must still visit each vertex once).
//
// Every pointer is a DEVICE pointer. The functions launch their kernels on `stream` and return
// once depth is final on the device; they never allocate. The course's host loop needs a word
// the host can read back each level, and a frontier BFS needs queues: the caller (grader,
// runner) owns that scratch memory and passes it as a BfsWorkspace. BFS is a sequence of
// levels whose sizes only the device knows, so these functions DO copy a few bytes back to the
// host each level (cudaMemcpyAsync + cudaStreamSynchronize on `stream`): that is the course's
// "host loop on a device done flag", and it is timed with the rest.
//
// Throws std::invalid_argument for num_vertices < 1, num_edges < 0, or a source outside
// 0 .. num_vertices-1.
//
// No include guard on purpose (see common/include/cudalab/impl.h); the workspace has its own.
#include <cuda_runtime.h>

#include "cudalab/impl.h"

#ifndef LAB08_BFS_WORKSPACE
#define LAB08_BFS_WORKSPACE
namespace lab08 {

// Counters: ints the kernels may use for anything (the done flag, the next frontier's size, ...).
inline constexpr int kBfsCounters = 16;

// Scratch memory, owned by the caller. Every pointer is a device pointer; nothing in it needs
// to be initialised, and its contents after a call mean nothing.
struct BfsWorkspace {
  int* frontier = nullptr;       // num_vertices ints: the current frontier (a queue of vertices)
  int* next_frontier = nullptr;  // num_vertices ints: the next one
  int* counters = nullptr;       // kBfsCounters ints
};

}  // namespace lab08
#endif

namespace lab08 {
namespace CUDALAB_IMPL {

// Part 1, the course's edge-parallel BFS: one kernel per level over ALL edges.
void bfs_edge_parallel(const int* edge_src, const int* edge_dst, int num_edges, int num_vertices,
                       int source, int* depth, const BfsWorkspace& ws, cudaStream_t stream);

// Part 2, the work-efficient frontier (queue) BFS on CSR: each level visits only the edges of
// the current frontier. row_ptr has num_vertices + 1 entries.
void bfs_frontier(const int* row_ptr, const int* col_idx, int num_vertices, int source, int* depth,
                  const BfsWorkspace& ws, cudaStream_t stream);

// Stretch: direction-optimising BFS (top-down levels while the frontier is small, bottom-up
// levels while it is large). Same contract as bfs_frontier; the skeleton calls bfs_frontier.
void bfs_direction_optimizing(const int* row_ptr, const int* col_idx, int num_vertices, int source,
                              int* depth, const BfsWorkspace& ws, cudaStream_t stream);

}  // namespace CUDALAB_IMPL
}  // namespace lab08
