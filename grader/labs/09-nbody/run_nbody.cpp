// lab09-nbody: simulates a Plummer sphere (a star cluster) with the student's or the reference's
// N-body code: verifies the accelerations of both kernels against the CPU reference (sampled
// bodies), times them, runs the leapfrog for --steps steps and reports energy and momentum; --csv
// writes the positions every --every steps, for a picture or an animation. --bench times both
// kernels of both implementations for n = 2^10 .. 2^20.
//
//   lab09-nbody -n 16384 --steps 200 --impl student
//   lab09-nbody --bodies 4096 --steps 1000 --dt 0.005 --csv cluster.csv --every 10
//   lab09-nbody --bench --json bench.json
//
// Rates: n^2 interactions per evaluation of all accelerations, 20 flops each
//   (3 for r_j - r_i, 6 for |d|^2 + eps^2, 2 for the reciprocal square root, 3 for m_j / s^(3/2),
//    6 for a += d f; the count in solutions/09-nbody/nbody.cu),
// GFLOP/s = 20 n^2 / time, and "% peak" that over the FP32 peak (SMs x FP32 lanes x 2 x clock).
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "cudalab/cli.h"
#include "cudalab/cli_options.h"
#include "cudalab/device_info.h"
#include "cudalab/json.h"
#include "cudalab/random.h"
#include "cudalab/runner_output.h"
#include "impls.h"

namespace {

constexpr const char* kProgram = "lab09-nbody";
constexpr int kMaxBodies = 1 << 24;

struct Options {
  int n = 16384;
  int steps = 100;
  double dt = 0.01;
  double softening = 0.05;
  std::uint64_t seed = 1;
  std::string impl = "student";
  bool bench = false;
  std::string json;
  std::string csv;
  int every = 10;
};

double parse_positive(const std::string& text, const std::string& what) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0')
    throw cudalab::UsageError(what + " must be a number, got '" + text + "'");
  if (!std::isfinite(v) || v <= 0 || v > 1e6)
    throw cudalab::UsageError(what + " must be positive and finite (at most 1e6), got " + text);
  return v;
}

Options parse(int argc, char** argv) {
  cxxopts::Options cli(kProgram, "Lab 09: all-pairs N-body (naive and tiled kernels, leapfrog)");
  using cxxopts::value;
  // clang-format off
  cli.add_options()
      ("n,bodies", "number of bodies", value<std::string>()->default_value("16384"))
      ("steps", "leapfrog steps to simulate", value<std::string>()->default_value("100"))
      ("dt", "time step", value<std::string>()->default_value("0.01"))
      ("softening", "softening length eps (> 0)", value<std::string>()->default_value("0.05"))
      ("seed", "seed of the generated cluster", value<std::string>()->default_value("1"))
      ("impl", "student or reference", value<std::string>()->default_value("student"))
      ("csv", "write positions to this CSV file (step,time,body,x,y,z)", value<std::string>())
      ("every", "with --csv: write every this many steps", value<std::string>()->default_value("10"))
      ("bench", "benchmark both kernels of the student and the reference, n = 2^10 .. 2^20");
  // clang-format on
  const cxxopts::ParseResult r =
      cudalab::parse_runner_command_line(cli, "write results as JSON to this file", argc, argv);
  Options o;
  o.n = cudalab::int_option(r, "bodies", 1, kMaxBodies, "-n/--bodies");
  o.steps = cudalab::int_option(r, "steps", 0, 100000000);
  o.dt = parse_positive(r["dt"].as<std::string>(), "--dt");
  o.softening = parse_positive(r["softening"].as<std::string>(), "--softening");
  o.seed = cudalab::parse_seed(r);
  o.impl = cudalab::parse_impl(r);
  o.every = cudalab::int_option(r, "every", 1, INT_MAX);
  o.bench = r.count("bench") > 0;
  o.json = cudalab::writable_path_option(r, "json");
  o.csv = cudalab::writable_path_option(r, "csv");
  return o;
}

const lab09::NbodyVariant& variant(const std::string& impl) {
  return impl == "student" ? lab09::kCandidate : lab09::kReference;
}

double gflops(int n, double ms) {
  return lab09::kFlopsPerInteraction * double(n) * double(n) / (ms * 1e-3) / 1e9;
}

