// Lab 09 - all-pairs N-body: the interface the grader calls.
//
// n bodies, body i at position r_i with mass m_i, stored as one float4 per body:
//   bodies[i] = (x, y, z, m)                       (the mass in w, as in the course)
// Softened gravity (G = 1), softening length eps > 0:
//   a_i = sum_{j=0}^{n-1} m_j (r_j - r_i) / (|r_j - r_i|^2 + eps^2)^(3/2),   0 <= i < n
// The sum runs over ALL j, j = i included: that term is 0 (r_j - r_i = 0), and the softening keeps
// it finite; bodies at the same position exert no force on each other for the same reason.
//
// One leapfrog step (kick-drift-kick) of length dt, with acc holding a_i at the current positions:
//   v_i += a_i dt/2;   r_i += v_i dt;   a_i = acceleration at the new positions;   v_i += a_i dt/2
// The masses (w) do not change. After the step acc holds the accelerations at the new positions,
// ready for the next step (one force evaluation per step).
//
// All pointers are DEVICE pointers to n elements; float3 arrays are packed (x, y, z per body).
// The functions only launch work on `stream` (no allocation, copy or synchronization).
// n >= 1, softening > 0, dt > 0.
//
// No include guard on purpose (see common/include/cudalab/impl.h).
#include <cuda_runtime.h>

#include "cudalab/impl.h"

namespace lab09 {
namespace CUDALAB_IMPL {

// a_i for every body with the all-pairs kernel, one destination body per thread, sources read
// from global memory (nbody_naive_kernel).
void accelerations_naive(const float4* bodies, float3* acc, int n, float softening,
                         cudaStream_t stream);

// The same with the course's tiled kernel (nbody_tiled_kernel): P threads per tile, each keeps
// its destination body in registers and loops over source bodies staged in shared memory.
void accelerations_tiled(const float4* bodies, float3* acc, int n, float softening,
                         cudaStream_t stream);

// One kick-drift-kick leapfrog step; updates bodies (positions), vel and acc in place.
void leapfrog_step(float4* bodies, float3* vel, float3* acc, int n, float dt, float softening,
                   cudaStream_t stream);

}  // namespace CUDALAB_IMPL
}  // namespace lab09
