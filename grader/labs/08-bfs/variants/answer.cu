// Passing answer for lab 08: the course's edge-parallel BFS exactly as the lecture writes it (one
// level per launch, the done flag copied back after each) and a plain frontier BFS, one thread
// per frontier vertex, claiming with atomicCAS and appending with atomicAdd, no load balancing.
// A student who completes the TODOs plainly writes this; it must earn every point.
#include <stdexcept>
#include <string>
#include <utility>

#include "bfs.h"
#include "cudalab/check.h"

namespace lab08 {
namespace CUDALAB_IMPL {

constexpr int BLOCK_SIZE = 256;

// Throws for arguments bfs.h calls invalid. Provided.
void check_arguments(const char* what, int num_vertices, int num_edges, int source) {
  if (num_vertices < 1)
    throw std::invalid_argument(std::string(what) + ": num_vertices must be at least 1, got " +
                                std::to_string(num_vertices));
  if (num_edges < 0)
    throw std::invalid_argument(std::string(what) + ": num_edges must not be negative, got " +
                                std::to_string(num_edges));
  if (source < 0 || source >= num_vertices)
    throw std::invalid_argument(std::string(what) + ": source " + std::to_string(source) +
                                " is not a vertex (0 .. " + std::to_string(num_vertices - 1) + ")");
}

// ---- Part 1: the course's edge-parallel BFS ----------------------------------------------------

__global__ void bfs_init_kernel(int* depth, int num_vertices, int source) {
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v < num_vertices) depth[v] = (v == source) ? 0 : -1;
}

__global__ void bfs_edge_level_kernel(const int* edge_src, const int* edge_dst, int num_edges,
                                      int* depth, int current_depth, int* done) {
  const int e = blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= num_edges) return;
  const int u = edge_src[e], v = edge_dst[e];
  const int du = depth[u], dv = depth[v];
  if (du == current_depth && dv == -1) {
    depth[v] = du + 1;
    *done = 0;
  } else if (dv == current_depth && du == -1) {
    depth[u] = dv + 1;
    *done = 0;
  }
}

void bfs_edge_parallel(const int* edge_src, const int* edge_dst, int num_edges, int num_vertices,
                       int source, int* depth, const BfsWorkspace& ws, cudaStream_t stream) {
  check_arguments("bfs_edge_parallel", num_vertices, num_edges, source);
  int* done = ws.counters;  // one device int for the flag
  bfs_init_kernel<<<(num_vertices + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE, 0, stream>>>(
      depth, num_vertices, source);
  CUDA_CHECK(cudaGetLastError());
  if (num_edges == 0) return;
  const int blocks = (num_edges + BLOCK_SIZE - 1) / BLOCK_SIZE;
  for (int current_depth = 0; current_depth < num_vertices; ++current_depth) {
    const int one = 1;
    int host_done = 0;
    CUDA_CHECK(cudaMemcpyAsync(done, &one, sizeof(int), cudaMemcpyHostToDevice, stream));
    bfs_edge_level_kernel<<<blocks, BLOCK_SIZE, 0, stream>>>(edge_src, edge_dst, num_edges, depth,
                                                             current_depth, done);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(&host_done, done, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (host_done) break;
  }
}

// ---- Part 2: the frontier (queue) BFS on CSR -------------------------------------------------

__global__ void bfs_frontier_kernel(const int* row_ptr, const int* col_idx, const int* frontier,
                                    int frontier_size, int* depth, int next_depth,
                                    int* next_frontier, int* next_frontier_size) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= frontier_size) return;
  const int u = frontier[i];
  for (int k = row_ptr[u]; k < row_ptr[u + 1]; ++k) {
    const int v = col_idx[k];
    if (atomicCAS(&depth[v], -1, next_depth) == -1)
      next_frontier[atomicAdd(next_frontier_size, 1)] = v;
  }
}

void bfs_frontier(const int* row_ptr, const int* col_idx, int num_vertices, int source, int* depth,
                  const BfsWorkspace& ws, cudaStream_t stream) {
  check_arguments("bfs_frontier", num_vertices, 0, source);
  int* next_size = ws.counters;  // one device int: the next frontier's size
  bfs_init_kernel<<<(num_vertices + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE, 0, stream>>>(
      depth, num_vertices, source);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaMemcpyAsync(ws.frontier, &source, sizeof(int), cudaMemcpyHostToDevice, stream));
  int* frontier = ws.frontier;
  int* next = ws.next_frontier;
  int size = 1;
  for (int level = 0; size > 0 && level < num_vertices; ++level) {
    CUDA_CHECK(cudaMemsetAsync(next_size, 0, sizeof(int), stream));
    bfs_frontier_kernel<<<(size + BLOCK_SIZE - 1) / BLOCK_SIZE, BLOCK_SIZE, 0, stream>>>(
        row_ptr, col_idx, frontier, size, depth, level + 1, next, next_size);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(&size, next_size, sizeof(int), cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::swap(frontier, next);
  }
}

// ---- Stretch: direction-optimising BFS ---------------------------------------------------------

void bfs_direction_optimizing(const int* row_ptr, const int* col_idx, int num_vertices, int source,
                              int* depth, const BfsWorkspace& ws, cudaStream_t stream) {
  // TODO(6) (optional, not graded): when the frontier holds many edges, run the level bottom-up
  //          instead: every unvisited vertex looks through its own neighbours for one at the
  //          current depth and stops at the first. Switch back to the queue when the frontier
  //          is small again (docs page, "Going further").
  bfs_frontier(row_ptr, col_idx, num_vertices, source, depth, ws, stream);
}

}  // namespace CUDALAB_IMPL
}  // namespace lab08
