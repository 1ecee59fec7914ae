// Lab 03's functions across the two processes (grader/framework/remote.h; lab 01's remote.cpp
// says how the file is used). upload_mask's host mask goes through the process's host-argument
// area (wire.h) and is copied back, so that a function that wrote to its const input is seen.
#include "conv1d_constant.h"
#include "remote_lab.h"

namespace {
enum Function : std::uint32_t { kUploadMask = 1, kConv1dConstant = 2 };
}  // namespace

#if defined(CUDALAB_SERVE)

extern "C" int cudalab_serve_dispatch(cudalab_call* call) {
  return cudalab::serve::dispatch(call, [&](const cudalab::serve::Args& a) {
    switch (call->function) {
      case kUploadMask: {
        const int mask_width = a.i32(1);
        lab03::candidate::upload_mask(
            a.host<const float>(0, cudalab::host_elements({mask_width}, sizeof(float))),
            mask_width);
        return true;
      }
      case kConv1dConstant:
        lab03::candidate::conv1d_constant(a.device<const float>(0), a.device<float>(1), a.i32(2),
                                          a.i32(3), a.stream());
        return true;
    }
    return false;
  });
}

#else

namespace lab03::CUDALAB_IMPL {

using namespace cudalab::remote;

void upload_mask(const float* mask, int mask_width) {
  const std::size_t count =
      mask != nullptr ? cudalab::host_elements({mask_width}, sizeof(float)) : 0;
  call(kHere, "upload_mask", kUploadMask, {host(mask, count * sizeof(float)), integer(mask_width)});
}

void conv1d_constant(const float* x, float* y, int width, int mask_width, cudaStream_t) {
  call(kHere, "conv1d_constant", kConv1dConstant,
       {device(x), device(y), integer(width), integer(mask_width)});
}

}  // namespace lab03::CUDALAB_IMPL

#endif
