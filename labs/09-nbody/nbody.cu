// Lab 09 - all-pairs N-body.
//
// Every body pulls on every other: n^2 interactions per step, each one a few flops and no memory
// traffic of its own once the bodies are on chip. The lab is about getting them there cheaply.
//   1. nbody_naive_kernel: one thread per destination body, reading every source body from global
//      memory (each body is fetched n times as a source).
//   2. nbody_tiled_kernel: the course's tiles of P x P interactions with P threads per tile: each
//      thread keeps its destination body in registers, the block stages P source bodies at a time
//      in shared memory, and every thread reads them from there (each body fetched n / P times).
//   3. leapfrog_step: one kick-drift-kick step of the simulation, using the tiled kernel.
// Read docs/labs/09-nbody.md, then complete TODO(1) to TODO(8). Grade with:
//     ./cudalab grade --lab 09
// Keep the names and signatures: the grader looks for nbody_tiled_kernel in the built code.
#include "cudalab/check.h"
#include "nbody.h"

namespace lab09 {
namespace CUDALAB_IMPL {

constexpr int kTileSize = 256;  // P: threads per block = source bodies per shared-memory tile

// ---------------------------------------------------------------------------------------------
// 1. Naive all-pairs kernel

__global__ void nbody_naive_kernel(const float4* bodies, float3* acc, int n, float eps2) {
  // TODO(1): one thread per destination body i < n: its softened acceleration a_i (nbody.h),
  //          summed over every source body, itself included, with the sources read from global
  //          memory; store a_i in acc[i]. Use the softening (eps2 is its square): it keeps the
  //          j = i term and coincident bodies finite.
}

void accelerations_naive(const float4* bodies, float3* acc, int n, float softening,
                         cudaStream_t stream) {
  // TODO(2): one thread per body: enough blocks of kTileSize threads to cover n.
  const dim3 grid(1), block(1);
  nbody_naive_kernel<<<grid, block, 0, stream>>>(bodies, acc, n, softening * softening);
  CUDA_CHECK(cudaGetLastError());
}

// ---------------------------------------------------------------------------------------------
// 2. Tiled kernel (the course's design)

__global__ void nbody_tiled_kernel(const float4* bodies, float3* acc, int n, float eps2) {
  // TODO(3): declare the tile: kTileSize source bodies (float4, mass in w) in shared memory.
  // TODO(4): each thread owns one destination body and keeps it and its acceleration in
  //          registers. The block brings the source bodies into the shared tile P at a time, each
  //          thread loading one; every thread adds the interactions with the whole tile. No thread
  //          may read a tile before it is complete, nor overwrite it while another still reads it.
  //          n need not be a multiple of P: the last tile is partial, and a source slot without a
  //          body must add nothing. Every thread takes part in loading and in the barriers, also
  //          one without a body of its own.
  // TODO(5): store a_i in acc[i], for i < n only.
}

void accelerations_tiled(const float4* bodies, float3* acc, int n, float softening,
                         cudaStream_t stream) {
  // TODO(6): one block of kTileSize threads per tile of kTileSize destination bodies.
  const dim3 grid(1), block(1);
  nbody_tiled_kernel<<<grid, block, 0, stream>>>(bodies, acc, n, softening * softening);
  CUDA_CHECK(cudaGetLastError());
}

// ---------------------------------------------------------------------------------------------
// 3. One leapfrog (kick-drift-kick) step

__global__ void kick_drift_kernel(float4* bodies, float3* vel, const float3* acc, int n, float dt) {
  // TODO(7): for each body i < n: half a kick, then the drift with the new velocity (the
  //          leapfrog of nbody.h). Leave the mass (w) as it is.
}

__global__ void kick_kernel(float3* vel, const float3* acc, int n, float dt) {
  // TODO(8): for each body i < n: the second half kick of the leapfrog, with the accelerations
  //          at the new positions.
}

void leapfrog_step(float4* bodies, float3* vel, float3* acc, int n, float dt, float softening,
                   cudaStream_t stream) {
  // Provided: kick and drift, the accelerations at the new positions with your tiled kernel, the
  // second kick, one thread per body.
  const dim3 grid((n + kTileSize - 1) / kTileSize), block(kTileSize);
  kick_drift_kernel<<<grid, block, 0, stream>>>(bodies, vel, acc, n, dt);
  CUDA_CHECK(cudaGetLastError());
  accelerations_tiled(bodies, acc, n, softening, stream);
  kick_kernel<<<grid, block, 0, stream>>>(vel, acc, n, dt);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab09
