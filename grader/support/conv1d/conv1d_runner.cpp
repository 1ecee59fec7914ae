#include "conv1d_runner.h"

#include <climits>
#include <cstdio>
#include <fstream>
#include <iostream>

#include "conv1d_cpu.h"
#include "cudalab/cli.h"
#include "cudalab/cli_options.h"
#include "cudalab/device_info.h"
#include "cudalab/json.h"
#include "cudalab/random.h"
#include "cudalab/runner_output.h"

namespace conv1d {

Conv1dProblem::Conv1dProblem(int width, int mask_width, std::uint64_t seed)
    : hx(cudalab::random_floats(width, seed)),
      hmask(cudalab::random_floats(mask_width, cudalab::derive_seed(seed, 1))),
      x(hx),
      mask(hmask),
      y(hx.size()) {}

Conv1dArgs Conv1dProblem::args() {
  return {x.data(), mask.data(), y.data(), static_cast<int>(hx.size()),
          static_cast<int>(hmask.size())};
}

std::string Conv1dProblem::verify(const Conv1dVariant& v, const std::vector<double>& expected,
                                  double tolerance_scale, cudaStream_t stream) {
  if (v.prepare) v.prepare(hmask);
  CUDA_CHECK(cudaMemsetAsync(y.data(), 0xFF, y.bytes(), stream));
  v.run(args(), stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  auto tol = conv1d_tolerance(static_cast<int>(hmask.size()), 1.0, 1.0);
  tol.atol *= tolerance_scale;
  const auto r = cudalab::compare(y.download(), expected, tol, 1);
  if (r.ok()) return "";
  return std::to_string(r.mismatches) + " wrong element(s), first at index " +
         std::to_string(r.first.front().index);
}

namespace {

struct Options {
  int width = 1 << 24;
  int mask_width = 9;
  std::uint64_t seed = 1;
  std::string impl = "student";
  bool bench = false;
  std::string json;
};

Options parse(int argc, char** argv, const RunnerSpec& spec) {
  cxxopts::Options cli(spec.program, spec.description);
  using cxxopts::value;
  // clang-format off
  cli.add_options()
      ("width", "number of elements of x and y", value<std::string>()->default_value("16777216"))
      ("mask-width", "mask width (odd)", value<std::string>()->default_value("9"))
      ("seed", "seed of the generated input", value<std::string>()->default_value("1"))
      ("impl", "student or reference", value<std::string>()->default_value("student"))
      ("bench", "benchmark every variant over sizes and mask widths");
  // clang-format on
  const cxxopts::ParseResult r =
      cudalab::parse_runner_command_line(cli, "write results as JSON to this file", argc, argv);
  Options o;
  o.width = cudalab::int_option(r, "width", 1, INT_MAX);
  const auto mask = cudalab::parse_int_in_range(r["mask-width"].as<std::string>(), "--mask-width",
                                                -1000000, 1000001);
  cudalab::require_odd_positive(mask, "--mask-width");
  if (spec.max_mask_width > 0 && mask > spec.max_mask_width)
    throw cudalab::UsageError("--mask-width " + std::to_string(mask) + " is wider than " +
                              std::to_string(spec.max_mask_width) + ": " + spec.mask_limit);
  o.mask_width = static_cast<int>(mask);
  o.seed = cudalab::parse_seed(r);
  o.impl = cudalab::parse_impl(r);
  o.bench = r.count("bench") > 0;
  if (r.count("json")) o.json = r["json"].as<std::string>();
  return o;
}

double gbs(int width, double ms) {
  return 2.0 * sizeof(float) * width / (ms * 1e-3) / 1e9;
}

int run_once(const Options& o, const RunnerSpec& spec) {
  cudalab::require_device_memory(2 * sizeof(float) * static_cast<std::size_t>(o.width),
                                 "--width " + std::to_string(o.width));
  const cudalab::DeviceInfo dev = cudalab::open_device();
  Conv1dProblem p(o.width, o.mask_width, o.seed);
  cudalab::Stream stream;
  const Conv1dVariant& v = spec.variants.at(o.impl == "student" ? 0 : 1);
  const std::string wrong = p.verify(v, conv1d_cpu(p.hx, p.hmask), 1.0, stream.get());
  char label[64];
  std::snprintf(label, sizeof label, "%-10s width %d, mask %d", o.impl.c_str(), o.width,
                o.mask_width);
  if (!wrong.empty()) {
    cudalab::print_not_timed(label, wrong);  // like the grader: a wrong result is not timed
    return cudalab::kExitFailure;
  }
  const auto t = cudalab::time_launch([&](cudaStream_t s) { v.run(p.args(), s); }, stream.get());
  cudalab::print_bandwidth_result(label, t, gbs(o.width, t.median_ms), dev);
  if (!o.json.empty())
    cudalab::write_run_json(
        o.json, spec.lab, dev,
        [&](cudalab::JsonWriter& w) {
          w.field("impl", o.impl).field("width", o.width).field("mask_width", o.mask_width);
        },
        o.seed, t.median_ms, gbs(o.width, t.median_ms));
  return cudalab::kExitOk;
}

struct Row {
  std::string variant;
  int width = 0, mask_width = 0;
  double ms = 0, rse = 0;
  std::string status;  // ok | wrong: ...
};

int run_bench(const Options& o, const RunnerSpec& spec) {
  const cudalab::DeviceInfo dev = cudalab::open_device();
  std::printf("\n%-14s %11s %5s ", "variant", "width", "mask");
  cudalab::print_bandwidth_header_columns();
  std::vector<Row> rows;
  cudalab::Stream stream;
  for (const int mask_width : {3, 9, 31}) {
    for (int log2w = 16; log2w <= 28; log2w += 2) {
      const int width = 1 << log2w;
      Conv1dProblem p(width, mask_width, cudalab::derive_seed(o.seed, 100 * mask_width + log2w));
      // The CPU reference up to 2^24; above, the reference's output (both are within the
      // tolerance of the exact result, so they agree within twice it).
      std::vector<double> expected;
      double scale = 1.0;
      if (log2w <= 24) {
        expected = conv1d_cpu(p.hx, p.hmask);
      } else {
        const Conv1dVariant& ref = spec.variants.at(1);
        if (ref.prepare) ref.prepare(p.hmask);
        ref.run(p.args(), stream.get());
        const auto out = p.y.download();
        expected.assign(out.begin(), out.end());
        scale = 2.0;
      }
      std::vector<cudalab::Launch> launches;
      std::vector<Row> config;
      for (const auto& v : spec.variants) {
        const std::string wrong = p.verify(v, expected, scale, stream.get());
        config.push_back(
            {v.name, width, mask_width, 0, 0, wrong.empty() ? "ok" : "wrong: " + wrong});
        if (wrong.empty())
          launches.push_back([&p, run = v.run](cudaStream_t s) { run(p.args(), s); });
      }
      // Variants that keep the mask in constant memory were prepared with this mask above and
      // keep it: every implementation owns its own __constant__ symbol.
      cudalab::time_rows(config, cudalab::ok_rows(config), launches, stream.get());
      for (auto& row : config) {
        std::printf("%-14s %11d %5d ", row.variant.c_str(), width, mask_width);
        cudalab::print_bandwidth_columns(row.status, row.ms, gbs(width, row.ms), dev);
        rows.push_back(row);
      }
    }
  }
  if (!o.json.empty()) {
    cudalab::JsonWriter w;
    w.begin_object().field("lab", spec.lab).field("bytes_per_element", 8);
    cudalab::write_device_field(w, dev);
    cudalab::write_rows_field(w, rows, [&](const Row& r) {
      w.field("variant", r.variant).field("width", r.width).field("mask_width", r.mask_width);
      cudalab::write_status_and_bandwidth(w, r.status, r.ms, r.rse, gbs(r.width, r.ms), dev);
    });
    w.end_object();
    cudalab::save_json(w, o.json);
  }
  return cudalab::kExitOk;
}

}  // namespace

int runner_main(int argc, char** argv, const RunnerSpec& spec) {
  return cudalab::guarded_main(spec.program.c_str(), [&] {
    const Options o = parse(argc, argv, spec);
    cudalab::require_cuda_device();
    return o.bench || spec.bench_only ? run_bench(o, spec) : run_once(o, spec);
  });
}

}  // namespace conv1d
