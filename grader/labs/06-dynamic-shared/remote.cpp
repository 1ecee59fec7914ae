// Lab 06's functions across the two processes (grader/framework/remote.h; lab 01's remote.cpp
// says how the file is used). Return values (the shared bytes, the chosen tile, the kernels'
// cudaFuncAttributes) come back as the call's result; the attributes are those of the kernels in
// the candidate's process, where they run.
#include <cstddef>
#include <cstdint>

#include "dynamic_shared.h"
#include "remote_lab.h"

namespace {
enum Function : std::uint32_t {
  kReverse = 1,
  kConvSharedBytes = 2,
  kChooseTileWidth = 3,
  kConv1dDynamic = 4,
  kReverseKernelAttributes = 5,
  kConvKernelAttributes = 6
};
}  // namespace

#if defined(CUDALAB_SERVE)

extern "C" int cudalab_serve_dispatch(cudalab_call* call) {
  return cudalab::serve::dispatch(call, [&](const cudalab::serve::Args& a) {
    switch (call->function) {
      case kReverse:
        lab06::candidate::reverse(a.device<const int>(0), a.device<int>(1), a.i32(2), a.i32(3),
                                  a.stream());
        return true;
      case kConvSharedBytes:
        cudalab::serve::set_result(call, lab06::candidate::conv_shared_bytes(a.i32(0), a.i32(1)));
        return true;
      case kChooseTileWidth:
        cudalab::serve::set_result(call, lab06::candidate::choose_tile_width(a.i32(0)));
        return true;
      case kConv1dDynamic:
        lab06::candidate::conv1d_dynamic(a.device<const float>(0), a.device<const float>(1),
                                         a.device<float>(2), a.i32(3), a.i32(4), a.i32(5),
                                         a.stream());
        return true;
      case kReverseKernelAttributes:
        cudalab::serve::set_result(call, lab06::candidate::reverse_kernel_attributes());
        return true;
      case kConvKernelAttributes:
        cudalab::serve::set_result(call, lab06::candidate::conv_kernel_attributes());
        return true;
    }
    return false;
  });
}

#else

namespace lab06::CUDALAB_IMPL {

using namespace cudalab::remote;

void reverse(const int* in, int* out, int n, int block_size, cudaStream_t) {
  call(kHere, "reverse", kReverse, {device(in), device(out), integer(n), integer(block_size)});
}

std::size_t conv_shared_bytes(int tile_width, int mask_width) {
  return call_returning<std::size_t>(kHere, "conv_shared_bytes", kConvSharedBytes,
                                     {integer(tile_width), integer(mask_width)});
}

int choose_tile_width(int mask_width) {
  return call_returning<int>(kHere, "choose_tile_width", kChooseTileWidth, {integer(mask_width)});
}

void conv1d_dynamic(const float* x, const float* mask, float* y, int width, int mask_width,
                    int tile_width, cudaStream_t) {
  call(kHere, "conv1d_dynamic", kConv1dDynamic,
       {device(x), device(mask), device(y), integer(width), integer(mask_width),
        integer(tile_width)});
}

cudaFuncAttributes reverse_kernel_attributes() {
  return call_returning<cudaFuncAttributes>(kHere, "reverse_kernel_attributes",
                                            kReverseKernelAttributes, {});
}

cudaFuncAttributes conv_kernel_attributes() {
  return call_returning<cudaFuncAttributes>(kHere, "conv_kernel_attributes", kConvKernelAttributes,
                                            {});
}

}  // namespace lab06::CUDALAB_IMPL

#endif
