// Lab 09 reference - all-pairs N-body, tuned for the FP32 pipeline.
//
// One interaction (destination i, source j), the course's convention of 20 flops:
//   d = r_j - r_i                        3 flops (3 FADD)
//   s = |d|^2 + eps^2                    6 flops (3 FFMA, eps^2 as the first addend)
//   inv = 1 / sqrt(s)                    2 flops (a square root and a reciprocal, 1 MUFU.RSQ)
//   f = m_j * inv * inv * inv            3 flops (3 FMUL)
//   a_i += d * f                         6 flops (3 FFMA)
// That is 12 FP32 instructions (FFMA counted once) and one MUFU per interaction; an SM issues one
// warp instruction per clock per scheduler, so a kernel that computes every (i, j) on its own
// cannot exceed 20 / (2 x 13) = 77% of the FP32 peak (which counts an FFMA as 2 flops on every
// lane), whatever it does with its memory.
//
// Newton's third law gets past that: the pair (i, j) and the pair (j, i) share d (up to sign), s,
// inv and inv^3; only the masses differ. Computed once for both bodies,
//   inv3 = inv * inv * inv;   f_i = m_j inv3;   f_j = -m_i inv3;   a_i += d f_i;   a_j += d f_j
// is 17 instructions for 2 interactions, 8.5 per interaction instead of 13. The interactions/s
// (and the GFLOP/s at 20 flops per interaction) still count all n^2 ordered pairs: the same
// answer, in less time. The catch is where a_j lives: in another thread.
//
// Kernels:
//   nbody_naive_kernel           one thread per destination body, every source read through the
//                                read-only cache (a warp reads the same body: one transaction).
//   nbody_tiled_kernel<B, K>     the course's tiles, one-sided (every ordered pair computed): B
//                                threads per block, the block stages B source bodies (float4, mass
//                                in w) at a time in shared memory; each thread keeps K destination
//                                bodies in registers (i, i + B, ..., i + (K-1)B) so one broadcast
//                                LDS.128 of a source body feeds K interactions, and the K chains
//                                are independent work for the scheduler. The inner loop is
//                                unrolled; 1/sqrt is rsqrt.approx.ftz (one MUFU, no denormal
//                                fix-up: s >= eps^2 > 0 is never denormal in practice). The last
//                                tile is padded with bodies of mass 0 (they add exactly 0), so
//                                the inner loop has no bounds test. Two tiles alternate in shared
//                                memory, and the next tile's body is loaded into a register before
//                                the current tile is used, so a tile costs one barrier. Source
//                                split: blockIdx.y takes one of gridDim.y equal runs of source
//                                tiles, and with gridDim.y > 1 the partial sums are added into acc
//                                (zeroed first) with atomics. Used while n is small (below).
//   nbody_pairs_kernel           Newton's third law, each unordered pair once. A warp holds a
//                                "strip" of 32 x kStripBodies bodies, kStripBodies per lane, with
//                                their positions, masses and accelerations in registers, and
//                                meets one "chunk" of 32 bodies at a time, one per lane. Over 32
//                                steps the chunk rotates one lane per step (__shfl_sync of its
//                                position, mass and acceleration: 7 shuffles per step for
//                                kStripBodies pairs), so every lane meets every chunk body once
//                                and the chunk's accelerations travel with their bodies; after 32
//                                steps each is back in its own lane and is added to acc with
//                                atomics. A chunk inside the warp's own strip is met one-sided
//                                (the strip's own pairs are all seen from their i side, and the
//                                accelerations stay put); a chunk past the strip is mutual. The
//                                work is the list of (strip a, chunk c >= first chunk of a)
//                                units, cut into equal runs, one run per warp; a strip's
//                                accelerations are added to acc when the warp leaves it. No
//                                shared memory, no barriers.
//   kick_drift_kernel            v_i += a_i dt/2; r_i += v_i dt (mass kept), one body per thread.
//   kick_kernel                  v_i += a_i dt/2 (the step's second half kick).
//
// The launch shape is chosen from n and the SM count (the course's "tile size vs SM count").
// Large n: the pairs kernel, as many warps as the SMs hold (4 blocks of 4 warps, 128 registers
// per thread); it needs a few units per warp, so below about 4 units per warp the one-sided tiled
// kernel runs instead. Measured on an H200 in one harness run: n = 2^18 .. 2^20 at 87.5-87.7% of
// the FP32 peak at 20 flops per interaction (the one-sided kernel: 60.8%; `lab09-nbody --bench`,
// with its L2 flush and median: 86.1-86.3%); at n = 4096 the one-sided kernel is faster (0.022
// vs 0.025 ms), at n = 8192 they tie (0.046 vs 0.045 ms, another run), at n = 16384 the pairs
// kernel is faster (0.112 vs 0.152 ms). For the one-sided kernel: the
// most destination bodies per thread (K = 4) while that still gives every SM at least two blocks,
// fewer otherwise, and 64-thread blocks when n is too small even for K = 1; then the source split,
// S runs of source tiles for about 64 blocks per SM.
//
// So on a GPU of more than 15 SMs only tiled<64, 1> of the one-sided kernels ever runs (the pairs
// kernel takes over first: from n = 11617 on 132 SMs); tiled<128, 1> runs on at most 15 SMs,
// tiled<128, 2> on at most 4, tiled<128, 4> on 1. reference_kernel_for says which kernel runs,
// and accelerations_forced runs any of them with any GPU's launch shape
// (grader/labs/09-nbody/reference_kernels.h): the solution's self-check "every reference kernel
// forced vs CPU reference" tests them all on every GPU.
#include <cstddef>
#include <stdexcept>
#include <string>

