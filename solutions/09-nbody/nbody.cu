// Lab 09 reference - all-pairs N-body, tuned for the FP32 pipeline.
//
// One interaction (destination i, source j), the course's convention of 20 flops:
//   d = r_j - r_i                        3 flops (3 FADD)
//   s = |d|^2 + eps^2                    6 flops (3 FFMA, eps^2 as the first addend)
//   inv = 1 / sqrt(s)                    2 flops (a square root and a reciprocal, 1 MUFU.RSQ)
//   f = m_j * inv * inv * inv            3 flops (3 FMUL)
//   a_i += d * f                         6 flops (3 FFMA)
// That is 12 FP32 instructions (FFMA counted once) and one MUFU per interaction; an SM issues one
// warp instruction per clock per scheduler, so even with nothing else to issue the kernel cannot
// exceed 20 / (2 x 13) = 77% of the FP32 peak (which counts an FFMA as 2 flops on every lane).
// Everything else (shared-memory loads, loop control) has to be spread thin.
//
// Kernels:
//   nbody_naive_kernel           one thread per destination body, every source read through the
//                                read-only cache (a warp reads the same body: one transaction).
//   nbody_tiled_kernel<B, K>     the course's tiles: B threads per block, the block stages B source
//                                bodies (float4, mass in w) at a time in shared memory; each thread
//                                keeps K destination bodies in registers (i, i + B, ..., i +
//                                (K-1)B) so one broadcast LDS.128 of a source body feeds K
//                                interactions, and the K chains are independent work for the
//                                scheduler. The inner loop is unrolled; 1/sqrt is rsqrt.approx.ftz
//                                (one MUFU, no denormal fix-up: s >= eps^2 > 0 is never denormal in
//                                practice). The last tile is padded with bodies of mass 0 (they add
//                                exactly 0), so the inner loop has no bounds test. Two tiles
//                                alternate in shared memory, and the next tile's body is loaded
//                                into a register before the current tile is used, so the global
//                                load is in flight during the compute and a tile costs one barrier.
//                                Source split: blockIdx.y takes one of gridDim.y equal runs of
//                                source tiles, and with gridDim.y > 1 the partial sums are added
//                                into acc (zeroed first) with atomics.
//   kick_drift_kernel            v_i += a_i dt/2; r_i += v_i dt (mass kept), one body per thread.
//   kick_kernel                  v_i += a_i dt/2 (the step's second half kick).
//
// The launch shape is chosen from n and the SM count (the course's "tile size vs SM count"): the
// most destination bodies per thread (K = 4) while that still gives every SM at least two blocks,
// fewer otherwise, and 64-thread blocks when n is too small even for K = 1. Then the source split:
// with K = 4, n = 2^18 gives only 512 blocks of 4 warps, about 4 blocks (16 warps) per SM, too few
// warps to keep the schedulers issuing (measured on an H200: 52% of the FP32 peak); splitting the
// sources into S runs gives S times the blocks (about 64 per SM in all), and 61% of the peak
// for n = 2^18 .. 2^20 at the price of 3 atomics per body and run. The instruction mix caps this
// kernel at 20 / (2 x 13.25) = 75% of the peak; the rest is issue stalls (docs/labs/09-nbody.md).
#include <cstddef>

#include "cudalab/check.h"
#include "nbody.h"

