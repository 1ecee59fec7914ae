// Lab 08 reference solution: breadth-first search, edge-parallel and frontier-based.
//
// Kernels, each one idea more than the previous:
//   init_depth_kernel        depth = -1 everywhere, 0 at the source (the course's init kernel).
//   bfs_edge_level_kernel        part 1, the course's algorithm: one thread per edge and level; an
//                            edge with one end at depth `level` and the other unvisited sets the
//                            other end to level + 1. Same O(V*E) work as the course's version;
//                            the host launches kEdgeLevelsPerCheck levels before each read-back
//                            of the "changed" flag (extra launches after the last level find
//                            nothing to do), so the chain's V levels cost V/8 round trips.
//   bfs_frontier_kernel          part 2: one thread per frontier vertex, neighbours expanded by the
//                            whole block (degree >= 256), by the warp (degree >= 32) or by the
//                            thread itself, so a hub of a power-law graph does not leave one
//                            thread working while the rest of its warp waits. A vertex is
//                            claimed with atomicCAS on its depth (exactly one thread wins, so it
//                            enters the next frontier once), and the winners of a warp reserve
//                            their queue slots with one atomicAdd (coalesced group).
//   bfs_frontier_small_kernel  high-diameter graphs (chains, grids, meshes) have thousands of
//                            levels with small frontiers, where a launch and a read-back per
//                            level would cost far more than the level itself. While the frontier
//                            fits in shared memory (kSmallQueue vertices), ONE block of 1024
//                            threads runs level after level on its own, its queues in shared
//                            memory and __syncthreads() between levels, and returns to the host
//                            only when the frontier grows too large or the search ends.
//   bottom_up_kernel         the direction-optimising stretch (Beamer, Asanovic, Patterson,
//                            SC 2012): while the frontier is large, every UNVISITED vertex looks
//                            for a parent in the frontier and stops at the first one found, which
//                            skips most edges of the large middle levels of a small-world graph.
//                            bfs_direction_optimizing switches top-down -> bottom-up when the
//                            frontier's edges exceed 1/kAlpha of the unexplored edges, and back
//                            when the frontier shrinks below 1/kBeta of the vertices.
//
// Every level ends with a read-back of a few bytes (the next frontier's size, or the changed
// flag): the host must know whether, and how wide, to launch the next level.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "bfs.h"
#include "cudalab/check.h"

namespace cg = cooperative_groups;

