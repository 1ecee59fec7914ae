// Lab 10 graded checks: the forward convolution layer of a CNN.
//
// Correctness against the double CPU reference (cnn_cpu.h), for both kernels: shapes with
// small-integer values compared exactly (1 x 1 outputs, odd sizes, C = 1, M not a multiple of any
// tile, K = 1 to 7, wide and tall images, B > 1), random floats with K = 1, 3, 5 and 7 within the
// error bound of conv_tolerance, the course's two layers at a batch of 16, and the fast kernel on
// the course's layers at a batch of 500. End to end: the network of network.h on the real
// Fashion-MNIST test set with the candidate's fast kernel must reach the reference's accuracy
// within 0.1 points. Performance: the fast kernel against the reference's on both course layers
// at B = 10000. The technique checks: conv_forward_fast_kernel must use shared or constant memory
// (its PTX; on a GPU, what it executed: the global loads per multiply-add, from the performance
// counters), and conv_forward_fast must launch at most half as many threads as there are outputs
// (CUPTI's records of what ran: register tiling). The sanitize label runs memcheck and racecheck.
#include <cmath>
#include <filesystem>
#include <set>
#include <string>

#include "cnn_cpu.h"
#include "cudalab/random.h"
#include "grading.h"
#include "impls.h"
#include "launch_trace.h"
#include "network.h"
#include "technique.h"

using cudalab::grade::base_seed;
using lab10::Kernel;

namespace {
constexpr int kSanitizedCourseBatch = 3;
}  // namespace

GRADED_CHECK("fast kernel uses shared or constant memory", "[lab10][technique]", 5, Needs::host) {
  using namespace cudalab::grade;
  const TechniqueRule rule = ptx_rule(
      "conv_forward_fast_kernel",
      [](const KernelAnalysis& k, const std::string& label) -> std::string {
        const int stores = k.count("st.shared"), loads = k.count("ld.shared");
        const int barriers = k.count("bar.sync") + k.count("barrier.sync");
        const int constants = k.count("ld.const");
        if (k.problem.empty() && (stores == 0 || loads == 0 || barriers == 0) && constants == 0)
          return "no shared or constant memory in " + label + " (" + k.name + "): its PTX has " +
                 std::to_string(stores) + " st.shared, " + std::to_string(loads) + " ld.shared, " +
                 std::to_string(barriers) + " barrier(s) and " + std::to_string(constants) +
                 " ld.const; the optimised kernel must stage data in shared memory (stored, "
                 "synchronized, read back) or read the weights from a __constant__ buffer";
        return accumulation_problem(k, label, kSharedSpace | kConstSpace,
                                    "the inputs or the weights");
      });
  // On a GPU, what ran on B = 2, C = 4, M = 12, K = 5 and 64 x 64 outputs (every tile of 8, 16,
  // 32 or 64 fits them: lanes past the edge would add multiply-adds of their own): B M C K^2 Ho Wo
  // = 9.8 million multiply-adds (MACs), each of an input and a weight. Read both from global
  // memory and a kernel makes 2 global loads per MAC (a warp's load counted for its 32 lanes);
  // the lesson's memories take at least one of the two: the direct kernel with its weights in
  // constant memory makes 1.0, a shared input tile with one output per thread and the weights in
  // global memory 1 + the tile's loads (1.06 with 16 x 16 tiles), and a register tile far less
  // (the plain answer and the reference: under 0.1). The bound, 1.5, lies between. There is no
  // floor on shared loads or constant requests: a weight at an address known at compile time is
  // an operand of the multiply-add itself, which no counter sees.
  lab10::LayerCase c;
  c.name = "technique, 64 x 64 outputs";
  c.shape = {2, 4, 12, 68, 68, 5};
  c.seed = cudalab::derive_seed(base_seed(), 320);
  c.x = cudalab::random_floats(c.shape.x_count(), c.seed);
  c.k = cudalab::random_floats(c.shape.k_count(), c.seed + 1);
  const double macs = static_cast<double>(c.shape.y_count()) * c.shape.C * c.shape.K * c.shape.K;
  TechniqueRule counted = rule;
  counted.executed = [=](const ExecutedWork& w, std::string* summary) {
    *summary = executed_summary(w.all, macs, "MAC");
    const std::string p = global_and_texture_problem(w, macs, 1.5, "MAC");
    return p.empty() ? p
                     : p + ": at most one of each multiply-add's input and weight may come from "
                           "global memory; the other from shared or constant memory";
  };
  const LaunchTrace trace = trace_launches(
      [&c] { lab10::run_case(c, lab10::kCandidate, lab10::Kernel::fast); }, Counting::on);
  require_candidate_technique(counted, trace);
}

