// Lab 06 graded checks: dynamic shared memory.
//
// Part 1, reverse: integer arrays compared exactly on guarded buffers (output pre-filled with -1),
// sizes around one and two blocks for several block sizes, primes, and the largest size.
// Part 2, the tiled convolution with a run-time tile: lab 01's cases (grader/support/conv1d) at
// several tile widths given by the grader, widths rarely a multiple of any of them, the tile the
// candidate chooses itself (tile 0), tiles above the default 48 KB that need the opt-in, and bad
// requests that must be refused with std::invalid_argument.
// The technique checks read the candidate's PTX: reverse_kernel and conv1d_dynamic_kernel (with
// the functions they call) must keep their data in an extern __shared__ array, declare no static
// one, and compute from it; on a GPU, the kernels judged are those the candidate's functions
// launched, and CUPTI's records of those launches must show no static shared memory.
#include <stdexcept>

#include "conv1d_check.h"
#include "conv_tiles.h"
#include "cudalab/random.h"
#include "dynamic_shared_ptx.h"
#include "grading.h"
#include "impls.h"
#include "launch_trace.h"
#include "remote.h"
#include "technique.h"

using cudalab::derive_seed;
using cudalab::grade::base_seed;

namespace {

// The reverse the technique checks trace: on a GPU, its counters per element.
constexpr int kTechniqueReverseSize = 1 << 16;
constexpr int kWidestMask = 255;  // the edge cases' widest mask; no compile-time limit here

// Under compute-sanitizer (racecheck) the convolution checks take smaller inputs: racecheck's
// time grows with the shared-memory accesses of a block, its outputs times the mask. Every tile
// width stays, with several blocks and partial last tiles, and above 48 KB the opt-in.
// The edge cases' widest mask (255) over 331 inputs, not 10 007: two tiles of 257, four of 100,
// six of 64 (the last partial each), part of one of 1024, 4096 or the candidate's (the case of
// width 4099 still spans two tiles of 4096).
constexpr int kSanitizedWidestMaskInput = 331;
// The random cases' widths up to 30 000, not 300 000: still several tiles of a random width.
constexpr int kSanitizedRandomMaxWidth = 30000;
// The float cases over 2^16 + 7 floats, not 2^20 + 7: the error bound is per output.
constexpr int kSanitizedFloatWidth = (1 << 16) + 7;

using namespace cudalab::grade;

// The two parts' calls, traced: a reverse, and a convolution at a tile the grader gives.
LaunchTrace trace_reverse() {
  return trace_launches(
      [] {
        lab06::run_reverse_case(lab06::reverse_case(kTechniqueReverseSize, 128, base_seed()),
                                lab06::kCandidateReverse);
      },
      Counting::on);
}

LaunchTrace trace_conv() {
  return trace_launches(
      [] { conv1d::run_case(conv1d::worked_example(), lab06::candidate_conv(64)); });
}

// A kernel that stores what it read does the reverse's work.
bool copies_memory(const KernelAnalysis& k) {
  for (const auto& s : k.stored)
    if (s.sources & kAnyMemory) return true;
  return k.multiplies_memory();
}

// What a reverse through the shared array executes over `n` elements: each element's 4 bytes
// stored to shared memory and loaded back (where the GPU counts shared-memory bytes; a store
// instruction for every fifth element at least where it does not).
ExecutionSignature reverse_signature(double n) {
  return [n](const ExecutedWork& w, std::string* summary) {
    *summary = executed_summary(w.all, n, "element");
    std::string p;
    if (w.named.count("shared_st_bytes") > 0) {
      p = per_unit_problem(ExecutedWork::of(w.named, "shared_st_bytes") / n, 3.9, 1e9,
                           "bytes stored to shared memory", "element");
      if (p.empty())
        p = per_unit_problem(ExecutedWork::of(w.named, "shared_ld_bytes") / n, 3.9, 1e9,
                             "bytes loaded from shared memory", "element");
    } else {
      p = per_unit_problem(lanes_per_unit(ExecutedWork::of(w.named, "shared_st"), n), 0.2, 1e9,
                           "shared-memory stores", "element");
    }
    return p.empty() ? p : p + ": every element must pass through the shared array";
  };
}

TechniqueRule reverse_rule() {
  TechniqueRule rule =
      ptx_rule("reverse_kernel", [](const KernelAnalysis& k, const std::string& label) {
        if (std::string p = lab06::dynamic_shared_kernel_problem(k, label); !p.empty()) return p;
        if (std::string p = stored_values_problem(
                k, label, kSharedSpace, "each chunk must be written back from the shared array");
            !p.empty())
          return p;
        // A reverse copies: what it writes is what the shared array holds, not a value read
        // from global memory that a shared one merely scales.
        int mixed = 0;
        for (const auto& s : k.stored)
          mixed += (s.sources & kSharedSpace) != 0 && (s.sources & kGlobalSpace) != 0;
        if (mixed > 0)
          return label + " (" + k.name + ") writes " + std::to_string(mixed) +
                 " value(s) made from global memory as well as from the shared array: the "
                 "reverse must write back what the shared array holds";
        return std::string();
      });
  rule.does_work = copies_memory;
  // On a GPU, what ran on 2^16 elements: each element goes through the shared array, its 4 bytes
  // stored there and loaded back (the reference stores 16 bytes a thread: a quarter of a store
  // instruction per element, 4 bytes).
  rule.executed = reverse_signature(kTechniqueReverseSize);
  return rule;
}

TechniqueRule conv_rule() {
  return ptx_rule("conv1d_dynamic_kernel", [](const KernelAnalysis& k, const std::string& label) {
    if (std::string p = lab06::dynamic_shared_kernel_problem(k, label); !p.empty()) return p;
    return accumulation_problem(k, label, kSharedSpace, "the input tile");
  });
}

// The rule, and on the device the shared memory of each launch as CUPTI recorded it.
TechniqueRule on_device(TechniqueRule rule) {
  rule.verdict = [verdict = rule.verdict](const KernelAnalysis& k, const std::string& label,
                                          const LaunchedKernel* launch) {
    if (std::string p = verdict(k, label, launch); !p.empty()) return p;
    return launch != nullptr ? lab06::launched_shared_problem(*launch, label) : std::string();
  };
  return rule;
}

}  // namespace