namespace lab08 {
namespace CUDALAB_IMPL {

namespace {

constexpr int kBlock = 256;
constexpr int kWarp = 32;
constexpr int kWarpDegree = 32;      // a warp expands vertices of at least this degree
constexpr int kBlockDegree = 256;    // the whole block expands vertices of at least this degree
constexpr int kSmallThreads = 1024;  // the single-block kernel's block
constexpr int kSmallQueue = 3072;    // its frontier capacity in shared memory (2 x 12 KiB)
constexpr int kEdgeLevelsPerCheck = 8;
constexpr double kAlpha = 14.0;  // Beamer's alpha and beta (SC 2012, section 4)
constexpr double kBeta = 24.0;

// Counter slots in BfsWorkspace::counters.
constexpr int kChanged = 0;        // edge-parallel: set when a level changed a depth
constexpr int kQueueSize = 1;      // slots 1 and 2: next-frontier size, alternating by level parity
constexpr int kFrontierEdges = 3;  // slots 3 and 4: sum of the next frontier's degrees
constexpr int kSourceDegree = 5;
constexpr int kTotalArcs = 6;
constexpr int kSmallResult = 8;  // slots 8..12 after a single-block run: size, level, edges,
                                 // unexplored edges, previous size

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

int blocks_for(long long threads) {
  return static_cast<int>((threads + kBlock - 1) / kBlock);
}

// Reads one int of the device back to the host: the level loop's only synchronisation.
int read_back(const int* device_value, cudaStream_t stream) {
  int value = 0;
  CUDA_CHECK(cudaMemcpyAsync(&value, device_value, sizeof(int), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return value;
}

__global__ void init_depth_kernel(int* depth, int num_vertices, int source) {
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < num_vertices; v += gridDim.x * blockDim.x)
    depth[v] = (v == source) ? 0 : -1;
}

// Part 1. Several threads may write level + 1 to the same vertex in one launch: they all write
// the same value, so the race is benign (the course's argument); no thread reads a depth of
// level + 1 as a frontier depth, because only depth == level counts as the frontier.
__global__ void bfs_edge_level_kernel(const int* __restrict__ edge_src,
                                      const int* __restrict__ edge_dst, int num_edges, int* depth,
                                      int level, int* changed) {
  const int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= num_edges) return;
  const int u = edge_src[k], v = edge_dst[k];
  const int du = depth[u], dv = depth[v];
  if (du == level && dv == -1) {
    depth[v] = level + 1;
    *changed = 1;
  } else if (dv == level && du == -1) {
    depth[u] = level + 1;
    *changed = 1;
  }
}

// Where a level's winners go: the next frontier in global memory (multi-block levels) or in
// shared memory with an overflow into global memory (the single-block kernel).
struct GlobalQueue {
  static constexpr bool kFilter = true;  // read depth before the CAS: most neighbours are visited
  int* queue;
  int* size;
  __device__ int reserve(int n) const { return atomicAdd(size, n); }
  __device__ void put(int slot, int v) const { queue[slot] = v; }
};

template <int kCapacity>
struct SharedQueue {
  // No filter: the single-block levels are latency-bound, and the read before the CAS would add
  // a round trip to global memory to every level.
  static constexpr bool kFilter = false;
  int* shared_queue;  // kCapacity entries in shared memory
  int* size;          // in shared memory
  int* overflow;      // global queue: slots >= kCapacity go to the same slot here
  __device__ int reserve(int n) const { return atomicAdd(size, n); }
  __device__ void put(int slot, int v) const {
    if (slot < kCapacity)
      shared_queue[slot] = v;
    else
      overflow[slot] = v;
  }
};

// Claims v for the next level; the winners of one call reserve consecutive queue slots with a
// single atomic per coalesced group. Exactly one thread wins each vertex (atomicCAS from -1), so
// a vertex enters the next frontier once however many frontier vertices share it.
template <bool kCountEdges, typename Queue>
__device__ __forceinline__ void visit(int v, const int* __restrict__ row_ptr, int* depth,
                                      int next_depth, const Queue& next, int* frontier_edges) {
  if constexpr (Queue::kFilter)
    if (depth[v] != -1) return;  // cheap filter; the CAS decides
  if (atomicCAS(&depth[v], -1, next_depth) != -1) return;
  cg::coalesced_group g = cg::coalesced_threads();
  int base = 0;
  if (g.thread_rank() == 0) base = next.reserve(static_cast<int>(g.size()));
  base = g.shfl(base, 0);
  next.put(base + static_cast<int>(g.thread_rank()), v);
  if constexpr (kCountEdges) {
    const int edges = cg::reduce(g, row_ptr[v + 1] - row_ptr[v], cg::plus<int>());
    if (g.thread_rank() == 0) atomicAdd(frontier_edges, edges);
  }
}

// The block phase's shared state: which thread's list the block expands, and that list.
// `owner` is -1 between rounds; a kernel sets it before its first expand().
struct BlockPhase {
  int owner, begin, end;
};

// Expands the adjacency lists [begin, end) of the block's threads: the whole block on each
// list of degree >= kBlockDegree, a warp on each list of degree >= kWarpDegree, the thread
// itself on the rest. Every thread of the block must call it (it synchronizes the block).
template <bool kCountEdges, typename Queue>
__device__ __forceinline__ void expand(int begin, int end, const int* __restrict__ row_ptr,
                                       const int* __restrict__ col_idx, int* depth, int next_depth,
                                       const Queue& next, int* frontier_edges, BlockPhase* share) {
  for (;;) {
    if (end - begin >= kBlockDegree) atomicMax(&share->owner, static_cast<int>(threadIdx.x));
    __syncthreads();
    const int owner = share->owner;
    __syncthreads();  // every thread has read owner before the owner resets it
    if (owner < 0) break;
    if (static_cast<int>(threadIdx.x) == owner) {
      share->begin = begin;
      share->end = end;
      share->owner = -1;
      begin = end = 0;
    }
    __syncthreads();
    const int b = share->begin, e = share->end;
    for (int k = b + threadIdx.x; k < e; k += blockDim.x)
      visit<kCountEdges>(col_idx[k], row_ptr, depth, next_depth, next, frontier_edges);
    __syncthreads();  // begin and end are rewritten next round
  }
  const int lane = threadIdx.x & (kWarp - 1);
  for (;;) {
    const unsigned want = __ballot_sync(0xffffffffu, end - begin >= kWarpDegree);
    if (want == 0) break;
    const int leader = __ffs(static_cast<int>(want)) - 1;
    const int b = __shfl_sync(0xffffffffu, begin, leader);
    const int e = __shfl_sync(0xffffffffu, end, leader);
    if (lane == leader) begin = end = 0;
    for (int k = b + lane; k < e; k += kWarp)
      visit<kCountEdges>(col_idx[k], row_ptr, depth, next_depth, next, frontier_edges);
  }
  for (int k = begin; k < end; ++k)
    visit<kCountEdges>(col_idx[k], row_ptr, depth, next_depth, next, frontier_edges);
}

// One level, one thread per frontier vertex. The counters of level L live in slots
// kQueueSize + (L & 1) and kFrontierEdges + (L & 1); the launch zeroes those of the level after.
template <bool kCountEdges>
__global__ void __launch_bounds__(kBlock)
    bfs_frontier_kernel(const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                        const int* __restrict__ frontier, int frontier_size, int* depth,
                        int next_depth, int* next_frontier, int* counters, int parity) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    counters[kQueueSize + 1 - parity] = 0;
    counters[kFrontierEdges + 1 - parity] = 0;
  }
  __shared__ BlockPhase share;
  if (threadIdx.x == 0) share.owner = -1;
  __syncthreads();  // before any thread bids for the block phase
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int begin = 0, end = 0;
  if (i < frontier_size) {
    const int u = frontier[i];
    begin = row_ptr[u];
    end = row_ptr[u + 1];
  }
  expand<kCountEdges>(begin, end, row_ptr, col_idx, depth, next_depth,
                      GlobalQueue{next_frontier, counters + kQueueSize + parity},
                      counters + kFrontierEdges + parity, &share);
}

// Levels run by one block while the frontier has at most kSmallQueue vertices. In: `frontier`
// (size vertices at depth `level`). Out: the next frontier in `next_frontier`, its size, depth
// and edge count in counters[kSmallResult ..]. With alpha > 0 (direction-optimising) it also
// returns when the next frontier's edges exceed unexplored_edges / alpha and it is growing.
__global__ void __launch_bounds__(kSmallThreads)
    bfs_frontier_small_kernel(const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                              const int* __restrict__ frontier, int size, int level,
                              int frontier_edges, int unexplored_edges, double alpha, int* depth,
                              int* next_frontier, int* counters) {
  __shared__ int s_queue[2][kSmallQueue];
  __shared__ int s_size[2], s_edges[2];
  __shared__ BlockPhase share;
  for (int i = threadIdx.x; i < size; i += blockDim.x) s_queue[0][i] = frontier[i];
  if (threadIdx.x == 0) {
    s_size[0] = s_size[1] = s_edges[0] = s_edges[1] = 0;
    share.owner = -1;
  }
  __syncthreads();
  int cur = 0, previous_size = 0;
  const bool count_edges = alpha > 0.0;
  for (;;) {
    const int nxt = 1 - cur;
    for (int base = 0; base < size; base += blockDim.x) {  // the same trip count for all threads
      int begin = 0, end = 0;
      if (base + static_cast<int>(threadIdx.x) < size) {
        const int u = s_queue[cur][base + threadIdx.x];
        begin = row_ptr[u];
        end = row_ptr[u + 1];
      }
      const SharedQueue<kSmallQueue> q{s_queue[nxt], &s_size[nxt], next_frontier};
      if (count_edges)
        expand<true>(begin, end, row_ptr, col_idx, depth, level + 1, q, &s_edges[nxt], &share);
      else
        expand<false>(begin, end, row_ptr, col_idx, depth, level + 1, q, &s_edges[nxt], &share);
    }
    __syncthreads();
    const int next_size = s_size[nxt];
    const int next_edges = s_edges[nxt];
    ++level;
    unexplored_edges -= frontier_edges;
    const bool grows = next_size > size;
    previous_size = size;
    size = next_size;
    frontier_edges = next_edges;
    if (size == 0 || size > kSmallQueue ||
        (count_edges && grows && frontier_edges > unexplored_edges / alpha)) {
      // Hand over: the shared part of the queue to next_frontier[0 ..), the rest is there.
      for (int i = threadIdx.x; i < min(size, kSmallQueue); i += blockDim.x)
        next_frontier[i] = s_queue[nxt][i];
      if (threadIdx.x == 0) {
        counters[kSmallResult + 0] = size;
        counters[kSmallResult + 1] = level;
        counters[kSmallResult + 2] = frontier_edges;
        counters[kSmallResult + 3] = unexplored_edges;
        counters[kSmallResult + 4] = previous_size;
        counters[kQueueSize + (level & 1)] = 0;  // the counters of a multi-block level `level`
        counters[kFrontierEdges + (level & 1)] = 0;
      }
      return;
    }
    if (threadIdx.x == 0) s_size[cur] = s_edges[cur] = 0;  // the counters of the level after
    cur = nxt;
    __syncthreads();  // the reset is seen, and every thread has read s_size[nxt]
  }
}

// Bottom-up level: each unvisited vertex adopts the first neighbour found at depth `level`.
// Only v's own thread writes depth[v]; the neighbours' depths it reads are either settled or
// level + 1, written in this launch, which never equals `level`.
__global__ void __launch_bounds__(kBlock)
    bottom_up_kernel(const int* __restrict__ row_ptr, const int* __restrict__ col_idx,
                     int num_vertices, int* depth, int level, int* next_frontier, int* counters,
                     int parity) {
  int* queue_size = counters + kQueueSize + parity;
  int* frontier_edges = counters + kFrontierEdges + parity;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    counters[kQueueSize + 1 - parity] = 0;
    counters[kFrontierEdges + 1 - parity] = 0;
  }
  const int v = blockIdx.x * blockDim.x + threadIdx.x;
  if (v >= num_vertices || depth[v] != -1) return;
  const int begin = row_ptr[v], end = row_ptr[v + 1];
  for (int k = begin; k < end; ++k) {
    if (depth[col_idx[k]] == level) {
      depth[v] = level + 1;
      cg::coalesced_group g = cg::coalesced_threads();
      int base = 0;
      if (g.thread_rank() == 0) base = atomicAdd(queue_size, static_cast<int>(g.size()));
      base = g.shfl(base, 0);
      next_frontier[base + static_cast<int>(g.thread_rank())] = v;
      const int edges = cg::reduce(g, end - begin, cg::plus<int>());
      if (g.thread_rank() == 0) atomicAdd(frontier_edges, edges);
      return;
    }
  }
}

