// Lab 01's functions across processes (grader/framework/remote.h): compiled into the grader as
// the stubs of lab01::candidate and of lab01::reference (the same file with each CUDALAB_IMPL),
// and with CUDALAB_SERVE into each candidate library as the dispatch that calls its functions.
#include "conv1d_basic.h"
#include "remote_lab.h"

namespace {
enum Function : std::uint32_t { kConv1dBasic = 1 };
}  // namespace

#if defined(CUDALAB_SERVE)

extern "C" int cudalab_serve_dispatch(cudalab_call* call) {
  return cudalab::serve::dispatch(call, [&](const cudalab::serve::Args& a) {
    switch (call->function) {
      case kConv1dBasic:
        lab01::candidate::conv1d_basic(a.device<const float>(0), a.device<const float>(1),
                                       a.device<float>(2), a.i32(3), a.i32(4), a.stream());
        return true;
    }
    return false;
  });
}

#else

namespace lab01::CUDALAB_IMPL {

using namespace cudalab::remote;

void conv1d_basic(const float* x, const float* mask, float* y, int width, int mask_width,
                  cudaStream_t) {
  call(kHere, "conv1d_basic", kConv1dBasic,
       {device(x), device(mask), device(y), integer(width), integer(mask_width)});
}

}  // namespace lab01::CUDALAB_IMPL

#endif