GRADED_CHECK("reverse_kernel uses dynamic shared memory", "[lab06][technique]", 5, Needs::host) {
  require_candidate_technique(reverse_rule(), trace_reverse());
}

GRADED_CHECK("conv1d_dynamic_kernel uses dynamic shared memory", "[lab06][technique]", 5,
             Needs::host) {
  require_candidate_technique(conv_rule(), trace_conv());
}

GRADED_CHECK("the built kernels have no static shared memory", "[lab06][technique]", 5,
             Needs::gpu) {
  // What the PTX shows, confirmed on the device: CUPTI records the static and dynamic shared
  // memory of every launch, whatever the candidate's own functions would report.
  const std::string ptx = candidate_ptx();
  require_technique({judge_technique(ptx, on_device(reverse_rule()), trace_reverse()),
                     judge_technique(ptx, on_device(conv_rule()), trace_conv())});
}

// ---------------------------------------------------------------------------------------------
// Part 1: reverse

GRADED_CHECK("reverse of sizes around the block size", "[lab06][correctness]", 10, Needs::gpu) {
  lab06::require_all_reverse(lab06::reverse_size_cases(base_seed()), lab06::kCandidateReverse);
}

GRADED_CHECK("reverse of the largest size", "[lab06][correctness][large]", 5, Needs::gpu) {
  lab06::require_all_reverse({lab06::reverse_largest_case(base_seed())}, lab06::kCandidateReverse);
}

// ---------------------------------------------------------------------------------------------
// Part 2: convolution with run-time tiles

GRADED_CHECK("convolution worked example at several tile widths", "[lab06][correctness]", 5,
             Needs::gpu) {
  lab06::require_all_pass_at_tiles({conv1d::worked_example()}, {1, 2, 3, 7, 64, 0},
                                   lab06::candidate_conv);
}

GRADED_CHECK("convolution edge cases at several tile widths", "[lab06][correctness]", 10,
             Needs::gpu) {
  lab06::require_all_pass_at_tiles(
      under_sanitizer() ? conv1d::edge_cases(base_seed(), kWidestMask, kSanitizedWidestMaskInput)
                        : conv1d::edge_cases(base_seed(), kWidestMask),
      {64, 100, 257, 1024, 4096, 0}, lab06::candidate_conv);
}

