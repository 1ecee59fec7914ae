// Lab 04's functions across the two processes (grader/framework/remote.h; lab 01's remote.cpp
// says how the file is used). set_mask's host mask (K x K floats) goes through the process's
// host-argument area (wire.h) and is copied back, so that a function that wrote to its const input
// is seen.
#include <cstddef>
#include <cstdint>

#include "conv2d.h"
#include "remote_lab.h"

namespace {
enum Function : std::uint32_t { kSetMask = 1, kConv2d = 2, kConv2d8bit = 3 };

// set_mask's host mask: mask_width x mask_width floats.
std::size_t mask_floats(int mask_width) {
  return cudalab::host_elements({mask_width, mask_width}, sizeof(float));
}
}  // namespace

#if defined(CUDALAB_SERVE)

extern "C" int cudalab_serve_dispatch(cudalab_call* call) {
  return cudalab::serve::dispatch(call, [&](const cudalab::serve::Args& a) {
    switch (call->function) {
      case kSetMask: {
        const int mask_width = a.i32(1);
        lab04::candidate::set_mask(a.host<const float>(0, mask_floats(mask_width)), mask_width);
        return true;
      }
      case kConv2d:
        lab04::candidate::conv2d(a.device<const float>(0), a.device<float>(1), a.i32(2), a.i32(3),
                                 a.i32(4), a.stream());
        return true;
      case kConv2d8bit:
        lab04::candidate::conv2d_8bit(a.device<const unsigned char>(0), a.device<unsigned char>(1),
                                      a.i32(2), a.i32(3), a.i32(4), a.stream());
        return true;
    }
    return false;
  });
}

#else

namespace lab04::CUDALAB_IMPL {

using namespace cudalab::remote;

void set_mask(const float* host_mask, int mask_width) {
  const std::size_t count = host_mask != nullptr ? mask_floats(mask_width) : 0;
  call(kHere, "set_mask", kSetMask, {host(host_mask, count * sizeof(float)), integer(mask_width)});
}

void conv2d(const float* in, float* out, int width, int height, int channels, cudaStream_t) {
  call(kHere, "conv2d", kConv2d,
       {device(in), device(out), integer(width), integer(height), integer(channels)});
}

void conv2d_8bit(const unsigned char* in, unsigned char* out, int width, int height, int channels,
                 cudaStream_t) {
  call(kHere, "conv2d_8bit", kConv2d8bit,
       {device(in), device(out), integer(width), integer(height), integer(channels)});
}

}  // namespace lab04::CUDALAB_IMPL

#endif
