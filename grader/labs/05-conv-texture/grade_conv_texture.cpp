// Lab 05 graded checks: texture memory.
//
// Part 1, the 2D convolution with clamped edges, global and texture variants: the course's test
// signal (delta 4) with its Gaussian masks on square, odd, 1 x N and N x 1 images, seeded random
// images with random (asymmetric) masks, and the largest size; compared with the double CPU
// reference within conv2d_tolerance. Part 2, the rotation with linear filtering and normalised
// coordinates, one check per address mode; compared per pixel within rotation_bounds, which
// allows for the hardware's 8-bit interpolation weights (texture_cpu.cpp derives it). Under a
// sanitizer, the signal's and the rotation's 1024 x 768 cases shrink to 200 x 150.
// The technique checks read the candidate's PTX (no GPU needed): conv2d_texture_kernel and
// rotate_kernel must fetch with tex instructions, conv2d_global_kernel must not.
#include "cudalab/random.h"
#include "grading.h"
#include "impls.h"
#include "launch_trace.h"
#include "technique.h"
#include "texture_cpu.h"

using cudalab::grade::base_seed;

namespace {

using namespace cudalab::grade;

// The largest image of the signal and rotation cases: smaller under a sanitizer.
lab05::CaseSize largest_signal() {
  return under_sanitizer() ? lab05::kSanitizerLargest : lab05::CaseSize{};
}

// The texture kernels must fetch through the texture unit: the convolution computes from tex
// fetches, the rotation writes what it fetched.
std::string tex_problem(const KernelAnalysis& k, const std::string& label, bool rotation) {
  if (k.problem.empty() && k.count("tex") == 0 && k.count("tld4") == 0)
    return label + " (" + k.name +
           ") has no tex instruction in its PTX: it must read the image with tex2D<float> "
           "through its texture object";
  return rotation ? stored_values_problem(k, label, kTextureSpace,
                                          "each output pixel must be a tex2D<float> fetch")
                  : accumulation_problem(k, label, kTextureSpace, "the image");
}

// What a convolution through the texture executes over `outputs` outputs of `taps` taps: global
// loads (the mask's) at most 1.5 per tap, where reading the image from global memory as well
// doubles them, and a texture fetch per output at least.
ExecutionSignature texture_conv_signature(double outputs, double taps) {
  return [=](const ExecutedWork& w, std::string* summary) {
    *summary = executed_summary(w.all, outputs, "output");
    const std::string p = global_traffic_problem(w, outputs, 1.5 * taps, 1.0 + taps / 32);
    if (!p.empty()) return p + ": the image must be read through the texture, not global memory";
    return per_unit_problem(lanes_per_unit(ExecutedWork::of(w.named, "texture"), outputs), 1, 1e9,
                            "texture fetches", "output");
  };
}

// A kernel that copies what it read (the rotation) does the rotation's work.
bool copies_memory(const KernelAnalysis& k) {
  for (const auto& s : k.stored)
    if (s.sources & kAnyMemory) return true;
  return k.multiplies_memory();
}

}  // namespace

GRADED_CHECK("texture kernels fetch through the texture unit", "[lab05][technique]", 8,
             Needs::host) {
  const std::string ptx = candidate_ptx();
  TechniqueRule conv =
      ptx_rule("conv2d_texture_kernel", [](const KernelAnalysis& k, const std::string& label) {
        return tex_problem(k, label, false);
      });
  TechniqueRule rotate =
      ptx_rule("rotate_kernel", [](const KernelAnalysis& k, const std::string& label) {
        return tex_problem(k, label, true);
      });
  rotate.does_work = copies_memory;
  // On a GPU, what ran. The convolution (256 x 192, radius 2: 25 taps): the image through the
  // texture unit, a fetch per output at least (fewer than the taps when a thread reuses them), and
  // from global memory at most the mask (uniform loads: a sector per warp each) where reading the
  // image there costs about 4.5 sectors per warp and tap. The rotation: a fetch per output.
  // Global loads, the bound the judge's own count reads (it has no sectors): the mask's, one per
  // tap at most (the reference keeps it in registers: 0.02 per output), where reading the image
  // from global memory as well doubles them; the rotation's bilinear filter done from global
  // memory makes 4 per output, the texture's none.
  const lab05::ConvCase conv_case = lab05::signal_case(256, 192, 2);
  const double outputs = static_cast<double>(conv_case.w) * conv_case.h;
  const double taps = (2.0 * conv_case.radius + 1) * (2.0 * conv_case.radius + 1);
  conv.executed = texture_conv_signature(outputs, taps);
  const lab05::RotationCase rotation_case =
      lab05::rotation_case(256, 192, 30.0, cudaAddressModeClamp);
  const double pixels = static_cast<double>(rotation_case.w) * rotation_case.h;
  rotate.executed = [=](const ExecutedWork& w, std::string* summary) {
    *summary = executed_summary(w.all, pixels, "output");
    const std::string p = global_traffic_problem(w, pixels, 2.0, 0.5);
    if (!p.empty()) return p + ": the image must be read through the texture, not global memory";
    return per_unit_problem(lanes_per_unit(ExecutedWork::of(w.named, "texture"), pixels), 0.9, 1e9,
                            "texture fetches", "output");
  };
  const LaunchTrace conv_trace = trace_launches(
      [&] { lab05::run_conv_case(conv_case, lab05::kCandidateTexture); }, Counting::on);
  const LaunchTrace rotate_trace = trace_launches(
      [&] { lab05::run_rotation_case(rotation_case, lab05::kCandidateRotation); }, Counting::on);
  require_technique(
      {judge_technique(ptx, conv, conv_trace), judge_technique(ptx, rotate, rotate_trace)});
}