#include "../../grader/labs/09-nbody/reference_kernels.h"
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

// acc[i] += (x, y, z) with atomics, for i < n: several blocks add into the same body.
__device__ __forceinline__ void add_to(float3* acc, int i, int n, float x, float y, float z) {
  if (i >= n) return;
  atomicAdd(&acc[i].x, x);
  atomicAdd(&acc[i].y, y);
  atomicAdd(&acc[i].z, z);
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
    if (gridDim.y == 1)
      acc[i] = make_float3(ax[k], ay[k], az[k]);
    else
      add_to(acc, i, n, ax[k], ay[k], az[k]);
  }
}

// ---- Newton's third law ----

constexpr int kStripBodies = 8;     // bodies per lane in a strip: 32 x 8 = 256 bodies per strip
constexpr int kPairsWarps = 4;      // warps per block (they never wait for each other)
constexpr int kPairsMinBlocks = 4;  // blocks per SM: 16 warps, 128 registers per thread
constexpr int kStripSize = 32 * kStripBodies;

// The units (strip a, chunk c) run strip by strip, chunk c from a's first chunk a * kStripBodies
// to the last chunk: strip a starts at unit a * chunks - kStripBodies * a (a - 1) / 2.
__host__ __device__ inline long long strip_start(long long a, long long chunks) {
  return a * chunks - kStripBodies * a * (a - 1) / 2;
}

__device__ __forceinline__ float4 rotate(float4 q, int from) {
  q.x = __shfl_sync(0xffffffffu, q.x, from);
  q.y = __shfl_sync(0xffffffffu, q.y, from);
  q.z = __shfl_sync(0xffffffffu, q.z, from);
  q.w = __shfl_sync(0xffffffffu, q.w, from);
  return q;
}

