// Lab 09's functions across processes (grader/framework/remote.h; lab 01's remote.cpp says how the
// file is used), and two functions only the reference's process serves (reference_kernels.h): each
// of the reference's kernels forced, for the solution's self-check, and the kernel its dispatch
// chooses, fetched as a table per SM count (the self-check asks for tens of thousands of sizes,
// which one call each would make a minute of round trips).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "nbody.h"
#include "reference_kernels.h"
#include "remote_lab.h"

namespace {
enum Function : std::uint32_t {
  kAccelerationsNaive = 1,
  kAccelerationsTiled = 2,
  kLeapfrogStep = 3,
  kAccelerationsForced = 4,   // the reference's process only
  kReferenceKernelTable = 5,  // the reference's process only
};
}  // namespace

#if defined(CUDALAB_SERVE)

// Only the reference's library (the solution) defines these; in a candidate's library they stay
// null and a call of them is refused as the grader's mistake (the judge sends them only to the
// reference's process).
namespace lab09::candidate {
__attribute__((weak)) ReferenceKernel reference_kernel_for(int n, int sms);
__attribute__((weak)) void accelerations_forced(ReferenceKernel kernel, const float4* bodies,
                                                float3* acc, int n, float softening, int sms,
                                                cudaStream_t stream);
}  // namespace lab09::candidate

extern "C" int cudalab_serve_dispatch(cudalab_call* call) {
  return cudalab::serve::dispatch(call, [&](const cudalab::serve::Args& a) {
    using namespace lab09::candidate;
    switch (call->function) {
      case kAccelerationsNaive:
        accelerations_naive(a.device<const float4>(0), a.device<float3>(1), a.i32(2), a.f32(3),
                            a.stream());
        return true;
      case kAccelerationsTiled:
        accelerations_tiled(a.device<const float4>(0), a.device<float3>(1), a.i32(2), a.f32(3),
                            a.stream());
        return true;
      case kLeapfrogStep:
        leapfrog_step(a.device<float4>(0), a.device<float3>(1), a.device<float3>(2), a.i32(3),
                      a.f32(4), a.f32(5), a.stream());
        return true;
      case kAccelerationsForced:
        if (accelerations_forced == nullptr) return false;
        accelerations_forced(static_cast<lab09::ReferenceKernel>(a.i32(0)),
                             a.device<const float4>(1), a.device<float3>(2), a.i32(3), a.f32(4),
                             a.i32(5), a.stream());
        return true;
      case kReferenceKernelTable: {
        if (reference_kernel_for == nullptr) return false;
        const int sms = a.i32(0);
        const std::int64_t size = a.i64(1);
        std::int8_t* table =
            a.host<std::int8_t>(2, cudalab::host_elements({size}, sizeof(std::int8_t)));
        for (std::int64_t n = 1; n <= size; ++n)
          table[n - 1] = static_cast<std::int8_t>(reference_kernel_for(static_cast<int>(n), sms));
        return true;
      }
    }
    return false;
  });
}

#else

namespace lab09::CUDALAB_IMPL {

using namespace cudalab::remote;

void accelerations_naive(const float4* bodies, float3* acc, int n, float softening, cudaStream_t) {
  call(kHere, "accelerations_naive", kAccelerationsNaive,
       {device(bodies), device(acc), integer(n), real(softening)});
}

void accelerations_tiled(const float4* bodies, float3* acc, int n, float softening, cudaStream_t) {
  call(kHere, "accelerations_tiled", kAccelerationsTiled,
       {device(bodies), device(acc), integer(n), real(softening)});
}

void leapfrog_step(float4* bodies, float3* vel, float3* acc, int n, float dt, float softening,
                   cudaStream_t) {
  call(kHere, "leapfrog_step", kLeapfrogStep,
       {device(bodies), device(vel), device(acc), integer(n), real(dt), real(softening)});
}

#if defined(CUDALAB_REMOTE_REFERENCE)

void accelerations_forced(ReferenceKernel kernel, const float4* bodies, float3* acc, int n,
                          float softening, int sms, cudaStream_t) {
  call(kHere, "accelerations_forced", kAccelerationsForced,
       {integer(static_cast<int>(kernel)), device(bodies), device(acc), integer(n), real(softening),
        integer(sms)});
}

ReferenceKernel reference_kernel_for(int n, int sms) {
  if (n < 1 || sms < 1)
    throw std::invalid_argument("reference_kernel_for: n = " + std::to_string(n) +
                                " and sms = " + std::to_string(sms) + " must be at least 1");
  // The kernel for n = 1, 2, ... on `sms` SMs, fetched once per SM count and grown by doubling.
  static std::map<int, std::vector<std::int8_t> > tables;
  std::vector<std::int8_t>& table = tables[sms];
  if (static_cast<std::size_t>(n) > table.size()) {
    std::size_t size = std::max<std::size_t>(table.size() * 2, std::size_t{1} << 14);
    while (size < static_cast<std::size_t>(n)) size *= 2;
    std::vector<std::int8_t> fresh(size, -1);
    call(kHere, "reference_kernel_for", kReferenceKernelTable,
         {integer(sms), integer(static_cast<long long>(size)), host(fresh.data(), size)});
    if (std::any_of(fresh.begin(), fresh.end(), [](std::int8_t k) {
          return k < static_cast<int>(ReferenceKernel::naive) ||
                 k > static_cast<int>(ReferenceKernel::pairs);
        }))
      throw std::runtime_error("grader problem: the reference's kernel table for " +
                               std::to_string(sms) + " SMs came back incomplete");
    table = std::move(fresh);
  }
  return static_cast<ReferenceKernel>(table[static_cast<std::size_t>(n) - 1]);
}

#endif

}  // namespace lab09::CUDALAB_IMPL

#endif
