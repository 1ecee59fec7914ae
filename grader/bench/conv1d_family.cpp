// conv1d-bench: the 1D convolution labs side by side, one table, one run. Every variant computes
// the same convolution; each row is verified before it is timed.
//
//   basic      the course's kernel (lab 01's design): one thread per output, global loads
//   basic-ldg  the same with const __restrict__ and __ldg (read-only cache path)
//   window     lab 01's reference: register window, float4 loads, 4-8 outputs per thread
//   tiled      lab 02's reference: input tile + halo in shared memory, 8 outputs per thread
//   constant   lab 03's reference: lab 01's window with the mask in constant memory
//
//   conv1d-bench --json bench.json
#include "baselines.h"
#include "conv1d_ldg.h"
#include "conv1d_runner.h"

#define CUDALAB_IMPL reference
#include "conv1d_basic.h"
#include "conv1d_constant.h"
#include "conv1d_tiled.h"
#undef CUDALAB_IMPL

int main(int argc, char** argv) {
  using conv1d::Conv1dArgs;
  conv1d::RunnerSpec spec;
  spec.program = "conv1d-bench";
  spec.lab = "conv1d labs 01-03";
  spec.description = "The 1D convolution labs' kernels side by side";
  spec.bench_only = true;
  spec.variants = {
      conv1d::global_mask_variant("basic", &lab01::baseline::conv1d_course),
      conv1d::global_mask_variant("window", &lab01::reference::conv1d_basic),
      conv1d::global_mask_variant("basic-ldg", &conv1d_bench::conv1d_ldg),
      conv1d::global_mask_variant("tiled", &lab02::reference::conv1d_tiled),
      {"constant",
       [](const std::vector<float>& mask) {
         lab03::reference::upload_mask(mask.data(), static_cast<int>(mask.size()));
       },
       [](const Conv1dArgs& a, cudaStream_t s) {
         lab03::reference::conv1d_constant(a.x, a.y, a.width, a.mask_width, s);
       }},
  };
  return conv1d::runner_main(argc, argv, spec);
}
