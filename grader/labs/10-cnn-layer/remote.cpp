// Lab 10's functions across the two processes (grader/framework/remote.h; lab 01's remote.cpp
// says how the file is used). prepare_weights' host weights (M x C x K x K floats) go through the
// process's host-argument area (wire.h) and are copied back, so that a function that wrote to its
// const input is seen.
#include <cstddef>
#include <cstdint>

#include "cnn_layer.h"
#include "remote_lab.h"

namespace {
enum Function : std::uint32_t { kPrepareWeights = 1, kConvForwardDirect = 2, kConvForwardFast = 3 };

// prepare_weights' host weights: M x C x K x K floats.
std::size_t weight_floats(int M, int C, int K) {
  return cudalab::host_elements({M, C, K, K}, sizeof(float));
}
}  // namespace

#if defined(CUDALAB_SERVE)

extern "C" int cudalab_serve_dispatch(cudalab_call* call) {
  return cudalab::serve::dispatch(call, [&](const cudalab::serve::Args& a) {
    switch (call->function) {
      case kPrepareWeights: {
        const int M = a.i32(1), C = a.i32(2), K = a.i32(3);
        lab10::candidate::prepare_weights(a.host<const float>(0, weight_floats(M, C, K)), M, C, K);
        return true;
      }
      case kConvForwardDirect:
        lab10::candidate::conv_forward_direct(a.device<const float>(0), a.device<const float>(1),
                                              a.device<float>(2), a.i32(3), a.i32(4), a.i32(5),
                                              a.i32(6), a.i32(7), a.i32(8), a.stream());
        return true;
      case kConvForwardFast:
        lab10::candidate::conv_forward_fast(a.device<const float>(0), a.device<const float>(1),
                                            a.device<float>(2), a.i32(3), a.i32(4), a.i32(5),
                                            a.i32(6), a.i32(7), a.i32(8), a.stream());
        return true;
    }
    return false;
  });
}

#else

namespace lab10::CUDALAB_IMPL {

using namespace cudalab::remote;

void prepare_weights(const float* host_k, int M, int C, int K) {
  const std::size_t count = host_k != nullptr ? weight_floats(M, C, K) : 0;
  call(kHere, "prepare_weights", kPrepareWeights,
       {host(host_k, count * sizeof(float)), integer(M), integer(C), integer(K)});
}

void conv_forward_direct(const float* x, const float* k, float* y, int B, int C, int M, int H,
                         int W, int K, cudaStream_t) {
  call(kHere, "conv_forward_direct", kConvForwardDirect,
       {device(x), device(k), device(y), integer(B), integer(C), integer(M), integer(H), integer(W),
        integer(K)});
}

void conv_forward_fast(const float* x, const float* k, float* y, int B, int C, int M, int H, int W,
                       int K, cudaStream_t) {
  call(kHere, "conv_forward_fast", kConvForwardFast,
       {device(x), device(k), device(y), integer(B), integer(C), integer(M), integer(H), integer(W),
        integer(K)});
}

}  // namespace lab10::CUDALAB_IMPL

#endif