GRADED_CHECK("convolution random sizes and tile widths", "[lab06][correctness]", 5, Needs::gpu) {
  // Each random case twice: at a seeded tile width in [1, 6000] and at the candidate's choice.
  std::vector<lab06::TiledCase> cases;
  int k = 0;
  for (const auto& c : under_sanitizer()
                           ? conv1d::random_cases(base_seed(), 12, kSanitizedRandomMaxWidth)
                           : conv1d::random_cases(base_seed(), 12)) {
    const auto tile =
        static_cast<int>(cudalab::random_int(derive_seed(base_seed(), 650 + k++), 1, 6000));
    cases.push_back({c, tile});
    cases.push_back({c, 0});
  }
  lab06::require_all_pass_tiled(cases, lab06::candidate_conv);
}

GRADED_CHECK("convolution float inputs within the error bound", "[lab06][correctness]", 5,
             Needs::gpu) {
  lab06::require_all_pass_at_tiles(under_sanitizer()
                                       ? conv1d::float_cases(base_seed(), kSanitizedFloatWidth)
                                       : conv1d::float_cases(base_seed()),
                                   {257, 0}, lab06::candidate_conv);
}

GRADED_CHECK("tiles above the default 48 KB limit with the opt-in", "[lab06][correctness]", 5,
             Needs::gpu) {
  const lab06::SharedLimits limits = lab06::device_shared_limits();
  if (limits.optin_bytes <= limits.default_bytes) {
    WARN("this device allows no more than the default " << limits.default_bytes
                                                        << " bytes per block: nothing to check");
    return;
  }
  const lab06::SharedBytes bytes = lab06::candidate::conv_shared_bytes;
  // No tile of more than optin/4 floats fits, whatever the halo: search below that.
  const int hi = static_cast<int>(limits.optin_bytes / sizeof(float)) + 1;
  std::vector<lab06::TiledCase> cases;
  const std::uint64_t s = derive_seed(base_seed(), 660);
  // Mask 255 too: no compile-time limit on the mask (racecheck takes a while over wide masks).
  for (const auto& [mask, w] : {std::pair{9, 200003}, std::pair{255, 100003}}) {
    const int mask_width = mask;  // (a lambda cannot capture a structured binding)
    const int within_default =
        lab06::largest_tile_within(bytes, mask_width, limits.default_bytes, hi);
    const int within_optin = lab06::largest_tile_within(bytes, mask_width, limits.optin_bytes, hi);
    if (within_default >= hi)
      FAIL("conv_shared_bytes(tile, " << mask_width << ") is within the default "
                                      << limits.default_bytes << " bytes for every tile up to "
                                      << hi << " (conv_shared_bytes(" << hi << ", " << mask_width
                                      << ") = " << bytes(hi, mask_width)
                                      << "): it must return the bytes of a block's input tile");
    if (within_optin <= within_default)
      FAIL("no tile has conv_shared_bytes(tile, "
           << mask_width << ") between the default " << limits.default_bytes
           << " bytes and the opt-in limit " << limits.optin_bytes);
    const auto name = [&](int tile) {
      return std::to_string(bytes(tile, mask_width)) + " bytes, above the default limit of " +
             std::to_string(limits.default_bytes);
    };
    // The narrowest tile above the default limit and the widest within the opt-in limit.
    const int small = within_default + 1;
    // Under a sanitizer (see kSanitizedWidestMaskInput): mask 9 over three of the narrower tiles
    // (the last partial) and part of one of the widest, mask 255 over part of one of each; both
    // still launched above the default limit, with the opt-in.
    const int width = !under_sanitizer() ? w : mask_width == 9 ? 2 * small + 3 : 331;
    cases.push_back(
        {conv1d::integer_case(name(small), width, mask_width, derive_seed(s, mask_width)), small});
    cases.push_back({conv1d::integer_case(name(within_optin) + ", the most this device allows",
                                          width, mask_width, derive_seed(s, mask_width + 1)),
                     within_optin});
  }
  lab06::require_all_pass_tiled(cases, lab06::candidate_conv);
}

