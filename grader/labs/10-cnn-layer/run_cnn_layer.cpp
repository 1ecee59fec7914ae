// lab10-cnn-layer: runs the forward convolution layer (the student's kernels or the reference's)
// on one of the course's layers or on a shape of your own, checks it against the CPU reference,
// and times it; runs the Fashion-MNIST network; benchmarks every variant against cuDNN.
//
//   lab10-cnn-layer --layer 1 [--batch 1000] [--impl reference]
//   lab10-cnn-layer --batch 8 --channels 3 --maps 5 --size 40 --kernel 7
//   lab10-cnn-layer --network [--impl reference]
//   lab10-cnn-layer --bench [--batch 10000] --json bench.json
//
// A run checks both kernels (conv_forward_direct and conv_forward_fast) on the first, a middle and
// the last image of the batch, then times each (median of CUDA-event samples, L2 flushed). GFLOP/s
// counts 2 * B * M * C * K * K * Ho * Wo; GB/s the minimum DRAM traffic, x read once, y written
// once. --bench does the same for the student's two kernels, the reference's two and cuDNN (FP32,
// no TF32, the algorithm cudnnFindConvolutionForwardAlgorithm finds fastest; when the build found
// cuDNN) on both course layers, timed interleaved in one process; then the course report's lesson:
// the time of a layer as the course project measured it, cudaMalloc + copy in + kernel + copy out
// + cudaFree, step by step.
#include <chrono>
#include <cmath>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <string>

#include "baselines.h"
#include "cnn_cpu.h"
#include "cudalab/cli.h"
#include "cudalab/cli_options.h"
#include "cudalab/device_info.h"
#include "cudalab/json.h"
#include "cudalab/random.h"
#include "cudalab/runner_output.h"
#include "impls.h"
#include "network.h"

