// Lab 08's functions across the two processes (grader/framework/remote.h; lab 01's remote.cpp
// says how the file is used).
//
// The BfsWorkspace (three device arrays) travels field by field, as device pointers after the
// function's own arguments, and is rebuilt in the candidate's process. What the function wrote
// through its const workspace (a const_cast) comes back as the call's result, and the stub writes
// the same into the workspace it was handed, as the function would have in the grader's process:
// each pointer moved by as many bytes as the function moved its own. The grader's check that the
// workspace came back unchanged (bfs_check.cpp, check_workspace) then sees it.
#include <cstddef>
#include <cstdint>

#include "bfs.h"
#include "remote_lab.h"

namespace {
enum Function : std::uint32_t {
  kBfsEdgeParallel = 1,
  kBfsFrontier = 2,
  kBfsDirectionOptimizing = 3
};

using lab08::BfsWorkspace;

// What a function wrote through its const workspace: each pointer's displacement in bytes
// (frontier, next_frontier, counters); all 0 when it wrote nothing.
struct WorkspaceChange {
  std::int64_t frontier, next_frontier, counters;
};
}  // namespace

#if defined(CUDALAB_SERVE)

namespace {

using cudalab::serve::Args;

// The workspace whose pointers are arguments first, first + 1 and first + 2.
BfsWorkspace workspace_at(const Args& a, std::uint32_t first) {
  BfsWorkspace ws;
  ws.frontier = a.device<int>(first);
  ws.next_frontier = a.device<int>(first + 1);
  ws.counters = a.device<int>(first + 2);
  return ws;
}

std::int64_t displacement(const int* before, const int* after) {
  return static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(after) -
                                   reinterpret_cast<std::uintptr_t>(before));
}

WorkspaceChange change_of(const BfsWorkspace& before, const BfsWorkspace& after) {
  return {displacement(before.frontier, after.frontier),
          displacement(before.next_frontier, after.next_frontier),
          displacement(before.counters, after.counters)};
}

}  // namespace

extern "C" int cudalab_serve_dispatch(cudalab_call* call) {
  return cudalab::serve::dispatch(call, [&](const Args& a) {
    switch (call->function) {
      case kBfsEdgeParallel: {
        const BfsWorkspace handed = workspace_at(a, 6);
        BfsWorkspace ws = handed;
        lab08::candidate::bfs_edge_parallel(a.device<const int>(0), a.device<const int>(1),
                                            a.i32(2), a.i32(3), a.i32(4), a.device<int>(5), ws,
                                            a.stream());
        cudalab::serve::set_result(call, change_of(handed, ws));
        return true;
      }
      case kBfsFrontier: {
        const BfsWorkspace handed = workspace_at(a, 5);
        BfsWorkspace ws = handed;
        lab08::candidate::bfs_frontier(a.device<const int>(0), a.device<const int>(1), a.i32(2),
                                       a.i32(3), a.device<int>(4), ws, a.stream());
        cudalab::serve::set_result(call, change_of(handed, ws));
        return true;
      }
      case kBfsDirectionOptimizing: {
        const BfsWorkspace handed = workspace_at(a, 5);
        BfsWorkspace ws = handed;
        lab08::candidate::bfs_direction_optimizing(a.device<const int>(0), a.device<const int>(1),
                                                   a.i32(2), a.i32(3), a.device<int>(4), ws,
                                                   a.stream());
        cudalab::serve::set_result(call, change_of(handed, ws));
        return true;
      }
    }
    return false;
  });
}

#else

namespace {

void displace(int*& field, std::int64_t delta) {
  field = reinterpret_cast<int*>(reinterpret_cast<std::uintptr_t>(field) +
                                 static_cast<std::uintptr_t>(delta));
}

// Writes `change` into `ws`, as the function wrote it through its copy. Nothing is written when
// it wrote nothing.
void apply_change(const BfsWorkspace& ws, const WorkspaceChange& change) {
  if (change.frontier == 0 && change.next_frontier == 0 && change.counters == 0) return;
  BfsWorkspace& handed = const_cast<BfsWorkspace&>(ws);  // the caller's, written as it was
  displace(handed.frontier, change.frontier);
  displace(handed.next_frontier, change.next_frontier);
  displace(handed.counters, change.counters);
}

}  // namespace

namespace lab08::CUDALAB_IMPL {

using namespace cudalab::remote;

void bfs_edge_parallel(const int* edge_src, const int* edge_dst, int num_edges, int num_vertices,
                       int source, int* depth, const BfsWorkspace& ws, cudaStream_t) {
  apply_change(ws, call_returning<WorkspaceChange>(
                       kHere, "bfs_edge_parallel", kBfsEdgeParallel,
                       {device(edge_src), device(edge_dst), integer(num_edges),
                        integer(num_vertices), integer(source), device(depth), device(ws.frontier),
                        device(ws.next_frontier), device(ws.counters)}));
}

void bfs_frontier(const int* row_ptr, const int* col_idx, int num_vertices, int source, int* depth,
                  const BfsWorkspace& ws, cudaStream_t) {
  apply_change(
      ws, call_returning<WorkspaceChange>(
              kHere, "bfs_frontier", kBfsFrontier,
              {device(row_ptr), device(col_idx), integer(num_vertices), integer(source),
               device(depth), device(ws.frontier), device(ws.next_frontier), device(ws.counters)}));
}

void bfs_direction_optimizing(const int* row_ptr, const int* col_idx, int num_vertices, int source,
                              int* depth, const BfsWorkspace& ws, cudaStream_t) {
  apply_change(
      ws, call_returning<WorkspaceChange>(
              kHere, "bfs_direction_optimizing", kBfsDirectionOptimizing,
              {device(row_ptr), device(col_idx), integer(num_vertices), integer(source),
               device(depth), device(ws.frontier), device(ws.next_frontier), device(ws.counters)}));
}

}  // namespace lab08::CUDALAB_IMPL

#endif
