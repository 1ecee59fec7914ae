// Lab 05 graded checks: texture memory.
//
// Part 1, the 2D convolution with clamped edges, global and texture variants: the course's test
// signal (delta 4) with its Gaussian masks on square, odd, 1 x N and N x 1 images, seeded random
// images with random (asymmetric) masks, and the largest size; compared with the double CPU
// reference within conv2d_tolerance. Part 2, the rotation with linear filtering and normalised
// coordinates, one check per address mode; compared per pixel within rotation_bounds, which
// allows for the hardware's 8-bit interpolation weights (texture_cpu.cpp derives it).
// The technique checks read the candidate's PTX (no GPU needed): conv2d_texture_kernel and
// rotate_kernel must fetch with tex instructions, conv2d_global_kernel must not.
#include "cudalab/random.h"
#include "grading.h"
#include "impls.h"
#include "technique.h"
#include "texture_cpu.h"

using cudalab::grade::base_seed;

namespace {

// "" or why the kernel is missing; the tex instruction count of each kernel named `name`.
std::vector<std::pair<std::string, int>> tex_counts(const std::string& name, std::string* problem) {
  std::vector<std::pair<std::string, int>> counts;
  for (const auto& k :
       cudalab::grade::kernels_named(cudalab::grade::candidate_ptx(), name, problem))
    counts.emplace_back(k.name, cudalab::grade::count_instructions(k.body, "tex"));
  return counts;
}

}  // namespace

GRADED_CHECK("texture kernels fetch through the texture unit", "[lab05][technique]", 8,
             Needs::host) {
  std::string message;
  for (const std::string name : {"conv2d_texture_kernel", "rotate_kernel"}) {
    std::string problem;
    const auto counts = tex_counts(name, &problem);
    if (!problem.empty()) {
      message += (message.empty() ? "" : "\n") + problem;
      continue;
    }
    for (const auto& [mangled, tex] : counts)
      if (tex == 0)
        message += (message.empty() ? "" : "\n") + name + " (" + mangled +
                   ") has no tex instruction in its PTX: it must read the image with "
                   "tex2D<float> through its texture object";
  }
  if (!message.empty()) FAIL(message);
}

GRADED_CHECK("global kernel reads global memory, not a texture", "[lab05][technique]", 2,
             Needs::host) {
  std::string problem;
  const auto kernels = cudalab::grade::kernels_named(cudalab::grade::candidate_ptx(),
                                                     "conv2d_global_kernel", &problem);
  if (!problem.empty()) FAIL(problem);
  for (const auto& k : kernels) {
    const int tex = cudalab::grade::count_instructions(k.body, "tex");
    const int global = cudalab::grade::count_instructions(k.body, "ld.global");
    CAPTURE(k.name, tex, global);
    if (tex > 0)
      FAIL("conv2d_global_kernel (" + k.name + ") has " + std::to_string(tex) +
           " tex instruction(s) in its PTX: the global variant must read img from global memory");
    if (global == 0)
      FAIL("conv2d_global_kernel (" + k.name +
           ") has no ld.global in its PTX: it must read img (and the mask) from global memory");
  }
}

// ---------------------------------------------------------------------------------------------
// Part 1: convolution

GRADED_CHECK("global convolution of the course signal", "[lab05][correctness]", 10, Needs::gpu) {
  lab05::require_all_conv(lab05::signal_cases(), lab05::kCandidateGlobal);
}

GRADED_CHECK("global convolution of random images and masks", "[lab05][correctness]", 6,
             Needs::gpu) {
  lab05::require_all_conv(lab05::random_cases(base_seed(), 8), lab05::kCandidateGlobal);
}

GRADED_CHECK("texture convolution of the course signal", "[lab05][correctness]", 10, Needs::gpu) {
  lab05::require_all_conv(lab05::signal_cases(), lab05::kCandidateTexture);
}

GRADED_CHECK("texture convolution of random images and masks", "[lab05][correctness]", 6,
             Needs::gpu) {
  lab05::require_all_conv(lab05::random_cases(base_seed(), 8), lab05::kCandidateTexture);
}

GRADED_CHECK("convolution of the largest size", "[lab05][correctness][large]", 4, Needs::gpu) {
  const lab05::ConvCase c = lab05::largest_case(base_seed());
  std::string message;
  for (const auto* v : {&lab05::kCandidateGlobal, &lab05::kCandidateTexture})
    if (std::string p = lab05::run_conv_case(c, *v); !p.empty())
      message += (message.empty() ? "" : "\n") + p;
  if (!message.empty()) FAIL(message);
}

// ---------------------------------------------------------------------------------------------
// Part 2: rotation, one check per address mode

GRADED_CHECK("rotation with wrap addressing", "[lab05][correctness]", 6, Needs::gpu) {
  lab05::require_all_rotation(lab05::rotation_cases(cudaAddressModeWrap),
                              lab05::kCandidateRotation);
}

GRADED_CHECK("rotation with clamp addressing", "[lab05][correctness]", 6, Needs::gpu) {
  lab05::require_all_rotation(lab05::rotation_cases(cudaAddressModeClamp),
                              lab05::kCandidateRotation);
}

GRADED_CHECK("rotation with border addressing", "[lab05][correctness]", 6, Needs::gpu) {
  lab05::require_all_rotation(lab05::rotation_cases(cudaAddressModeBorder),
                              lab05::kCandidateRotation);
}

GRADED_CHECK("rotation with mirror addressing", "[lab05][correctness]", 6, Needs::gpu) {
  lab05::require_all_rotation(lab05::rotation_cases(cudaAddressModeMirror),
                              lab05::kCandidateRotation);
}

// ---------------------------------------------------------------------------------------------
// Performance: 4096 x 4096, radius 4; each texture loaded before timing (not timed)

GRADED_CHECK("texture convolution performance vs reference", "[lab05][perf]", 10, Needs::gpu) {
  lab05::grade_conv_performance("05", lab05::kCandidateTexture, lab05::kReferenceTexture);
}

GRADED_CHECK("global convolution performance vs reference", "[lab05][perf]", 10, Needs::gpu) {
  lab05::grade_conv_performance("05", lab05::kCandidateGlobal, lab05::kReferenceGlobal);
}

GRADED_CHECK("timing harness self-check", "[lab05][selfcheck]", 0, Needs::gpu) {
  lab05::ConvPerfCase perf;
  cudalab::grade::check_timing_harness(perf.launch(lab05::kReferenceTexture), perf.workload());
}
