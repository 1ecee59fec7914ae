// Lab 05's functions across the two processes (grader/framework/remote.h; lab 01's remote.cpp
// says how the file is used). The prepare_* functions' host image (w x h floats, 64 MiB at the
// timed size) goes through the process's shared host-argument area (wire.h) and is copied back,
// so that a function that wrote to its const input is seen; the texture objects and arrays they
// make stay in the candidate's process, with its state, for the run functions.
#include <cstddef>
#include <cstdint>

#include "conv_texture.h"
#include "remote_lab.h"

namespace {
enum Function : std::uint32_t {
  kConv2dGlobal = 1,
  kPrepareTexture = 2,
  kConv2dTexture = 3,
  kPrepareRotation = 4,
  kRotate = 5
};

// The prepare_* functions' host image: w x h floats.
std::size_t image_floats(int w, int h) {
  return cudalab::host_elements({w, h}, sizeof(float));
}
}  // namespace

#if defined(CUDALAB_SERVE)

extern "C" int cudalab_serve_dispatch(cudalab_call* call) {
  return cudalab::serve::dispatch(call, [&](const cudalab::serve::Args& a) {
    switch (call->function) {
      case kConv2dGlobal:
        lab05::candidate::conv2d_global(a.device<const float>(0), a.device<const float>(1),
                                        a.device<float>(2), a.i32(3), a.i32(4), a.i32(5),
                                        a.stream());
        return true;
      case kPrepareTexture: {
        const int w = a.i32(1), h = a.i32(2);
        lab05::candidate::prepare_texture(a.host<const float>(0, image_floats(w, h)), w, h);
        return true;
      }
      case kConv2dTexture:
        lab05::candidate::conv2d_texture(a.device<const float>(0), a.device<float>(1), a.i32(2),
                                         a.i32(3), a.i32(4), a.stream());
        return true;
      case kPrepareRotation: {
        const int w = a.i32(1), h = a.i32(2);
        lab05::candidate::prepare_rotation(a.host<const float>(0, image_floats(w, h)), w, h,
                                           static_cast<cudaTextureAddressMode>(a.i32(3)));
        return true;
      }
      case kRotate:
        lab05::candidate::rotate(a.device<float>(0), a.i32(1), a.i32(2), a.f32(3), a.stream());
        return true;
    }
    return false;
  });
}

#else

namespace lab05::CUDALAB_IMPL {

using namespace cudalab::remote;

void conv2d_global(const float* img, const float* mask, float* out, int w, int h, int radius,
                   cudaStream_t) {
  call(kHere, "conv2d_global", kConv2dGlobal,
       {device(img), device(mask), device(out), integer(w), integer(h), integer(radius)});
}

void prepare_texture(const float* host_img, int w, int h) {
  const std::size_t count = host_img != nullptr ? image_floats(w, h) : 0;
  call(kHere, "prepare_texture", kPrepareTexture,
       {host(host_img, count * sizeof(float)), integer(w), integer(h)});
}

void conv2d_texture(const float* mask, float* out, int w, int h, int radius, cudaStream_t) {
  call(kHere, "conv2d_texture", kConv2dTexture,
       {device(mask), device(out), integer(w), integer(h), integer(radius)});
}

void prepare_rotation(const float* host_img, int w, int h, cudaTextureAddressMode mode) {
  const std::size_t count = host_img != nullptr ? image_floats(w, h) : 0;
  call(kHere, "prepare_rotation", kPrepareRotation,
       {host(host_img, count * sizeof(float)), integer(w), integer(h), integer(mode)});
}

void rotate(float* out, int w, int h, float theta, cudaStream_t) {
  call(kHere, "rotate", kRotate, {device(out), integer(w), integer(h), real(theta)});
}

}  // namespace lab05::CUDALAB_IMPL

#endif