// Milestone 3 of the page: register tiling. What ran is counted, not what the file says: CUPTI's
// kernel records give every launch's grid and block, so the threads that conv_forward_fast put to
// work (in the kernels of its file) are compared with the outputs of the layer. A thread that
// computes one output reads each input value for one multiply; one that computes a tile of outputs
// (maps, rows) reuses it from a register. Whether the reuse pays is for the performance checks to
// say.
GRADED_CHECK("fast kernel computes several outputs per thread (register tiling)",
             "[lab10][technique]", 10, Needs::gpu) {
  std::set<std::string> file_kernels;
  for (const auto& k : cudalab::grade::analyse_kernels(cudalab::grade::candidate_ptx()))
    file_kernels.insert(k.name);
  int layer = 0;
  for (const lab10::LayerCase& c : lab10::course_shape_cases(base_seed(), 2)) {
    ++layer;
    std::string problem;
    const cudalab::grade::LaunchTrace trace = cudalab::grade::trace_launches(
        [&] { problem = lab10::run_case(c, lab10::kCandidate, Kernel::fast); });
    if (!trace.verified) {
      if (trace.has_device) FAIL("grader problem, not yours: " + trace.not_verified);
      cudalab::grade::skip_check(trace.not_verified);
      return;
    }
    if (!problem.empty()) FAIL("the fast kernel must first compute the layer right: " + problem);
    const auto outputs = static_cast<long long>(c.shape.y_count());
    // The kernels of the candidate's file only (those of its PTX, as the technique checks judge
    // them): the harness's own kernels (input fills, comparisons) are not the candidate's threads.
    long long threads = 0;
    for (const auto& launch : trace.kernels)
      if (file_kernels.count(launch.name) > 0) threads += launch.threads;
    const double per_thread = threads > 0 ? static_cast<double>(outputs) / threads : 0.0;
    cudalab::grade::measure("outputs_per_thread_layer" + std::to_string(layer), per_thread);
    if (threads == 0 || outputs < 2 * threads)
      FAIL(c.name + ": conv_forward_fast launched " + std::to_string(threads) + " threads for " +
           std::to_string(outputs) + " outputs (" + cudalab::format_value(per_thread) +
           " per thread); register tiling gives each thread a tile of at least 2 outputs (several "
           "maps or rows of one image), each input value read once for all of them");
  }
}

GRADED_CHECK("direct kernel: shapes (1 x 1 outputs, odd sizes, C = 1, K = 1 to 7), exact",
             "[lab10][correctness]", 10, Needs::gpu) {
  lab10::require_all_pass(lab10::shape_cases(base_seed()), lab10::kCandidate, Kernel::direct);
}

GRADED_CHECK("direct kernel: random floats, K = 1, 3, 5, 7", "[lab10][correctness]", 5,
             Needs::gpu) {
  lab10::require_all_pass(lab10::random_float_cases(base_seed()), lab10::kCandidate,
                          Kernel::direct);
}

GRADED_CHECK(
    "fast kernel: shapes (1 x 1 outputs, odd sizes, C = 1, M not a multiple of the "
    "tile, K = 1 to 7), exact",
    "[lab10][correctness]", 10, Needs::gpu) {
  lab10::require_all_pass(lab10::shape_cases(base_seed()), lab10::kCandidate, Kernel::fast);
}

GRADED_CHECK("fast kernel: random floats, K = 1, 3, 5, 7", "[lab10][correctness]", 5, Needs::gpu) {
  lab10::require_all_pass(lab10::random_float_cases(base_seed()), lab10::kCandidate, Kernel::fast);
}

GRADED_CHECK("both kernels: the course's layers at a batch of 16", "[lab10][correctness]", 10,
             Needs::gpu) {
  // Under compute-sanitizer a batch of 3 (racecheck's time grows with the shared-memory reads,
  // images times maps): still several images, and blocks that may straddle two of them.
  const auto cases = lab10::course_shape_cases(
      base_seed(), cudalab::grade::under_sanitizer() ? kSanitizedCourseBatch : 16);
  lab10::require_all_pass(cases, lab10::kCandidate, Kernel::direct);
  lab10::require_all_pass(cases, lab10::kCandidate, Kernel::fast);
}

GRADED_CHECK("fast kernel: the course's layers at a batch of 500", "[lab10][correctness][large]", 5,
             Needs::gpu) {
  lab10::require_all_pass(lab10::course_shape_cases(base_seed(), 500), lab10::kCandidate,
                          Kernel::fast);
}