__global__ void __launch_bounds__(kPairsWarps * 32, kPairsMinBlocks)
    nbody_pairs_kernel(const float4* __restrict__ bodies, float3* __restrict__ acc, int n,
                       float eps2, long long units, int chunks, int strips) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int from = (lane + 1) & 31;  // each step, every lane takes its right neighbour's body
  const long long warp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const long long warps = (static_cast<long long>(gridDim.x) * blockDim.x) >> 5;
  long long unit = units * warp / warps;
  const long long stop = units * (warp + 1) / warps;
  if (unit >= stop) return;  // (the whole warp: unit and stop are the same in every lane)
  // The strip of the first unit: the last strip that starts at or before it.
  int lo = 0, hi = strips - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (strip_start(mid, chunks) <= unit)
      lo = mid;
    else
      hi = mid - 1;
  }
  int a = lo;
  int c = a * kStripBodies + static_cast<int>(unit - strip_start(a, chunks));
  // Slots past the last body hold a body of mass 0 at the origin: it exerts nothing (m = 0) and
  // what it receives is never written back.
  const auto load = [bodies, n](int j) {
    return j < n ? __ldg(&bodies[j]) : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  };
  while (unit < stop) {
    float px[kStripBodies], py[kStripBodies], pz[kStripBodies], neg_m[kStripBodies];
    float ax[kStripBodies], ay[kStripBodies], az[kStripBodies];
#pragma unroll
    for (int k = 0; k < kStripBodies; ++k) {
      const float4 p = load(a * kStripSize + 32 * k + lane);
      px[k] = p.x;
      py[k] = p.y;
      pz[k] = p.z;
      neg_m[k] = -p.w;  // the reaction on the chunk body: -m_i d inv3
      ax[k] = ay[k] = az[k] = 0.0f;
    }
    const int own_end = (a + 1) * kStripBodies;  // chunks below this one are inside strip a
    float4 next = load(c * 32 + lane);
    for (; unit < stop && c < chunks; ++unit, ++c) {
      float4 q = next;  // this lane's chunk body (x, y, z, m)
      if (unit + 1 < stop && c + 1 < chunks) next = load((c + 1) * 32 + lane);
      if (c < own_end) {
        // One-sided: the strip's own pairs, each seen from both ends by the loop itself.
#pragma unroll 4
        for (int step = 0; step < 32; ++step) {
#pragma unroll
          for (int k = 0; k < kStripBodies; ++k)
            interact(q, px[k], py[k], pz[k], eps2, ax[k], ay[k], az[k]);
          q = rotate(q, from);
        }
      } else {
        float bx = 0.0f, by = 0.0f, bz = 0.0f;  // the acceleration of the body in q
#pragma unroll 4
        for (int step = 0; step < 32; ++step) {
#pragma unroll
          for (int k = 0; k < kStripBodies; ++k) {
            const float dx = q.x - px[k];
            const float dy = q.y - py[k];
            const float dz = q.z - pz[k];
            const float s = fmaf(dz, dz, fmaf(dy, dy, fmaf(dx, dx, eps2)));
            const float inv = rsqrt_ftz(s);
            const float inv3 = inv * inv * inv;
            const float fi = q.w * inv3;       // on strip body k, towards q
            const float fj = neg_m[k] * inv3;  // on q, towards strip body k
            ax[k] = fmaf(dx, fi, ax[k]);
            ay[k] = fmaf(dy, fi, ay[k]);
            az[k] = fmaf(dz, fi, az[k]);
            bx = fmaf(dx, fj, bx);
            by = fmaf(dy, fj, by);
            bz = fmaf(dz, fj, bz);
          }
          // The body and its acceleration move on together.
          q = rotate(q, from);
          bx = __shfl_sync(0xffffffffu, bx, from);
          by = __shfl_sync(0xffffffffu, by, from);
          bz = __shfl_sync(0xffffffffu, bz, from);
        }
        add_to(acc, c * 32 + lane, n, bx, by, bz);  // 32 rotations: back in its own lane
      }
    }
#pragma unroll
    for (int k = 0; k < kStripBodies; ++k)
      add_to(acc, a * kStripSize + 32 * k + lane, n, ax[k], ay[k], az[k]);
    ++a;
    c = a * kStripBodies;
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
void launch_tiled(const float4* bodies, float3* acc, int n, float eps2, int sms,
                  cudaStream_t stream) {
  const long long dest_blocks = (n + B * K - 1LL) / (B * K);
  const long long tiles = (n + B - 1LL) / B;
  const long long want =
      (kBlocksPerSm * static_cast<long long>(sms) + dest_blocks - 1) / dest_blocks;
  const long long most = tiles < 65535 ? tiles : 65535;  // also gridDim.y's limit
  const int split = static_cast<int>(want < 1 ? 1 : (want > most ? most : want));
  if (split > 1)
    CUDA_CHECK(cudaMemsetAsync(acc, 0, sizeof(float3) * static_cast<std::size_t>(n), stream));
  const dim3 grid(static_cast<unsigned>(dest_blocks), static_cast<unsigned>(split));
  nbody_tiled_kernel<B, K><<<grid, B, 0, stream>>>(bodies, acc, n, eps2);
  CUDA_CHECK(cudaGetLastError());
}

// The pairs kernel's work and grid on a GPU of `sms` SMs: as many warps as the SMs hold, each
// taking an equal run of the (strip, chunk) units.
struct PairsShape {
  int chunks, strips, blocks;
  long long units;
};

PairsShape pairs_shape(int n, int sms) {
  PairsShape p{};
  p.chunks = (n + 31) / 32;
  p.strips = (n + kStripSize - 1) / kStripSize;
  p.units = strip_start(p.strips, p.chunks);
  p.blocks = kPairsMinBlocks * sms;
  return p;
}

void launch_pairs(const float4* bodies, float3* acc, int n, float eps2, int sms,
                  cudaStream_t stream) {
  const PairsShape p = pairs_shape(n, sms);
  CUDA_CHECK(cudaMemsetAsync(acc, 0, sizeof(float3) * static_cast<std::size_t>(n), stream));
  nbody_pairs_kernel<<<p.blocks, kPairsWarps * 32, 0, stream>>>(bodies, acc, n, eps2, p.units,
                                                                p.chunks, p.strips);
  CUDA_CHECK(cudaGetLastError());
}

// The pairs kernel when every warp the SMs hold gets at least kUnitsPerWarp units.
constexpr int kUnitsPerWarp = 4;

}  // namespace

