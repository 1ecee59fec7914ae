// lab03-conv1d-constant: runs lab 03 on generated data, verifies it against the CPU reference
// and times it (the mask upload is not timed); --bench compares the student's kernel and the
// reference.
//
//   lab03-conv1d-constant --width 16777216 --mask-width 9 --impl student
//   lab03-conv1d-constant --bench --json bench.json
#include "conv1d_runner.h"
#include "impls.h"

int main(int argc, char** argv) {
  conv1d::RunnerSpec spec;
  spec.program = "lab03-conv1d-constant";
  spec.lab = "03-conv1d-constant";
  spec.description = "Lab 03: 1D convolution with the mask in constant memory";
  spec.max_mask_width = lab03::kMaxMaskWidth;
  spec.mask_limit =
      "the constant-memory buffer holds " + std::to_string(lab03::kMaxMaskWidth) + " floats";
  spec.variants = {lab03::kCandidate, lab03::kReference};
  return conv1d::runner_main(argc, argv, spec);
}
