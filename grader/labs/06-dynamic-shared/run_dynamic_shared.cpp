// lab06-dynamic-shared: runs part 1 (reverse) or part 2 (the convolution with a run-time tile) of
// lab 06 on generated data, verifies it against the CPU reference and times it; --bench compares
// the student's code and the reference: the reverse over sizes, the convolution over tile widths
// and masks (the lab's experiment: how wide should a tile be?).
//
//   lab06-dynamic-shared --part reverse -n 16777216 --impl student
//   lab06-dynamic-shared --part conv --width 16777216 --mask-width 9 --tile 0
//   lab06-dynamic-shared --bench --json bench.json
//
// Bandwidth counts the minimum DRAM traffic of one run: the input read once and the output
// written once (8 bytes per element for both parts). "% copy" is that rate over the copy
// bandwidth measured at start-up in the same process. A tile the device cannot hold is bad
// input: the implementation refuses it (std::invalid_argument) and the runner exits with 2.
#include <climits>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "conv1d_cpu.h"
#include "conv1d_runner.h"
#include "cudalab/cli.h"
#include "cudalab/cli_options.h"
#include "cudalab/device_info.h"
#include "cudalab/json.h"
#include "cudalab/random.h"
#include "cudalab/runner_output.h"
#include "impls.h"