namespace lab09 {
namespace CUDALAB_IMPL {
namespace {

constexpr int kNaiveBlock = 256;
constexpr int kStepBlock = 256;

__device__ __forceinline__ float rsqrt_ftz(float x) {
  float y;
  asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// a += m_j (r_j - r) / (|r_j - r|^2 + eps2)^(3/2); 20 flops by the count above.
__device__ __forceinline__ void interact(const float4 src, const float px, const float py,
                                         const float pz, const float eps2, float& ax, float& ay,
                                         float& az) {
  const float dx = src.x - px;
  const float dy = src.y - py;
  const float dz = src.z - pz;
  const float s = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
  const float inv = rsqrt_ftz(s);
  const float f = (src.w * inv) * (inv * inv);
  ax = fmaf(dx, f, ax);
  ay = fmaf(dy, f, ay);
  az = fmaf(dz, f, az);
}

__global__ void __launch_bounds__(kNaiveBlock)
    nbody_naive_kernel(const float4* __restrict__ bodies, float3* __restrict__ acc, int n,
                       float eps2) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float4 p = bodies[i];
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
#pragma unroll 8
  for (int j = 0; j < n; ++j) interact(__ldg(&bodies[j]), p.x, p.y, p.z, eps2, ax, ay, az);
  acc[i] = make_float3(ax, ay, az);
}

template <int B, int K>
__global__ void __launch_bounds__(B)
    nbody_tiled_kernel(const float4* __restrict__ bodies, float3* __restrict__ acc, int n,
                       float eps2) {
  __shared__ float4 tile[2][B];
  const int first = blockIdx.x * (B * K) + threadIdx.x;  // destinations first, first + B, ...
  float px[K], py[K], pz[K], ax[K], ay[K], az[K];
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int i = first + k * B;
    const float4 p = i < n ? bodies[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    px[k] = p.x;
    py[k] = p.y;
    pz[k] = p.z;
    ax[k] = ay[k] = az[k] = 0.0f;
  }
  // This block's run of source tiles [t0, t1).
  const int tiles = (n + B - 1) / B;
  const int t0 = static_cast<int>(static_cast<long long>(tiles) * blockIdx.y / gridDim.y);
  const int t1 = static_cast<int>(static_cast<long long>(tiles) * (blockIdx.y + 1) / gridDim.y);
  // Slots past the last body hold a body of mass 0: it adds exactly 0 (s >= eps2 > 0).
  const auto source = [bodies, n](int j) {
    return j < n ? bodies[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  };
  float4 next = source(t0 * B + static_cast<int>(threadIdx.x));
  int buf = 0;
  for (int t = t0; t < t1; ++t) {
    tile[buf][threadIdx.x] = next;
    // The tile is complete before anyone reads it; and everyone has finished with this buffer's
    // previous tile (two rounds ago), since they have all passed the previous round's barrier.
    __syncthreads();
    if (t + 1 < t1) next = source((t + 1) * B + static_cast<int>(threadIdx.x));
#pragma unroll 8
    for (int s = 0; s < B; ++s) {
      const float4 src = tile[buf][s];  // the same address for the whole warp: a broadcast
#pragma unroll
      for (int k = 0; k < K; ++k) interact(src, px[k], py[k], pz[k], eps2, ax[k], ay[k], az[k]);
    }
    buf ^= 1;
  }
#pragma unroll
  for (int k = 0; k < K; ++k) {
    const int i = first + k * B;
    if (i >= n) continue;
    if (gridDim.y == 1) {
      acc[i] = make_float3(ax[k], ay[k], az[k]);
    } else {
      atomicAdd(&acc[i].x, ax[k]);
      atomicAdd(&acc[i].y, ay[k]);
      atomicAdd(&acc[i].z, az[k]);
    }
  }
}

__global__ void __launch_bounds__(kStepBlock)
    kick_drift_kernel(float4* __restrict__ bodies, float3* __restrict__ vel,
                      const float3* __restrict__ acc, int n, float dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float half_dt = 0.5f * dt;
  const float3 a = acc[i];
  float3 v = vel[i];
  v.x = fmaf(a.x, half_dt, v.x);
  v.y = fmaf(a.y, half_dt, v.y);
  v.z = fmaf(a.z, half_dt, v.z);
  float4 p = bodies[i];
  p.x = fmaf(v.x, dt, p.x);
  p.y = fmaf(v.y, dt, p.y);
  p.z = fmaf(v.z, dt, p.z);
  bodies[i] = p;
  vel[i] = v;
}

__global__ void __launch_bounds__(kStepBlock)
    kick_kernel(float3* __restrict__ vel, const float3* __restrict__ acc, int n, float half_dt) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float3 a = acc[i];
  float3 v = vel[i];
  v.x = fmaf(a.x, half_dt, v.x);
  v.y = fmaf(a.y, half_dt, v.y);
  v.z = fmaf(a.z, half_dt, v.z);
  vel[i] = v;
}

int sm_count() {
  int device = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// The source split: S runs of source tiles, for about kBlocksPerSm blocks per SM in all, each
// run at least one tile. S = 1 writes acc directly; S > 1 zeroes it and adds with atomics.
constexpr int kBlocksPerSm = 64;

template <int B, int K>
void launch_tiled(const float4* bodies, float3* acc, int n, float eps2, cudaStream_t stream) {
  const long long dest_blocks = (n + B * K - 1LL) / (B * K);
  const long long tiles = (n + B - 1LL) / B;
  const long long want =
      (kBlocksPerSm * static_cast<long long>(sm_count()) + dest_blocks - 1) / dest_blocks;
  const long long most = tiles < 65535 ? tiles : 65535;  // also gridDim.y's limit
  const int split = static_cast<int>(want < 1 ? 1 : (want > most ? most : want));
  if (split > 1)
    CUDA_CHECK(cudaMemsetAsync(acc, 0, sizeof(float3) * static_cast<std::size_t>(n), stream));
  const dim3 grid(static_cast<unsigned>(dest_blocks), static_cast<unsigned>(split));
  nbody_tiled_kernel<B, K><<<grid, B, 0, stream>>>(bodies, acc, n, eps2);
  CUDA_CHECK(cudaGetLastError());
}

// The launch shape from n and the SM count (see the header comment).
void tiled(const float4* bodies, float3* acc, int n, float softening, cudaStream_t stream) {
  const float eps2 = softening * softening;
  const long long enough = 2LL * sm_count();  // blocks that keep every SM busy
  const auto blocks = [n](int per_block) { return (n + per_block - 1LL) / per_block; };
  if (blocks(128 * 4) >= enough)
    launch_tiled<128, 4>(bodies, acc, n, eps2, stream);
  else if (blocks(128 * 2) >= enough)
    launch_tiled<128, 2>(bodies, acc, n, eps2, stream);
  else if (blocks(128) >= enough)
    launch_tiled<128, 1>(bodies, acc, n, eps2, stream);
  else
    launch_tiled<64, 1>(bodies, acc, n, eps2, stream);
}

}  // namespace

void accelerations_naive(const float4* bodies, float3* acc, int n, float softening,
                         cudaStream_t stream) {
  const int blocks = (n + kNaiveBlock - 1) / kNaiveBlock;
  nbody_naive_kernel<<<blocks, kNaiveBlock, 0, stream>>>(bodies, acc, n, softening * softening);
  CUDA_CHECK(cudaGetLastError());
}

void accelerations_tiled(const float4* bodies, float3* acc, int n, float softening,
                         cudaStream_t stream) {
  tiled(bodies, acc, n, softening, stream);
}

void leapfrog_step(float4* bodies, float3* vel, float3* acc, int n, float dt, float softening,
                   cudaStream_t stream) {
  const int blocks = (n + kStepBlock - 1) / kStepBlock;
  kick_drift_kernel<<<blocks, kStepBlock, 0, stream>>>(bodies, vel, acc, n, dt);
  CUDA_CHECK(cudaGetLastError());
  tiled(bodies, acc, n, softening, stream);  // accelerations at the new positions
  kick_kernel<<<blocks, kStepBlock, 0, stream>>>(vel, acc, n, 0.5f * dt);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace CUDALAB_IMPL
}  // namespace lab09