// Depths, the first frontier {source}, and the counters of level 1 (parity 0).
__global__ void start_kernel(const int* row_ptr, int num_vertices, int source, int* depth,
                             int* frontier, int* counters) {
  for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < num_vertices; v += gridDim.x * blockDim.x)
    depth[v] = (v == source) ? 0 : -1;
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    frontier[0] = source;
    counters[kQueueSize] = 0;
    counters[kFrontierEdges] = 0;
    if (row_ptr != nullptr) {
      counters[kSourceDegree] = row_ptr[source + 1] - row_ptr[source];
      counters[kTotalArcs] = row_ptr[num_vertices];
    }
  }
}

int start_blocks(int num_vertices) {
  return blocks_for(num_vertices) < 1024 ? blocks_for(num_vertices) : 1024;
}

}  // namespace

void bfs_edge_parallel(const int* edge_src, const int* edge_dst, int num_edges, int num_vertices,
                       int source, int* depth, const BfsWorkspace& ws, cudaStream_t stream) {
  check_arguments("bfs_edge_parallel", num_vertices, num_edges, source);
  init_depth_kernel<<<start_blocks(num_vertices), kBlock, 0, stream>>>(depth, num_vertices, source);
  CUDA_CHECK(cudaGetLastError());
  if (num_edges == 0) return;
  // A BFS has at most num_vertices - 1 levels that change something.
  for (int level = 0; level < num_vertices; level += kEdgeLevelsPerCheck) {
    CUDA_CHECK(cudaMemsetAsync(ws.counters + kChanged, 0, sizeof(int), stream));
    for (int l = level; l < level + kEdgeLevelsPerCheck; ++l)
      bfs_edge_level_kernel<<<blocks_for(num_edges), kBlock, 0, stream>>>(
          edge_src, edge_dst, num_edges, depth, l, ws.counters + kChanged);
    CUDA_CHECK(cudaGetLastError());
    // Unchanged over a whole batch: the last level changed nothing, so the BFS is complete.
    if (read_back(ws.counters + kChanged, stream) == 0) return;
  }
}