GRADED_CHECK("global kernel reads global memory, not a texture", "[lab05][technique]", 2,
             Needs::host) {
  const TechniqueRule rule = ptx_rule(
      "conv2d_global_kernel", [](const KernelAnalysis& k, const std::string& label) -> std::string {
        if (!k.problem.empty()) return label + " (" + k.name + "): " + k.problem;
        const int tex = k.count("tex") + k.count("tld4");
        if (tex > 0)
          return label + " (" + k.name + ") has " + std::to_string(tex) +
                 " tex instruction(s) in its PTX: the global variant must read img from global "
                 "memory";
        if (k.count("ld.global") == 0)
          return label + " (" + k.name +
                 ") has no ld.global in its PTX: it must read img (and the mask) from global "
                 "memory";
        return "";
      });
  const LaunchTrace trace = trace_launches(
      [] { lab05::run_conv_case(lab05::signal_case(64, 48, 2), lab05::kCandidateGlobal); });
  require_candidate_technique(rule, trace);
}

// ---------------------------------------------------------------------------------------------
// Part 1: convolution

GRADED_CHECK("global convolution of the course signal", "[lab05][correctness]", 10, Needs::gpu) {
  lab05::require_all_conv(lab05::signal_cases(largest_signal()), lab05::kCandidateGlobal);
}

GRADED_CHECK("global convolution of random images and masks", "[lab05][correctness]", 6,
             Needs::gpu) {
  lab05::require_all_conv(lab05::random_cases(base_seed(), 8), lab05::kCandidateGlobal);
}

GRADED_CHECK("texture convolution of the course signal", "[lab05][correctness]", 10, Needs::gpu) {
  lab05::require_all_conv(lab05::signal_cases(largest_signal()), lab05::kCandidateTexture);
}

GRADED_CHECK("texture convolution of random images and masks", "[lab05][correctness]", 6,
             Needs::gpu) {
  lab05::require_all_conv(lab05::random_cases(base_seed(), 8), lab05::kCandidateTexture);
}

GRADED_CHECK("convolution of the largest size", "[lab05][correctness][large]", 4, Needs::gpu) {
  const lab05::ConvCase c = lab05::largest_case(base_seed());
  const std::vector<double> expected = lab05::conv2d_cpu(c.img, c.w, c.h, c.mask, c.radius);
  std::string message;
  for (const auto* v : {&lab05::kCandidateGlobal, &lab05::kCandidateTexture})
    if (std::string p = lab05::run_conv_case(c, *v, expected); !p.empty())
      message += (message.empty() ? "" : "\n") + p;
  if (!message.empty()) FAIL(message);
}

// ---------------------------------------------------------------------------------------------
// Part 2: rotation, one check per address mode

GRADED_CHECK("rotation with wrap addressing", "[lab05][correctness]", 6, Needs::gpu) {
  lab05::require_all_rotation(lab05::rotation_cases(cudaAddressModeWrap, largest_signal()),
                              lab05::kCandidateRotation);
}

GRADED_CHECK("rotation with clamp addressing", "[lab05][correctness]", 6, Needs::gpu) {
  lab05::require_all_rotation(lab05::rotation_cases(cudaAddressModeClamp, largest_signal()),
                              lab05::kCandidateRotation);
}

GRADED_CHECK("rotation with border addressing", "[lab05][correctness]", 6, Needs::gpu) {
  lab05::require_all_rotation(lab05::rotation_cases(cudaAddressModeBorder, largest_signal()),
                              lab05::kCandidateRotation);
}

GRADED_CHECK("rotation with mirror addressing", "[lab05][correctness]", 6, Needs::gpu) {
  lab05::require_all_rotation(lab05::rotation_cases(cudaAddressModeMirror, largest_signal()),
                              lab05::kCandidateRotation);
}

// ---------------------------------------------------------------------------------------------
// Performance: 4096 x 4096, radius 4; each texture loaded before timing (not timed)

GRADED_CHECK("texture convolution performance vs reference", "[lab05][perf][profile]", 10,
             Needs::gpu) {
  // The kernel timed must fetch through the texture too (perf.h, TimedRunChecks::executed): the
  // technique check's signature at 4096 x 4096 outputs and a mask of radius 4 (81 taps).
  using lab05::ConvPerfCase;
  constexpr double side = ConvPerfCase::kSide, width = 2 * ConvPerfCase::kRadius + 1;
  lab05::grade_conv_performance("05", lab05::kCandidateTexture, lab05::kReferenceTexture,
                                texture_conv_signature(side * side, width * width));
}

GRADED_CHECK("global convolution performance vs reference", "[lab05][perf]", 10, Needs::gpu) {
  lab05::grade_conv_performance("05", lab05::kCandidateGlobal, lab05::kReferenceGlobal);
}

GRADED_CHECK("timing harness self-check", "[lab05][selfcheck]", 0, Needs::gpu) {
  lab05::ConvPerfCase perf;
  cudalab::grade::check_timing_harness(perf.launch(lab05::kReferenceTexture), perf.workload());
}
