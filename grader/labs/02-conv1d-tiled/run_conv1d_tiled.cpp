// lab02-conv1d-tiled: runs lab 02 on generated data, verifies it against the CPU reference and
// times it; --bench compares the student's kernel and the reference (conv1d-bench compares all
// the 1D labs).
//
//   lab02-conv1d-tiled --width 16777216 --mask-width 9 --impl student
//   lab02-conv1d-tiled --bench --json bench.json
#include "conv1d_runner.h"
#include "impls.h"

int main(int argc, char** argv) {
  conv1d::RunnerSpec spec;
  spec.program = "lab02-conv1d-tiled";
  spec.lab = "02-conv1d-tiled";
  spec.description = "Lab 02: tiled 1D convolution in shared memory";
  spec.max_mask_width = lab02::kMaxMaskWidth;
  spec.mask_limit = "the kernels' shared-memory tiles are sized for masks up to " +
                    std::to_string(lab02::kMaxMaskWidth);
  spec.variants = {lab02::kCandidate, lab02::kReference};
  return conv1d::runner_main(argc, argv, spec);
}