void bfs_frontier(const int* row_ptr, const int* col_idx, int num_vertices, int source, int* depth,
                  const BfsWorkspace& ws, cudaStream_t stream) {
  check_arguments("bfs_frontier", num_vertices, 0, source);
  start_kernel<<<start_blocks(num_vertices), kBlock, 0, stream>>>(nullptr, num_vertices, source,
                                                                  depth, ws.frontier, ws.counters);
  CUDA_CHECK(cudaGetLastError());
  int* frontier = ws.frontier;
  int* next = ws.next_frontier;
  int size = 1, level = 0;
  while (size > 0 && level < num_vertices) {
    if (size <= kSmallQueue) {
      bfs_frontier_small_kernel<<<1, kSmallThreads, 0, stream>>>(
          row_ptr, col_idx, frontier, size, level, 0, 0, 0.0, depth, next, ws.counters);
      CUDA_CHECK(cudaGetLastError());
      int result[2] = {0, 0};  // size, level
      CUDA_CHECK(cudaMemcpyAsync(result, ws.counters + kSmallResult, sizeof(result),
                                 cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      size = result[0];
      level = result[1];
    } else {
      const int parity = level & 1;
      bfs_frontier_kernel<false><<<blocks_for(size), kBlock, 0, stream>>>(
          row_ptr, col_idx, frontier, size, depth, level + 1, next, ws.counters, parity);
      CUDA_CHECK(cudaGetLastError());
      size = read_back(ws.counters + kQueueSize + parity, stream);
      ++level;
    }
    std::swap(frontier, next);
  }
}

void bfs_direction_optimizing(const int* row_ptr, const int* col_idx, int num_vertices, int source,
                              int* depth, const BfsWorkspace& ws, cudaStream_t stream) {
  check_arguments("bfs_direction_optimizing", num_vertices, 0, source);
  start_kernel<<<start_blocks(num_vertices), kBlock, 0, stream>>>(row_ptr, num_vertices, source,
                                                                  depth, ws.frontier, ws.counters);
  CUDA_CHECK(cudaGetLastError());
  int start[2] = {0, 0};  // source degree, total arcs
  CUDA_CHECK(cudaMemcpyAsync(start, ws.counters + kSourceDegree, sizeof(start),
                             cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  int frontier_edges = start[0];
  int unexplored_edges = start[1] - start[0];
  int* frontier = ws.frontier;
  int* next = ws.next_frontier;
  int size = 1, previous_size = 0, level = 0;
  bool bottom_up = false;
  while (size > 0 && level < num_vertices) {
    if (!bottom_up && frontier_edges > unexplored_edges / kAlpha && size > previous_size)
      bottom_up = true;
    else if (bottom_up && size < num_vertices / kBeta && size < previous_size)
      bottom_up = false;
    if (!bottom_up && size <= kSmallQueue) {
      bfs_frontier_small_kernel<<<1, kSmallThreads, 0, stream>>>(
          row_ptr, col_idx, frontier, size, level, frontier_edges, unexplored_edges, kAlpha, depth,
          next, ws.counters);
      CUDA_CHECK(cudaGetLastError());
      int result[5] = {0, 0, 0, 0, 0};  // size, level, edges, unexplored, previous size
      CUDA_CHECK(cudaMemcpyAsync(result, ws.counters + kSmallResult, sizeof(result),
                                 cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      size = result[0];
      level = result[1];
      frontier_edges = result[2];
      unexplored_edges = result[3];
      previous_size = result[4];
    } else {
      const int parity = level & 1;
      if (bottom_up)
        bottom_up_kernel<<<blocks_for(num_vertices), kBlock, 0, stream>>>(
            row_ptr, col_idx, num_vertices, depth, level, next, ws.counters, parity);
      else
        bfs_frontier_kernel<true><<<blocks_for(size), kBlock, 0, stream>>>(
            row_ptr, col_idx, frontier, size, depth, level + 1, next, ws.counters, parity);
      CUDA_CHECK(cudaGetLastError());
      int counts[2] = {0, 0};  // the next frontier's size and edges (slots two apart)
      CUDA_CHECK(cudaMemcpyAsync(&counts[0], ws.counters + kQueueSize + parity, sizeof(int),
                                 cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaMemcpyAsync(&counts[1], ws.counters + kFrontierEdges + parity, sizeof(int),
                                 cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      previous_size = size;
      size = counts[0];
      unexplored_edges -= frontier_edges;
      frontier_edges = counts[1];
      ++level;
    }
    std::swap(frontier, next);
  }
}

}  // namespace CUDALAB_IMPL
}  // namespace lab08