GRADED_CHECK("Fashion-MNIST test set: the network reaches the reference's accuracy",
             "[lab10][correctness][large]", 10, Needs::gpu) {
  const std::string dir = lab10::fashion_mnist_dir();
  const std::string images = lab10::fashion_mnist_test_images(dir);
  const std::string weights_path = lab10::default_weights_path();
  if (!std::filesystem::exists(images)) {
    cudalab::grade::skip_check("Fashion-MNIST not found: " + images +
                               " (scripts/fetch-data fashion-mnist installs it; or set "
                               "CUDALAB_DATA_DIR)");
    return;
  }
  if (!std::filesystem::exists(weights_path)) {
    cudalab::grade::skip_check("network weights not found: " + weights_path +
                               " (scripts/train-cnn.py writes them; or set CUDALAB_CNN_WEIGHTS)");
    return;
  }
  const lab10::FashionMnist data = lab10::read_fashion_mnist_test(dir);
  const lab10::NetWeights weights = lab10::read_weights(weights_path);
  const lab10::NetworkResult ref =
      lab10::run_network(data, weights, lab10::kReference, Kernel::fast);
  cudalab::grade::measure("reference_accuracy", ref.accuracy);
  // The reference itself must reproduce the training's accuracy: otherwise the data or the
  // weights are not the ones committed, and no student result would mean anything.
  for (const double expected :
       {static_cast<double>(weights.trained_accuracy), lab10::kReferenceAccuracy}) {
    if (expected > 0.0 && std::fabs(ref.accuracy - expected) > lab10::kAccuracyTolerance)
      FAIL("grader problem, not yours: the reference network reaches " +
           cudalab::format_value(ref.accuracy) + "% but " + cudalab::format_value(expected) +
           "% was recorded for these weights (" + weights_path +
           "); the data or the weights file is not the committed one");
  }
  lab10::NetworkResult got;
  try {
    got = lab10::run_network(data, weights, lab10::kCandidate, Kernel::fast);
  } catch (const std::exception& e) {
    FAIL(std::string("the network with conv_forward_fast threw: ") + e.what());
  }
  cudalab::grade::measure("accuracy", got.accuracy);
  cudalab::grade::measure("network_ms", got.ms);
  int differ = 0;
  for (std::size_t i = 0; i < got.predictions.size(); ++i)
    differ += got.predictions[i] != ref.predictions[i];
  std::printf(
      "Fashion-MNIST test set: %s %.2f%% (%d of %d), reference %.2f%%; %d predictions "
      "differ; network %.3f ms\n",
      lab10::kCandidate.name.c_str(), got.accuracy, got.correct, got.count, ref.accuracy, differ,
      got.ms);
  if (std::fabs(got.accuracy - ref.accuracy) > lab10::kAccuracyTolerance)
    FAIL("network accuracy " + cudalab::format_value(got.accuracy) + "%, expected " +
         cudalab::format_value(ref.accuracy) + "% (the reference's) within " +
         cudalab::format_value(lab10::kAccuracyTolerance) + " points; " + std::to_string(differ) +
         " of " + std::to_string(got.count) +
         " predictions differ from the reference's: the conv layers compute something else");
}

GRADED_CHECK("performance vs reference: course layer 1 (C = 1, M = 12)", "[lab10][perf]", 10,
             Needs::gpu) {
  // What the timed kernel executes is not judged here (perf.h, TimedRunChecks::executed): the
  // course's layers leave tiles partly empty (66 x 66 and 29 x 29 outputs), and lanes past the edge
  // load their operands too, so the loads per multiply-add of an honest tile (1.59 global loads
  // per MAC on layer 1 for 16 x 16 tiles of one output per thread, on an H200; 32 x 32 tiles put
  // 96 x 96 lanes on 66 x 66 outputs, 2.1 lanes an output) overlap those of a kernel that reads
  // both operands from global memory (2), and the GPU's count has no count of multiply-adds to
  // normalise by. The technique check's case is chosen so that every tile fits.
  lab10::grade_layer_performance(1, lab10::kCandidate, lab10::kReference);
}

GRADED_CHECK("performance vs reference: course layer 2 (C = 12, M = 24)", "[lab10][perf][profile]",
             10, Needs::gpu) {
  lab10::grade_layer_performance(2, lab10::kCandidate, lab10::kReference);
}

GRADED_CHECK("timing harness self-check", "[lab10][selfcheck]", 0, Needs::gpu) {
  lab10::PerfCase perf(2, base_seed());
  cudalab::grade::check_timing_harness(perf.launch(lab10::kReference, Kernel::fast),
                                       perf.workload());
}