namespace {

constexpr const char* kProgram = "lab10-cnn-layer";

struct Options {
  lab10::LayerShape shape = lab10::course_layer(1, 1000);
  int layer = 1;  // 0: --channels/--maps/--size/--kernel given
  std::string impl = "student";
  std::string json;
  std::uint64_t seed = 1;
  bool bench = false, network = false, batch_given = false;
};

Options parse(int argc, char** argv) {
  cxxopts::Options cli(kProgram, "Lab 10: the forward convolution layer of a CNN");
  using cxxopts::value;
  // clang-format off
  cli.add_options()
      ("layer", "the course's layer: 1 (C=1, M=12, 70x70, K=5) or 2 (C=12, M=24, 33x33, K=5)",
       value<std::string>())
      ("batch", "images B (default 1000; --bench: 10000)", value<std::string>())
      ("channels", "input channels C (own shape)", value<std::string>())
      ("maps", "output maps M (own shape)", value<std::string>())
      ("size", "input side H = W (own shape)", value<std::string>())
      ("kernel", "filter side K, 1 to 7 (own shape)", value<std::string>())
      ("seed", "seed of the random tensors", value<std::string>()->default_value("1"))
      ("impl", "student or reference", value<std::string>()->default_value("student"))
      ("network", "run the Fashion-MNIST test set through the network")
      ("bench", "time every variant and cuDNN on both course layers, and the breakdown");
  // clang-format on
  const cxxopts::ParseResult r = cudalab::parse_runner_command_line(
      cli, "bench: write results as JSON to this file", argc, argv);
  Options o;
  o.impl = cudalab::parse_impl(r);
  o.seed = cudalab::parse_seed(r);
  o.bench = r.count("bench") > 0;
  o.network = r.count("network") > 0;
  if (o.bench && o.network) throw cudalab::UsageError("--bench and --network: choose one");
  const bool own = r.count("channels") || r.count("maps") || r.count("size") || r.count("kernel");
  if (own && r.count("layer"))
    throw cudalab::UsageError("--layer or --channels/--maps/--size/--kernel, not both");
  if (own && (o.bench || o.network))
    throw cudalab::UsageError("--bench and --network use fixed shapes; drop the shape options");
  int batch = o.bench ? 10000 : 1000;
  if (r.count("batch")) {
    batch = cudalab::int_option(r, "batch", 1, 100000);
    o.batch_given = true;
  }
  if (own) {
    auto get = [&](const char* name, int fallback, int lo, int hi) {
      if (!r.count(name)) return fallback;
      return cudalab::int_option(r, name, lo, hi);
    };
    lab10::LayerShape s;
    s.B = batch;
    s.C = get("channels", 1, 1, 1024);
    s.M = get("maps", 12, 1, 1024);
    s.K = get("kernel", 5, 1, lab10::kMaxKernelWidth);
    s.H = s.W = get("size", 70, 1, 8192);
    if (s.K > s.H) throw cudalab::UsageError("--kernel must not exceed --size");
    if (static_cast<long long>(s.M) * s.C * s.K * s.K > lab10::kMaxWeights)
      throw cudalab::UsageError("--maps x --channels x --kernel^2 must be at most " +
                                std::to_string(lab10::kMaxWeights) + " weights");
    o.shape = s;
    o.layer = 0;
  } else if (r.count("layer")) {
    o.layer = std::stoi(cudalab::parse_choice(r["layer"].as<std::string>(), "--layer", {"1", "2"}));
    o.shape = lab10::course_layer(o.layer, batch);
  } else {
    o.shape = lab10::course_layer(1, batch);
  }
  const double bytes = 4.0 * (static_cast<double>(o.shape.x_count()) + o.shape.y_count());
  if (bytes > 64.0 * (1ULL << 30))
    throw cudalab::UsageError("the tensors would take more than 64 GiB; choose a smaller batch");
  if (r.count("json") && !o.bench) throw cudalab::UsageError("--json goes with --bench");
  o.json = cudalab::writable_path_option(r, "json");
  return o;
}

double gflops(const lab10::LayerShape& s, double ms) {
  return s.flops() / (ms * 1e-3) / 1e9;
}
double gbs(const lab10::LayerShape& s, double ms) {
  return 4.0 * (static_cast<double>(s.x_count()) + s.y_count()) / (ms * 1e-3) / 1e9;
}

// ---------------------------------------------------------------------------------------------
// One layer

int run_layer(const Options& o) {
  const lab10::CnnVariant& v = o.impl == "student" ? lab10::kCandidate : lab10::kReference;
  const lab10::LayerShape& s = o.shape;
  std::cout << "layer " << s.text() << " -> " << s.ho() << " x " << s.wo() << " out, " << v.name
            << "\n";
  cudalab::require_device_memory(
      static_cast<std::size_t>(4.0 * (static_cast<double>(s.x_count()) + s.y_count())) +
          (256u << 20),
      "this layer");
  lab10::PerfCase perf(s, cudalab::derive_seed(o.seed, 1), cudalab::derive_seed(o.seed, 2));
  int status = cudalab::kExitOk;
  std::printf("%-22s %10s %10s %9s  %s\n", "kernel", "ms", "GFLOP/s", "GB/s", "check");
  for (const lab10::Kernel kernel : {lab10::Kernel::direct, lab10::Kernel::fast}) {
    const std::string wrong = perf.validate(v, kernel);
    if (!wrong.empty()) {
      std::printf("%-22s %10s %10s %9s  WRONG\n", lab10::kernel_name(kernel), "-", "-", "-");
      std::cout << wrong << "\n";
      status = cudalab::kExitFailure;
      continue;
    }
    cudalab::Stream stream;
    const cudalab::Timing t = cudalab::time_launch(perf.launch(v, kernel), stream.get());
    std::printf("%-22s %10.4f %10.0f %9.0f  ok (images 0, B/2, B-1 vs CPU)\n",
                lab10::kernel_name(kernel), t.median_ms, gflops(s, t.median_ms),
                gbs(s, t.median_ms));
  }
  return status;
}

// ---------------------------------------------------------------------------------------------
// Network

int run_network(const Options& o) {
  const std::string dir = lab10::fashion_mnist_dir();
  const lab10::FashionMnist data = lab10::read_fashion_mnist_test(dir);
  const lab10::NetWeights weights = lab10::read_weights(lab10::default_weights_path());
  cudalab::require_cuda_device();
  std::cout << cudalab::describe_device(cudalab::query_device(0, false)) << "\n";
  std::printf("Fashion-MNIST test set: %d images (%s); weights %s (trained to %.2f%%)\n",
              data.images.count, dir.c_str(), lab10::default_weights_path().c_str(),
              weights.trained_accuracy);
  const lab10::CnnVariant& v = o.impl == "student" ? lab10::kCandidate : lab10::kReference;
  std::printf("%-10s %-20s %9s %9s %9s\n", "impl", "conv kernel", "accuracy", "correct", "ms");
  for (const lab10::Kernel kernel : {lab10::Kernel::direct, lab10::Kernel::fast}) {
    const lab10::NetworkResult r = lab10::run_network(data, weights, v, kernel);
    std::printf("%-10s %-20s %8.2f%% %9d %9.3f\n", v.name.c_str(), lab10::kernel_name(kernel),
                r.accuracy, r.correct, r.ms);
  }
  return cudalab::kExitOk;
}

// ---------------------------------------------------------------------------------------------
// Bench

struct Row {
  std::string variant;
  int layer = 0;
  lab10::LayerShape shape;
  double ms = 0, rse = 0;
  std::string status = "ok";
};

void print_row(const Row& r) {
  if (r.status == "ok")
    std::printf("%-34s %5d %10.4f %10.0f %9.0f  ok\n", r.variant.c_str(), r.layer, r.ms,
                gflops(r.shape, r.ms), gbs(r.shape, r.ms));
  else
    std::printf("%-34s %5d %10s %10s %9s  %s\n", r.variant.c_str(), r.layer, "-", "-", "-",
                r.status.c_str());
  std::fflush(stdout);
}

std::vector<Row> bench_layer(int layer, int batch, std::uint64_t seed) {
  lab10::PerfCase perf(layer, seed, batch);
  std::vector<Row> rows;
  std::vector<cudalab::Launch> launches;
  std::vector<std::size_t> timed;
  struct Entry {
    const lab10::CnnVariant* v;
    lab10::Kernel kernel;
  };
  for (const Entry& e : {Entry{&lab10::kCandidate, lab10::Kernel::direct},
                         Entry{&lab10::kCandidate, lab10::Kernel::fast},
                         Entry{&lab10::kReference, lab10::Kernel::direct},
                         Entry{&lab10::kReference, lab10::Kernel::fast}}) {
    cudalab::add_checked_row(
        rows, timed, launches,
        Row{e.v->name + " " + lab10::kernel_name(e.kernel), layer, perf.shape, 0, 0, "ok"},
        perf.validate(*e.v, e.kernel), [&] { return perf.launch(*e.v, e.kernel); });
  }
  // cuDNN, validated like the others through a variant that ignores its arguments' k.
  std::unique_ptr<lab10::baseline::CudnnConv> cudnn;
  std::string why;
  Row cr{"cuDNN", layer, perf.shape, 0, 0, "ok"};
  if (!lab10::baseline::cudnn_available(&why)) {
    cr.status = "skipped: " + why;
    rows.push_back(cr);
  } else {
    try {
      cudnn = std::make_unique<lab10::baseline::CudnnConv>(perf.shape, perf.k.data());
      cr.variant = "cuDNN " + cudnn->algorithm() + " (FP32)";
      static lab10::baseline::CudnnConv* current = nullptr;
      current = cudnn.get();
      const lab10::ConvFn run = [](const float* x, const float*, float* y, int, int, int, int, int,
                                   int, cudaStream_t st) { current->run(x, y, st); };
      const lab10::CnnVariant v{cr.variant, nullptr, run, run};
      cudalab::add_checked_row(rows, timed, launches, cr, perf.validate(v, lab10::Kernel::fast),
                               [&] { return perf.launch(v, lab10::Kernel::fast); });
    } catch (const std::exception& e) {
      cr.status = std::string("skipped: ") + e.what();
      rows.push_back(cr);
    }
  }
  cudalab::Stream stream;
  cudalab::time_rows(rows, timed, launches, stream.get());
  return rows;
}

// The course report's lesson: what one layer costs when every call allocates, copies in, runs,
// copies out and frees, as the course project's forward() did. Pageable host memory, as there.
struct Breakdown {
  double malloc_ms = 0, h2d_ms = 0, kernel_ms = 0, d2h_ms = 0, free_ms = 0;
  double total() const { return malloc_ms + h2d_ms + kernel_ms + d2h_ms + free_ms; }
};

Breakdown measure_breakdown(int layer, int batch, std::uint64_t seed) {
  const lab10::LayerShape s = lab10::course_layer(layer, batch);
  const std::vector<float> x = cudalab::random_floats(s.x_count(), seed);
  const std::vector<float> k = cudalab::random_floats(s.k_count(), seed + 1);
  std::vector<float> y(s.y_count());
  cudalab::Stream stream;
  Breakdown best;
  using clock = std::chrono::steady_clock;
  const auto ms_since = [](clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(clock::now() - t0).count();
  };
  for (int rep = 0; rep < 4; ++rep) {  // the first pass warms up; the last three are kept (min)
    Breakdown b;
    float *dx = nullptr, *dk = nullptr, *dy = nullptr;
    auto t0 = clock::now();
    CUDA_CHECK(cudaMalloc(&dx, x.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dk, k.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&dy, y.size() * sizeof(float)));
    b.malloc_ms = ms_since(t0);
    t0 = clock::now();
    CUDA_CHECK(cudaMemcpy(dx, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(dk, k.data(), k.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());
    b.h2d_ms = ms_since(t0);
    if (std::string p = lab10::prepare(lab10::kReference, lab10::Kernel::fast, k, s,
                                       {"breakdown", seed, s.text()});
        !p.empty())
      throw std::runtime_error(p);
    cudalab::Event start, stop;
    start.record(stream.get());
    lab10::kReference.fast(dx, dk, dy, s.B, s.C, s.M, s.H, s.W, s.K, stream.get());
    stop.record(stream.get());
    b.kernel_ms = stop.elapsed_since(start);
    t0 = clock::now();
    CUDA_CHECK(cudaMemcpy(y.data(), dy, y.size() * sizeof(float), cudaMemcpyDeviceToHost));
    b.d2h_ms = ms_since(t0);
    t0 = clock::now();
    CUDA_CHECK(cudaFree(dx));
    CUDA_CHECK(cudaFree(dk));
    CUDA_CHECK(cudaFree(dy));
    b.free_ms = ms_since(t0);
    if (rep == 1 || (rep > 1 && b.total() < best.total())) best = b;
  }
  return best;
}

void write_json(const std::string& path, const std::vector<Row>& rows,
                const std::vector<std::pair<int, Breakdown>>& breakdowns,
                const cudalab::DeviceInfo& dev) {
  cudalab::JsonWriter w = cudalab::begin_lab_json("10-cnn-layer", dev);
  cudalab::write_rows_field(w, rows, [&](const Row& r) {
    w.field("variant", r.variant)
        .field("layer", r.layer)
        .field("B", r.shape.B)
        .field("C", r.shape.C)
        .field("M", r.shape.M)
        .field("H", r.shape.H)
        .field("W", r.shape.W)
        .field("K", r.shape.K)
        .field("flops", r.shape.flops())
        .field("status", r.status);
    if (r.status == "ok")
      w.field("ms", r.ms)
          .field("rse", r.rse)
          .field("gflops", gflops(r.shape, r.ms))
          .field("gbs", gbs(r.shape, r.ms));
  });
  w.key("breakdown").begin_array();
  for (const auto& [layer, b] : breakdowns)
    w.begin_object()
        .field("layer", layer)
        .field("malloc_ms", b.malloc_ms)
        .field("h2d_ms", b.h2d_ms)
        .field("kernel_ms", b.kernel_ms)
        .field("d2h_ms", b.d2h_ms)
        .field("free_ms", b.free_ms)
        .field("total_ms", b.total())
        .end_object();
  w.end_array().end_object();
  cudalab::save_json(w, path);
}

int run_bench(const Options& o, const cudalab::DeviceInfo& dev) {
  const int batch = o.shape.B;
  cudalab::require_device_memory(
      static_cast<std::size_t>(8.0 * (lab10::course_layer(1, batch).x_count() +
                                      lab10::course_layer(1, batch).y_count())),
      "--bench at a batch of " + std::to_string(batch));
  std::printf("%-34s %5s %10s %10s %9s  %s\n", "variant", "layer", "ms", "GFLOP/s", "GB/s",
              "status");
  std::vector<Row> all;
  for (const int layer : {1, 2})
    for (const Row& r : bench_layer(layer, batch, o.seed)) {
      print_row(r);
      all.push_back(r);
    }
  std::printf(
      "\nOne layer as the course project ran it (reference fast kernel; every call "
      "allocates, copies in, runs, copies out, frees; pageable host memory):\n");
  std::printf("%5s %10s %10s %10s %10s %10s %10s %9s\n", "layer", "malloc", "copy in", "kernel",
              "copy out", "free", "total ms", "kernel %");
  std::vector<std::pair<int, Breakdown>> breakdowns;
  for (const int layer : {1, 2}) {
    const Breakdown b = measure_breakdown(layer, batch, o.seed + 7);
    std::printf("%5d %10.3f %10.3f %10.3f %10.3f %10.3f %10.3f %8.1f%%\n", layer, b.malloc_ms,
                b.h2d_ms, b.kernel_ms, b.d2h_ms, b.free_ms, b.total(),
                100.0 * b.kernel_ms / b.total());
    breakdowns.emplace_back(layer, b);
  }
  if (!o.json.empty()) write_json(o.json, all, breakdowns, dev);
  return cudalab::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::guarded_main(kProgram, [&] {
    const Options o = parse(argc, argv);
    if (o.network) return run_network(o);
    const cudalab::DeviceInfo dev = cudalab::open_device();
    if (o.bench) return run_bench(o, dev);
    return run_layer(o);
  });
}