// Device copies of a cluster; verify() checks one kernel on sampled bodies.
struct Problem {
  lab09::AccCase data;
  cudalab::DeviceBuffer<float> bodies, acc;
  Problem(int n, double softening, std::uint64_t seed, int sample)
      : data{"n = " + std::to_string(n), lab09::plummer_system(n, seed),
             static_cast<float>(softening), seed, sample},
        bodies(data.system.bodies),
        acc(3 * static_cast<std::size_t>(n)) {
    CUDA_CHECK(cudaDeviceSynchronize());  // the upload has landed before any stream reads it
  }
  int n() const { return data.system.n(); }
  // "" when right; else the first line of the problem.
  std::string verify(lab09::AccFn f, const std::string& kernel) const {
    const std::string p = lab09::run_acc_case(data, f, kernel);
    return p.substr(0, p.find('\n'));
  }
  cudalab::Launch launch(lab09::AccFn f) {
    return [this, f](cudaStream_t s) {
      f(reinterpret_cast<const float4*>(bodies.data()), reinterpret_cast<float3*>(acc.data()), n(),
        data.softening, s);
    };
  }
};

cudalab::TimingOptions bench_timing() {
  cudalab::TimingOptions t;
  t.warmup = 1;
  t.min_samples = 3;
  t.max_samples = 100;
  t.target_rse = 0.02;
  t.time_cap_s = 3.0;
  t.flush_l2 = false;  // compute-bound: the bodies fit in L2 up to n = 2^21 anyway
  return t;
}

void write_csv_frame(std::ofstream& out, int step, double time, const std::vector<float>& bodies) {
  char line[160];
  for (std::size_t i = 0; i < bodies.size() / 4; ++i) {
    std::snprintf(line, sizeof line, "%d,%.6g,%zu,%.7g,%.7g,%.7g\n", step, time, i, bodies[4 * i],
                  bodies[4 * i + 1], bodies[4 * i + 2]);
    out << line;
  }
}

int run_simulation(const Options& o, const cudalab::DeviceInfo& dev) {
  cudalab::require_device_memory(48 * static_cast<std::size_t>(o.n), "-n " + std::to_string(o.n));
  const lab09::NbodyVariant& v = variant(o.impl);
  Problem p(o.n, o.softening, o.seed, 256);
  cudalab::Stream stream;
  bool all_ok = true;
  for (const auto& [kernel, f] : {std::pair{"naive", v.naive}, std::pair{"tiled", v.tiled}}) {
    const std::string wrong = p.verify(f, kernel);
    if (!wrong.empty()) {
      std::printf("%-10s %-6s n %d: WRONG: %s (not timed)\n", o.impl.c_str(), kernel, o.n,
                  wrong.c_str());
      all_ok = false;
      continue;
    }
    const auto t = cudalab::time_launch(p.launch(f), stream.get(), bench_timing());
    const double g = gflops(o.n, t.median_ms);
    std::printf(
        "%-10s %-6s n %d: accelerations correct (sampled), %.4f ms, %.3g interactions/s, %.0f "
        "GFLOP/s = %.1f%% of the FP32 peak\n",
        o.impl.c_str(), kernel, o.n, t.median_ms, double(o.n) * o.n / (t.median_ms * 1e-3), g,
        100 * g / dev.fp32_peak_gflops);
  }
  if (!all_ok) return cudalab::kExitFailure;

  // The simulation: accelerations once, then leapfrog steps.
  lab09::System s = p.data.system;
  cudalab::DeviceBuffer<float> bodies(s.bodies), vel(s.vel), acc(3 * static_cast<std::size_t>(o.n));
  CUDA_CHECK(cudaDeviceSynchronize());  // uploads done before the non-blocking stream starts
  auto* b4 = reinterpret_cast<float4*>(bodies.data());
  auto* v3 = reinterpret_cast<float3*>(vel.data());
  auto* a3 = reinterpret_cast<float3*>(acc.data());
  const float dt = static_cast<float>(o.dt), eps = static_cast<float>(o.softening);
  const bool energy = o.n <= 32768;  // the CPU energy is O(n^2)
  const double e0 = energy ? lab09::total_energy(s, o.softening) : 0.0;
  const auto p0 = lab09::momentum(s);
  std::ofstream csv;
  if (!o.csv.empty()) {
    csv.open(o.csv);
    csv << "step,time,body,x,y,z\n";
    write_csv_frame(csv, 0, 0.0, s.bodies);
  }
  v.tiled(b4, a3, o.n, eps, stream.get());
  cudalab::Event start, stop;
  double step_ms = 0;
  for (int step = 1; step <= o.steps; ++step) {
    start.record(stream.get());
    v.step(b4, v3, a3, o.n, dt, eps, stream.get());
    stop.record(stream.get());
    step_ms += stop.elapsed_since(start);
    if (csv.is_open() && step % o.every == 0)
      write_csv_frame(csv, step, step * o.dt, bodies.download());
  }
  stream.synchronize();
  s.bodies = bodies.download();
  s.vel = vel.download();
  const auto p1 = lab09::momentum(s);
  const double dp =
      std::sqrt((p1[0] - p0[0]) * (p1[0] - p0[0]) + (p1[1] - p0[1]) * (p1[1] - p0[1]) +
                (p1[2] - p0[2]) * (p1[2] - p0[2]));
  std::printf("%-10s %d leapfrog steps of %g: %.4f ms per step; |P - P0| = %.3g (sum m|v| = %.3g)",
              o.impl.c_str(), o.steps, o.dt, o.steps > 0 ? step_ms / o.steps : 0.0, dp,
              lab09::momentum_scale(s));
  double drift = 0;
  if (energy) {
    drift = std::fabs(lab09::total_energy(s, o.softening) - e0) / std::fabs(e0);
    std::printf("; |E - E0| / |E0| = %.3g\n", drift);
  } else {
    std::printf("; energy not computed for n > 32768\n");
  }
  if (csv.is_open()) std::printf("wrote %s\n", o.csv.c_str());
  if (!o.json.empty()) {
    cudalab::JsonWriter w = cudalab::begin_lab_json("09-nbody", dev);
    w.field("impl", o.impl)
        .field("n", o.n)
        .field("steps", o.steps)
        .field("dt", o.dt)
        .field("softening", o.softening)
        .field("seed", static_cast<std::int64_t>(o.seed))
        .field("ms_per_step", o.steps > 0 ? step_ms / o.steps : 0.0)
        .field("momentum_error", dp);
    if (energy) w.field("energy_drift", drift);
    w.end_object();
    std::ofstream(o.json) << w.str();
  }
  return cudalab::kExitOk;
}

