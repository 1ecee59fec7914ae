// lab01-conv1d-basic: runs lab 01 on generated data, verifies it against the CPU reference and
// times it; --bench compares every variant over a range of sizes and mask widths.
//
//   lab01-conv1d-basic --width 16777216 --mask-width 9 --impl student
//   lab01-conv1d-basic --bench --json bench.json
//
// Bandwidth counts the minimum DRAM traffic of one run: x read once + y written once
// (8 bytes per element); the mask is negligible. "% copy" is that rate over the device-to-device
// copy bandwidth measured at start-up in the same process.
#include <climits>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "conv1d_cpu.h"
#include "cudalab/cli.h"
#include "cudalab/cli_options.h"
#include "cudalab/device_info.h"
#include "cudalab/json.h"
#include "cudalab/random.h"
#include "cudalab/timing.h"
#include "impls.h"

namespace {

using Conv1dFn = void (*)(const float*, const float*, float*, int, int, cudaStream_t);

struct Variant {
  const char* name;
  Conv1dFn fn;
};

const Variant kVariants[] = {
    {"course", lab01::baseline::conv1d_course},
    {"student", lab01::candidate::conv1d_basic},
    {"reference", lab01::reference::conv1d_basic},
};

struct Options {
  int width = 1 << 24;
  int mask_width = 9;
  std::uint64_t seed = 1;
  std::string impl = "student";
  bool bench = false;
  std::string json;
};

Options parse(int argc, char** argv) {
  cxxopts::Options spec("lab01-conv1d-basic", "Lab 01: 1D convolution, one thread per output");
  using cxxopts::value;
  // clang-format off
  spec.add_options()
      ("width", "number of elements of x and y", value<std::string>()->default_value("16777216"))
      ("mask-width", "mask width (odd)", value<std::string>()->default_value("9"))
      ("seed", "seed of the generated input", value<std::string>()->default_value("1"))
      ("impl", "student or reference", value<std::string>()->default_value("student"))
      ("bench", "benchmark every variant over sizes and mask widths")
      ("json", "write results as JSON to this file", value<std::string>())
      ("h,help", "show this help");
  // clang-format on
  const cxxopts::ParseResult result = cudalab::parse_command_line(spec, argc, argv);
  Options o;
  o.width = static_cast<int>(
      cudalab::parse_int_in_range(result["width"].as<std::string>(), "--width", 1, INT_MAX));
  const auto mask = cudalab::parse_int_in_range(result["mask-width"].as<std::string>(),
                                                "--mask-width", -1000000, 1000001);
  cudalab::require_odd_positive(mask, "--mask-width");
  o.mask_width = static_cast<int>(mask);
  o.seed = static_cast<std::uint64_t>(
      cudalab::parse_int_in_range(result["seed"].as<std::string>(), "--seed", 0, LLONG_MAX));
  o.impl = result["impl"].as<std::string>();
  if (o.impl != "student" && o.impl != "reference")
    throw cudalab::UsageError("--impl must be 'student' or 'reference', got '" + o.impl + "'");
  o.bench = result.count("bench") > 0;
  if (result.count("json")) o.json = result["json"].as<std::string>();
  return o;
}

void require_device_memory(std::size_t bytes, const std::string& what) {
  std::size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  if (bytes > free) {
    char line[256];
    std::snprintf(line, sizeof line, "%s needs %.2f GiB of device memory, %.2f GiB are free",
                  what.c_str(), bytes / 1073741824.0, free / 1073741824.0);
    throw cudalab::UsageError(line);
  }
}

double gbs(int width, double ms) {
  return 2.0 * sizeof(float) * width / (ms * 1e-3) / 1e9;
}

struct Row {
  std::string variant;
  int width, mask_width;
  double ms = 0, rse = 0;
  std::string status;  // ok | wrong
};

// Runs fn once and compares with `expected`; "" when within tolerance, else a short reason.
std::string verify(Conv1dFn fn, const std::vector<float>& hx, const std::vector<float>& hmask,
                   const std::vector<double>& expected, cudalab::DeviceBuffer<float>& x,
                   cudalab::DeviceBuffer<float>& mask, cudalab::DeviceBuffer<float>& y,
                   cudaStream_t stream, double tolerance_scale) {
  CUDA_CHECK(cudaMemsetAsync(y.data(), 0xFF, y.bytes(), stream));
  fn(x.data(), mask.data(), y.data(), static_cast<int>(hx.size()), static_cast<int>(hmask.size()),
     stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  auto tol = lab01::conv1d_tolerance(static_cast<int>(hmask.size()), 1.0, 1.0);
  tol.atol *= tolerance_scale;
  const auto r = cudalab::compare(y.download(), expected, tol, 1);
  if (r.ok()) return "";
  return std::to_string(r.mismatches) + " wrong element(s), first at index " +
         std::to_string(r.first.front().index);
}

int run_once(const Options& o) {
  require_device_memory(2 * sizeof(float) * static_cast<std::size_t>(o.width),
                        "--width " + std::to_string(o.width));
  const cudalab::DeviceInfo dev = cudalab::query_device(0);
  std::cout << cudalab::describe_device(dev) << "\n";
  const auto hx = cudalab::random_floats(o.width, o.seed);
  const auto hmask = cudalab::random_floats(o.mask_width, cudalab::derive_seed(o.seed, 1));
  cudalab::DeviceBuffer<float> x(hx), mask(hmask), y(hx.size());
  cudalab::Stream stream;
  const Conv1dFn fn = o.impl == "student" ? kVariants[1].fn : kVariants[2].fn;

  const std::string wrong =
      verify(fn, hx, hmask, lab01::conv1d_cpu(hx, hmask), x, mask, y, stream.get(), 1.0);
  if (!wrong.empty()) {
    // Like the grader: a wrong result is not timed.
    std::printf("%-10s width %d, mask %d: WRONG: %s (not timed)\n", o.impl.c_str(), o.width,
                o.mask_width, wrong.c_str());
    return cudalab::kExitFailure;
  }
  const auto t = cudalab::time_launch(
      [&](cudaStream_t s) { fn(x.data(), mask.data(), y.data(), o.width, o.mask_width, s); },
      stream.get());
  std::printf(
      "%-10s width %d, mask %d: correct, %.4f ms (rse %.1f%%), %.0f GB/s = %.1f%% of copy\n",
      o.impl.c_str(), o.width, o.mask_width, t.median_ms, 100 * t.rse, gbs(o.width, t.median_ms),
      100 * gbs(o.width, t.median_ms) / dev.copy_bandwidth_gbs);
  if (!o.json.empty()) {
    cudalab::JsonWriter w;
    w.begin_object().field("lab", "01-conv1d-basic").key("device");
    cudalab::write_device_json(w, dev);
    w.field("impl", o.impl)
        .field("width", o.width)
        .field("mask_width", o.mask_width)
        .field("seed", static_cast<std::int64_t>(o.seed))
        .field("ms", t.median_ms)
        .field("gbs", gbs(o.width, t.median_ms))
        .end_object();
    std::ofstream(o.json) << w.str();
  }
  return cudalab::kExitOk;
}

int run_bench(const Options& o) {
  const cudalab::DeviceInfo dev = cudalab::query_device(0);
  std::cout << cudalab::describe_device(dev) << "\n\n";
  std::printf("%-10s %11s %5s %10s %9s %7s  %s\n", "variant", "width", "mask", "ms", "GB/s",
              "% copy", "status");
  std::vector<Row> rows;
  cudalab::Stream stream;
  for (const int mask_width : {3, 9, 31}) {
    for (int log2w = 16; log2w <= 28; log2w += 2) {
      const int width = 1 << log2w;
      const auto hx = cudalab::random_floats(width, cudalab::derive_seed(o.seed, log2w));
      const auto hmask =
          cudalab::random_floats(mask_width, cudalab::derive_seed(o.seed, 100 + mask_width));
      cudalab::DeviceBuffer<float> x(hx), mask(hmask), y(hx.size());
      // The CPU reference up to 2^24; above, the reference's output (both are within the
      // tolerance of the exact result, so they agree within twice it).
      std::vector<double> expected;
      double scale = 1.0;
      if (log2w <= 24) {
        expected = lab01::conv1d_cpu(hx, hmask);
      } else {
        kVariants[2].fn(x.data(), mask.data(), y.data(), width, mask_width, stream.get());
        const auto ref = y.download();
        expected.assign(ref.begin(), ref.end());
        scale = 2.0;
      }
      std::vector<cudalab::Launch> launches;
      std::vector<Row> config_rows;
      for (const auto& v : kVariants) {
        Row row{v.name, width, mask_width, 0.0, 0.0, ""};
        const std::string wrong =
            verify(v.fn, hx, hmask, expected, x, mask, y, stream.get(), scale);
        row.status = wrong.empty() ? "ok" : "wrong: " + wrong;
        if (wrong.empty())
          launches.push_back([&, fn = v.fn](cudaStream_t s) {
            fn(x.data(), mask.data(), y.data(), width, mask_width, s);
          });
        config_rows.push_back(row);
      }
      const auto times = cudalab::time_interleaved(launches, stream.get());
      std::size_t next = 0;
      for (auto& row : config_rows) {
        if (row.status == "ok") {
          row.ms = times[next].median_ms;
          row.rse = times[next].rse;
          ++next;
          std::printf("%-10s %11d %5d %10.4f %9.0f %6.1f%%  ok\n", row.variant.c_str(), width,
                      mask_width, row.ms, gbs(width, row.ms),
                      100 * gbs(width, row.ms) / dev.copy_bandwidth_gbs);
        } else {
          std::printf("%-10s %11d %5d %10s %9s %7s  %s\n", row.variant.c_str(), width, mask_width,
                      "-", "-", "-", row.status.c_str());
        }
        rows.push_back(row);
      }
    }
  }
  if (!o.json.empty()) {
    cudalab::JsonWriter w;
    w.begin_object().field("lab", "01-conv1d-basic").field("bytes_per_element", 8).key("device");
    cudalab::write_device_json(w, dev);
    w.key("rows").begin_array();
    for (const auto& r : rows) {
      w.begin_object()
          .field("variant", r.variant)
          .field("width", r.width)
          .field("mask_width", r.mask_width)
          .field("status", r.status);
      if (r.status == "ok") {
        w.field("ms", r.ms)
            .field("rse", r.rse)
            .field("gbs", gbs(r.width, r.ms))
            .field("pct_copy", 100 * gbs(r.width, r.ms) / dev.copy_bandwidth_gbs);
      }
      w.end_object();
    }
    w.end_array().end_object();
    std::ofstream(o.json) << w.str();
    std::cout << "\nwrote " << o.json << "\n";
  }
  return cudalab::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::guarded_main("lab01-conv1d-basic", [&] {
    const Options o = parse(argc, argv);
    if (std::string reason; !cudalab::has_cuda_device(&reason)) {
      std::cerr << "lab01-conv1d-basic: " << reason << "\n";
      return cudalab::kExitFailure;
    }
    return o.bench ? run_bench(o) : run_once(o);
  });
}