namespace {

constexpr const char* kProgram = "lab06-dynamic-shared";

struct Options {
  std::string part = "conv";
  int n = 1 << 24;
  int block_size = 0;
  int width = 1 << 24;
  int mask_width = 9;
  int tile_width = 0;
  std::uint64_t seed = 1;
  std::string impl = "student";
  bool bench = false;
  std::string json;
};

Options parse(int argc, char** argv) {
  cxxopts::Options cli(kProgram, "Lab 06: dynamic shared memory (reverse, run-time tiles)");
  using cxxopts::value;
  // clang-format off
  cli.add_options()
      ("part", "reverse or conv", value<std::string>()->default_value("conv"))
      ("n,size", "reverse: number of elements", value<std::string>()->default_value("16777216"))
      ("block", "reverse: threads per block, 0 = the implementation's choice",
       value<std::string>()->default_value("0"))
      ("width", "conv: number of elements of x and y", value<std::string>()->default_value("16777216"))
      ("mask-width", "conv: mask width (odd)", value<std::string>()->default_value("9"))
      ("tile", "conv: output tile width, 0 = the implementation's choice",
       value<std::string>()->default_value("0"))
      ("seed", "seed of the generated input", value<std::string>()->default_value("1"))
      ("impl", "student or reference", value<std::string>()->default_value("student"))
      ("bench", "benchmark both parts: student and reference, sizes, tiles and masks");
  // clang-format on
  const cxxopts::ParseResult r =
      cudalab::parse_runner_command_line(cli, "write results as JSON to this file", argc, argv);
  Options o;
  o.part = cudalab::parse_either(r["part"].as<std::string>(), "--part", "reverse", "conv");
  o.n = cudalab::int_option(r, "size", 1, INT_MAX, "-n/--size");
  o.block_size = cudalab::int_option(r, "block", 0, 1024);
  o.width = cudalab::int_option(r, "width", 1, INT_MAX);
  const auto mask = cudalab::parse_int_in_range(r["mask-width"].as<std::string>(), "--mask-width",
                                                -1000000000, 1000000001);
  cudalab::require_odd_positive(mask, "--mask-width");
  o.mask_width = static_cast<int>(mask);
  o.tile_width = cudalab::int_option(r, "tile", 0, INT_MAX);
  o.seed = cudalab::parse_seed(r);
  o.impl = cudalab::parse_impl(r);
  o.bench = r.count("bench") > 0;
  if (r.count("json")) o.json = r["json"].as<std::string>();
  return o;
}

double gbs(long long elements, double ms) {
  return 8.0 * elements / (ms * 1e-3) / 1e9;  // 4 bytes read + 4 bytes written per element
}

const lab06::ReverseVariant& reverse_variant(const std::string& impl) {
  return impl == "student" ? lab06::kCandidateReverse : lab06::kReferenceReverse;
}

conv1d::Conv1dVariant conv_variant(const std::string& impl, int tile_width) {
  return impl == "student" ? lab06::candidate_conv(tile_width) : lab06::reference_conv(tile_width);
}

int chosen_tile(const std::string& impl, int mask_width) {
  return impl == "student" ? lab06::candidate::choose_tile_width(mask_width)
                           : lab06::reference::choose_tile_width(mask_width);
}

std::size_t shared_bytes(const std::string& impl, int tile_width, int mask_width) {
  return impl == "student" ? lab06::candidate::conv_shared_bytes(tile_width, mask_width)
                           : lab06::reference::conv_shared_bytes(tile_width, mask_width);
}

// Device copies of a reverse problem; "" when a run of `v` is exact, else a short reason.
struct ReverseProblem {
  std::vector<int> hin, expected;
  cudalab::DeviceBuffer<int> in, out;
  ReverseProblem(int n, std::uint64_t seed)
      : hin(lab06::reverse_input(n, seed)),
        expected(lab06::reverse_cpu(hin)),
        in(hin),
        out(hin.size()) {}
  std::string verify(const lab06::ReverseVariant& v, int block_size, cudaStream_t stream) {
    CUDA_CHECK(cudaMemsetAsync(out.data(), 0xFF, out.bytes(), stream));
    v.run(in.data(), out.data(), static_cast<int>(hin.size()), block_size, stream);
    CUDA_CHECK(cudaStreamSynchronize(stream));
    const std::string wrong = lab06::describe_int_mismatches(out.download(), expected, 1);
    return wrong.substr(0, wrong.find('\n'));
  }
  cudalab::Launch launch(const lab06::ReverseVariant& v, int block_size) {
    return [this, run = v.run, block_size](cudaStream_t s) {
      run(in.data(), out.data(), static_cast<int>(hin.size()), block_size, s);
    };
  }
};

int run_reverse(const Options& o, const cudalab::DeviceInfo& dev) {
  cudalab::require_device_memory(2 * sizeof(int) * static_cast<std::size_t>(o.n),
                                 "-n " + std::to_string(o.n));
  ReverseProblem p(o.n, o.seed);
  cudalab::Stream stream;
  const lab06::ReverseVariant& v = reverse_variant(o.impl);
  const std::string wrong = p.verify(v, o.block_size, stream.get());
  char label[64];
  std::snprintf(label, sizeof label, "%-10s reverse n %d, block %d", o.impl.c_str(), o.n,
                o.block_size);
  if (!wrong.empty()) {
    cudalab::print_not_timed(label, wrong);
    return cudalab::kExitFailure;
  }
  const auto t = cudalab::time_launch(p.launch(v, o.block_size), stream.get());
  cudalab::print_bandwidth_result(label, t, gbs(o.n, t.median_ms), dev);
  if (!o.json.empty())
    cudalab::write_run_json(
        o.json, "06-dynamic-shared", dev,
        [&](cudalab::JsonWriter& w) {
          w.field("part", "reverse")
              .field("impl", o.impl)
              .field("n", o.n)
              .field("block_size", o.block_size);
        },
        o.seed, t.median_ms, gbs(o.n, t.median_ms));
  return cudalab::kExitOk;
}

int run_conv(const Options& o, const cudalab::DeviceInfo& dev) {
  cudalab::require_device_memory(2 * sizeof(float) * static_cast<std::size_t>(o.width),
                                 "--width " + std::to_string(o.width));
  conv1d::Conv1dProblem p(o.width, o.mask_width, o.seed);
  const std::vector<double> expected = conv1d::conv1d_cpu(p.hx, p.hmask);
  cudalab::Stream stream;
  const conv1d::Conv1dVariant v = conv_variant(o.impl, o.tile_width);
  std::string wrong;
  int tile = o.tile_width;
  try {
    if (tile == 0) tile = chosen_tile(o.impl, o.mask_width);
    wrong = p.verify(v, expected, 1.0, stream.get());
  } catch (const std::invalid_argument& e) {  // a request the device cannot hold
    throw cudalab::UsageError(e.what());
  }
  const std::string label = o.impl + " conv width " + std::to_string(o.width) + ", mask " +
                            std::to_string(o.mask_width) + ", tile " + std::to_string(tile) +
                            (o.tile_width == 0 ? " (chosen)" : "") + ", " +
                            std::to_string(shared_bytes(o.impl, tile, o.mask_width)) +
                            " bytes of shared memory per block";
  if (!wrong.empty()) {
    cudalab::print_not_timed(label, wrong);
    return cudalab::kExitFailure;
  }
  const auto t = cudalab::time_launch([&](cudaStream_t s) { v.run(p.args(), s); }, stream.get());
  cudalab::print_bandwidth_result(label, t, gbs(o.width, t.median_ms), dev);
  if (!o.json.empty())
    cudalab::write_run_json(
        o.json, "06-dynamic-shared", dev,
        [&](cudalab::JsonWriter& w) {
          w.field("part", "conv")
              .field("impl", o.impl)
              .field("width", o.width)
              .field("mask_width", o.mask_width)
              .field("tile_width", tile)
              .field("chosen", o.tile_width == 0);
        },
        o.seed, t.median_ms, gbs(o.width, t.median_ms));
  return cudalab::kExitOk;
}

struct Row {
  std::string part, variant;
  long long size = 0;  // n or width
  int block_size = 0, mask_width = 0, tile_width = 0;
  bool chosen = false;
  double ms = 0, rse = 0;
  std::string status;  // ok | wrong: ... | refused: ...
};

void print_row(const Row& r, const cudalab::DeviceInfo& dev) {
  char what[64];
  if (r.part == "reverse")
    std::snprintf(what, sizeof what, "block %d", r.block_size);
  else
    std::snprintf(what, sizeof what, "mask %d, tile %d%s", r.mask_width, r.tile_width,
                  r.chosen ? "*" : "");
  std::printf("%-8s %-10s %11lld %-24s ", r.part.c_str(), r.variant.c_str(), r.size, what);
  cudalab::print_bandwidth_columns(r.status, r.ms, gbs(r.size, r.ms), dev);
}

int run_bench(const Options& o, const cudalab::DeviceInfo& dev) {
  std::printf("%-8s %-10s %11s %-24s ", "part", "variant", "size", "");
  cudalab::print_bandwidth_header_columns();
  std::vector<Row> all;
  cudalab::Stream stream;
  const std::vector<std::string> impls{"student", "reference"};
  for (int log2n = 20; log2n <= 28; log2n += 2) {
    ReverseProblem p(1 << log2n, cudalab::derive_seed(o.seed, log2n));
    std::vector<Row> rows;
    std::vector<cudalab::Launch> launches;
    for (const auto& impl : impls) {
      const std::string wrong = p.verify(reverse_variant(impl), 0, stream.get());
      rows.push_back({"reverse", impl, 1LL << log2n, 0, 0, 0, false, 0, 0,
                      wrong.empty() ? "ok" : "wrong: " + wrong});
      if (wrong.empty()) launches.push_back(p.launch(reverse_variant(impl), 0));
    }
    cudalab::time_rows(rows, cudalab::ok_rows(rows), launches, stream.get());
    for (const auto& r : rows) {
      print_row(r, dev);
      all.push_back(r);
    }
  }
  // The convolution at width 2^26 over tile widths: from narrow tiles (much halo per output)
  // to tiles that need the opt-in, and each implementation's own choice (marked *).
  const int width = 1 << 26;
  for (const int mask_width : {3, 9, 31}) {
    conv1d::Conv1dProblem p(width, mask_width, cudalab::derive_seed(o.seed, 100 + mask_width));
    const std::vector<double> expected = conv1d::conv1d_cpu(p.hx, p.hmask);
    std::vector<Row> rows;
    std::vector<cudalab::Launch> launches;
    for (const auto& impl : impls) {
      for (const int tile : {64, 256, 1024, 4096, 16384, 0}) {
        Row r{"conv", impl, width, 0, mask_width, tile, tile == 0, 0, 0, "ok"};
        const conv1d::Conv1dVariant v = conv_variant(impl, tile);
        try {
          if (tile == 0) r.tile_width = chosen_tile(impl, mask_width);
          const std::string wrong = p.verify(v, expected, 1.0, stream.get());
          if (!wrong.empty()) r.status = "wrong: " + wrong;
        } catch (const std::invalid_argument& e) {
          r.status = std::string("refused: ") + e.what();
        }
        if (r.status == "ok")
          launches.push_back([&p, run = v.run](cudaStream_t s) { run(p.args(), s); });
        rows.push_back(r);
      }
    }
    cudalab::time_rows(rows, cudalab::ok_rows(rows), launches, stream.get());
    for (const auto& r : rows) {
      print_row(r, dev);
      all.push_back(r);
    }
  }
  if (!o.json.empty()) {
    cudalab::JsonWriter w;
    w.begin_object().field("lab", "06-dynamic-shared").field("bytes_per_element", 8);
    cudalab::write_device_field(w, dev);
    cudalab::write_rows_field(w, all, [&](const Row& r) {
      w.field("part", r.part).field("variant", r.variant);
      if (r.part == "reverse") {
        w.field("n", static_cast<std::int64_t>(r.size)).field("block_size", r.block_size);
      } else {
        w.field("width", static_cast<std::int64_t>(r.size))
            .field("mask_width", r.mask_width)
            .field("tile_width", r.tile_width)
            .field("chosen", r.chosen);
      }
      cudalab::write_status_and_bandwidth(w, r.status, r.ms, r.rse, gbs(r.size, r.ms), dev);
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
    return o.part == "reverse" ? run_reverse(o, dev) : run_conv(o, dev);
  });
}