GRADED_CHECK("requests beyond the limits are refused", "[lab06][correctness]", 5, Needs::gpu) {
  const lab06::SharedLimits limits = lab06::device_shared_limits();
  const int floats_allowed = static_cast<int>(limits.optin_bytes / sizeof(float));
  struct Request {
    std::string what;
    int mask_width, tile_width;
  };
  const std::vector<Request> requests{
      {"a tile wider than the device's opt-in limit allows", 9, floats_allowed + 1},
      {"a mask too wide for any tile", 2 * floats_allowed + 1, 256},
      {"an even mask width", 4, 256},
      {"mask width 0", 0, 256},
      {"a negative tile width", 9, -1},
  };
  // Valid buffers, the mask as wide as the widest request, so that an accepted request cannot
  // read or write out of bounds.
  const int width = 1000;
  cudalab::DeviceBuffer<float> x(width), y(width), mask(2 * floats_allowed + 1);
  CUDA_CHECK(cudaMemset(x.data(), 0, x.bytes()));
  CUDA_CHECK(cudaMemset(mask.data(), 0, mask.bytes()));
  CUDA_CHECK(cudaDeviceSynchronize());  // non-blocking streams do not wait for the memsets
  cudalab::Stream stream;
  std::vector<std::string> problems;
  for (const auto& r : requests) {
    const std::string call = "conv1d_dynamic(width " + std::to_string(width) + ", mask_width " +
                             std::to_string(r.mask_width) + ", tile_width " +
                             std::to_string(r.tile_width) + ") [" + r.what + "]";
    try {
      lab06::candidate::conv1d_dynamic(x.data(), mask.data(), y.data(), width, r.mask_width,
                                       r.tile_width, stream.get());
      problems.push_back(call + " was accepted: it must throw std::invalid_argument");
    } catch (const std::invalid_argument& e) {
      INFO(call << " refused with: " << e.what());
    } catch (const std::exception& e) {
      problems.push_back(call + " threw, but not std::invalid_argument: " + e.what());
    }
    // Clear a launch error an accepted request may have left (in the candidate's process too).
    cudaStreamSynchronize(stream.get());
    cudaGetLastError();
    cudalab::remote::take_error();
  }
  if (!problems.empty()) {
    std::string message;
    for (const auto& p : problems) message += (message.empty() ? "" : "\n") + p;
    FAIL(message);
  }
}

// ---------------------------------------------------------------------------------------------
// Performance

GRADED_CHECK("reverse performance vs reference", "[lab06][perf]", 10, Needs::gpu) {
  // The kernel timed must pass every element through the shared array too (perf.h,
  // TimedRunChecks::executed): the technique check's signature at 2^26 elements.
  lab06::grade_reverse_performance("06", lab06::kCandidateReverse, lab06::kReferenceReverse,
                                   reverse_signature(lab06::ReversePerfCase::kN));
}

GRADED_CHECK("convolution performance vs reference", "[lab06][perf][profile]", 10, Needs::gpu) {
  // Each at the tile it chooses for the device (tile_width 0). The kernel timed must read its
  // taps from the tile (perf.h, TimedRunChecks::executed): lab 02's signature of a tile at 2^26
  // outputs and a mask of 9, global loads at most 1.5 per tap.
  using conv1d::PerfCase;
  constexpr double taps = PerfCase::kMaskWidth;
  conv1d::grade_conv1d_performance(
      "06", lab06::candidate_conv(0), lab06::reference_conv(0),
      cudalab::grade::shared_tile_signature(PerfCase::kWidth, 1.5 * taps, 0.5 + taps / 32));
}

GRADED_CHECK("timing harness self-check (reverse)", "[lab06][selfcheck]", 0, Needs::gpu) {
  lab06::ReversePerfCase perf(base_seed());
  cudalab::grade::check_timing_harness(perf.launch(lab06::kReferenceReverse),
                                       lab06::ReversePerfCase::workload());
}

GRADED_CHECK("timing harness self-check (convolution)", "[lab06][selfcheck]", 0, Needs::gpu) {
  conv1d::PerfCase perf(base_seed());
  cudalab::grade::check_timing_harness(perf.launch(lab06::reference_conv(0)),
                                       conv1d::PerfCase::workload());
}
