// lab01-conv1d-basic: runs lab 01 on generated data, verifies it against the CPU reference and
// times it; --bench compares the student's kernel, the reference and the course's kernel.
//
//   lab01-conv1d-basic --width 16777216 --mask-width 9 --impl student
//   lab01-conv1d-basic --bench --json bench.json
#include "conv1d_runner.h"
#include "impls.h"

int main(int argc, char** argv) {
  conv1d::RunnerSpec spec;
  spec.program = "lab01-conv1d-basic";
  spec.lab = "01-conv1d-basic";
  spec.description = "Lab 01: 1D convolution, one thread per output";
  spec.variants = {conv1d::global_mask_variant("student", &lab01::candidate::conv1d_basic),
                   conv1d::global_mask_variant("reference", &lab01::reference::conv1d_basic),
                   conv1d::global_mask_variant("course", &lab01::baseline::conv1d_course)};
  return conv1d::runner_main(argc, argv, spec);
}