// The kernel from n and the SM count (see the header comment); launch_tiled and launch_pairs
// make the launch shape.
ReferenceKernel reference_kernel_for(int n, int sms) {
  const PairsShape p = pairs_shape(n, sms);
  if (p.units >= static_cast<long long>(kUnitsPerWarp) * kPairsWarps * p.blocks)
    return ReferenceKernel::pairs;
  const long long enough = 2LL * sms;  // blocks that keep every SM busy
  const auto blocks = [n](int per_block) { return (n + per_block - 1LL) / per_block; };
  if (blocks(128 * 4) >= enough) return ReferenceKernel::tiled_128x4;
  if (blocks(128 * 2) >= enough) return ReferenceKernel::tiled_128x2;
  if (blocks(128) >= enough) return ReferenceKernel::tiled_128x1;
  return ReferenceKernel::tiled_64x1;
}

void accelerations_forced(ReferenceKernel kernel, const float4* bodies, float3* acc, int n,
                          float softening, int sms, cudaStream_t stream) {
  if (sms <= 0) sms = sm_count();
  const float eps2 = softening * softening;
  using Kernel = ReferenceKernel;
  switch (kernel) {
    case Kernel::naive: return accelerations_naive(bodies, acc, n, softening, stream);
    case Kernel::tiled_64x1: return launch_tiled<64, 1>(bodies, acc, n, eps2, sms, stream);
    case Kernel::tiled_128x1: return launch_tiled<128, 1>(bodies, acc, n, eps2, sms, stream);
    case Kernel::tiled_128x2: return launch_tiled<128, 2>(bodies, acc, n, eps2, sms, stream);
    case Kernel::tiled_128x4: return launch_tiled<128, 4>(bodies, acc, n, eps2, sms, stream);
    case Kernel::pairs: return launch_pairs(bodies, acc, n, eps2, sms, stream);
  }
  throw std::invalid_argument("accelerations_forced: no kernel " +
                              std::to_string(static_cast<int>(kernel)));
}

namespace {

// What accelerations_tiled and leapfrog_step run: the dispatch's kernel on this GPU.
void tiled(const float4* bodies, float3* acc, int n, float softening, cudaStream_t stream) {
  const int sms = sm_count();
  accelerations_forced(reference_kernel_for(n, sms), bodies, acc, n, softening, sms, stream);
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
