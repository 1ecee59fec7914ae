// Lab 09 reference only: each kernel of the reference solution (solutions/09-nbody/nbody.cu) run
// on demand, whatever n and the GPU, for the solution's self-check "every reference kernel forced
// vs CPU reference" (grade_nbody.cpp, tag [selfcheck]: never in a student's grade). It is not
// part of the lab's interface (nbody.h): the students do not write it, and only the reference
// defines it.
//
// Why: the reference's accelerations_tiled picks its kernel from n and the SM count
// (reference_kernel_for below), and on a large GPU most one-sided variants never run:
//   pairs           n >= 1024 sqrt(SMs), about: from n = 11617 on 132 SMs (H100, H200)
//   tiled<64, 1>    below that, unless one of the next three applies (any GPU)
//   tiled<128, 1>   ceil(n / 128) >= 2 SMs, below the pairs point: GPUs of at most 15 SMs
//   tiled<128, 2>   ceil(n / 256) >= 2 SMs, below the pairs point: at most 4 SMs
//   tiled<128, 4>   ceil(n / 512) >= 2 SMs, below the pairs point: 1 SM only
// Forcing a kernel with the launch shape of a small GPU (`sms`) runs exactly what that GPU's
// dispatch would run (the grid depends on the SM count, the work of a block only on the grid).
//
// No include guard around the declarations (as nbody.h; see common/include/cudalab/impl.h); the
// enum has its own.
#include <cuda_runtime.h>

#include "cudalab/impl.h"

#ifndef LAB09_REFERENCE_KERNEL
#define LAB09_REFERENCE_KERNEL
namespace lab09 {

enum class ReferenceKernel {
  naive,        // nbody_naive_kernel (accelerations_naive)
  tiled_64x1,   // nbody_tiled_kernel<64, 1>: 64-thread blocks, 1 body per thread
  tiled_128x1,  // nbody_tiled_kernel<128, 1>
  tiled_128x2,  // nbody_tiled_kernel<128, 2>: 2 destination bodies per thread
  tiled_128x4,  // nbody_tiled_kernel<128, 4>: 4 destination bodies per thread
  pairs,        // nbody_pairs_kernel: Newton's third law, each pair once
};

inline const char* reference_kernel_name(ReferenceKernel k) {
  switch (k) {
    case ReferenceKernel::naive: return "naive";
    case ReferenceKernel::tiled_64x1: return "tiled<64, 1>";
    case ReferenceKernel::tiled_128x1: return "tiled<128, 1>";
    case ReferenceKernel::tiled_128x2: return "tiled<128, 2>";
    case ReferenceKernel::tiled_128x4: return "tiled<128, 4>";
    case ReferenceKernel::pairs: return "pairs";
  }
  return "unknown";
}

}  // namespace lab09
#endif

namespace lab09 {
namespace CUDALAB_IMPL {

// The kernel accelerations_tiled (and leapfrog_step) runs for n >= 1 bodies on a GPU of
// sms >= 1 SMs. Host code only: needs no device.
ReferenceKernel reference_kernel_for(int n, int sms);

// a_i for every body with `kernel`, launched as accelerations_tiled launches it on a GPU of `sms`
// SMs (the tiled kernels' source split, the pairs kernel's grid of 4 blocks per SM; sms <= 0:
// this device's count), whether or not that dispatch would choose it for this n. The contract is
// accelerations_tiled's (nbody.h): device pointers, launches on `stream` only. Throws
// std::invalid_argument for a value outside the enum.
void accelerations_forced(ReferenceKernel kernel, const float4* bodies, float3* acc, int n,
                          float softening, int sms, cudaStream_t stream);

}  // namespace CUDALAB_IMPL
}  // namespace lab09
