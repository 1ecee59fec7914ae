// A plain, correct answer to lab 09 as a student would write it from the skeleton and the docs:
// one destination body per thread in both kernels, the course's tiles of 256 source bodies in
// shared memory, 1/sqrtf, no unrolling or several bodies per thread. The grader must give it
// full marks: this is what keeps r_full honest.
#include "cudalab/check.h"
#include "nbody.h"

namespace lab09 {
namespace CUDALAB_IMPL {

constexpr int kTileSize = 256;

__device__ void body_body(float4 src, float4 dst, float eps2, float3& a) {
  const float dx = src.x - dst.x, dy = src.y - dst.y, dz = src.z - dst.z;
  const float dist2 = dx * dx + dy * dy + dz * dz + eps2;
  const float inv = 1.0f / sqrtf(dist2);
  const float f = src.w * inv * inv * inv;
  a.x += dx * f;
  a.y += dy * f;
  a.z += dz * f;
}

__global__ void nbody_naive_kernel(const float4* bodies, float3* acc, int n, float eps2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 me = bodies[i];
  float3 a = make_float3(0.0f, 0.0f, 0.0f);
  for (int j = 0; j < n; ++j) body_body(bodies[j], me, eps2, a);
  acc[i] = a;
}

void accelerations_naive(const float4* bodies, float3* acc, int n, float softening,
                         cudaStream_t stream) {
  const dim3 grid((n + kTileSize - 1) / kTileSize), block(kTileSize);
  nbody_naive_kernel<<<grid, block, 0, stream>>>(bodies, acc, n, softening * softening);
  CUDA_CHECK(cudaGetLastError());
}

__global__ void nbody_tiled_kernel(const float4* bodies, float3* acc, int n, float eps2) {
  __shared__ float4 tile[kTileSize];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float4 me = i < n ? bodies[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float3 a = make_float3(0.0f, 0.0f, 0.0f);
  for (int start = 0; start < n; start += kTileSize) {
    const int j = start + threadIdx.x;
    tile[threadIdx.x] = j < n ? bodies[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    __syncthreads();
    for (int k = 0; k < kTileSize; ++k) body_body(tile[k], me, eps2, a);
    __syncthreads();
  }
  if (i < n) acc[i] = a;
}

void accelerations_tiled(const float4* bodies, float3* acc, int n, float softening,
                         cudaStream_t stream) {
  const dim3 grid((n + kTileSize - 1) / kTileSize), block(kTileSize);
  nbody_tiled_kernel<<<grid, block, 0, stream>>>(bodies, acc, n, softening * softening);
  CUDA_CHECK(cudaGetLastError());
}

__global__ void kick_drift_kernel(float4* bodies, float3* vel, const float3* acc, int n, float dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float3 v = vel[i];
  v.x += acc[i].x * 0.5f * dt;
  v.y += acc[i].y * 0.5f * dt;
  v.z += acc[i].z * 0.5f * dt;
  vel[i] = v;
  bodies[i].x += v.x * dt;
  bodies[i].y += v.y * dt;
  bodies[i].z += v.z * dt;
}

__global__ void kick_kernel(float3* vel, const float3* acc, int n, float dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  vel[i].x += acc[i].x * 0.5f * dt;
  vel[i].y += acc[i].y * 0.5f * dt;
  vel[i].z += acc[i].z * 0.5f * dt;
}

void leapfrog_step(float4* bodies, float3* vel, float3* acc, int n, float dt, float softening,
                   cudaStream_t stream) {
  const dim3 grid((n + kTileSize - 1) / kTileSize), block(kTileSize);
  kick_drift_kernel<<<grid, block, 0, stream>>>(bodies, vel, acc, n, dt);
  CUDA_CHECK(cudaGetLastError());
  accelerations_tiled(bodies, acc, n, softening, stream);
  kick_kernel<<<grid, block, 0, stream>>>(vel, acc, n, dt);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab09