struct Row {
  std::string variant, kernel;
  int n = 0;
  double ms = 0, rse = 0;
  std::string status;  // ok | wrong: ...
};

int run_bench(const Options& o, const cudalab::DeviceInfo& dev) {
  std::printf("%-10s %-6s %8s %11s %14s %9s %7s  %s\n", "variant", "kernel", "n", "ms",
              "interactions/s", "GFLOP/s", "% peak", "status");
  std::vector<Row> all;
  cudalab::Stream stream;
  for (int log2n = 10; log2n <= 20; ++log2n) {
    const int n = 1 << log2n;
    Problem p(n, o.softening, cudalab::derive_seed(o.seed, log2n), 128);
    std::vector<Row> rows;
    std::vector<cudalab::Launch> launches;
    for (const std::string impl : {"student", "reference"})
      for (const auto& [kernel, f] :
           {std::pair{"naive", variant(impl).naive}, std::pair{"tiled", variant(impl).tiled}}) {
        const std::string wrong = p.verify(f, kernel);
        rows.push_back({impl, kernel, n, 0, 0, wrong.empty() ? "ok" : "wrong: " + wrong});
        if (wrong.empty()) launches.push_back(p.launch(f));
      }
    cudalab::time_rows(rows, cudalab::ok_rows(rows), launches, stream.get(), bench_timing());
    for (auto& r : rows) {
      if (r.status == "ok") {
        const double g = gflops(n, r.ms);
        std::printf("%-10s %-6s %8d %11.4f %14.4g %9.0f %6.1f%%  ok\n", r.variant.c_str(),
                    r.kernel.c_str(), n, r.ms, double(n) * n / (r.ms * 1e-3), g,
                    100 * g / dev.fp32_peak_gflops);
      } else {
        std::printf("%-10s %-6s %8d %11s %14s %9s %7s  %s\n", r.variant.c_str(), r.kernel.c_str(),
                    n, "-", "-", "-", "-", r.status.substr(0, 100).c_str());
      }
      all.push_back(r);
    }
  }
  if (!o.json.empty()) {
    cudalab::JsonWriter w;
    w.begin_object()
        .field("lab", "09-nbody")
        .field("flops_per_interaction", lab09::kFlopsPerInteraction)
        .field("softening", o.softening);
    cudalab::write_device_field(w, dev);
    cudalab::write_rows_field(w, all, [&](const Row& r) {
      w.field("variant", r.variant)
          .field("kernel", r.kernel)
          .field("n", r.n)
          .field("status", r.status);
      if (r.status == "ok") {
        const double g = gflops(r.n, r.ms);
        w.field("ms", r.ms)
            .field("rse", r.rse)
            .field("interactions_per_s", double(r.n) * r.n / (r.ms * 1e-3))
            .field("gflops", g)
            .field("pct_fp32_peak", 100 * g / dev.fp32_peak_gflops);
      }
    });
    w.end_object();
    cudalab::save_json(w, o.json);
  }
  return cudalab::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::guarded_main(kProgram, [&] {
    const Options o = parse(argc, argv);
    const cudalab::DeviceInfo dev = cudalab::open_device();
    if (o.bench) return run_bench(o, dev);
    return run_simulation(o, dev);
  });
}
