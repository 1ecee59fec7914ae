// lab05-conv-texture: runs lab 05 on the course's test signal, verifies it against the CPU
// reference and times it; the texture is loaded before timing (not timed).
//
//   lab05-conv-texture --part conv --width 4096 --height 4096 --radius 4 --impl student
//   lab05-conv-texture --part rotate --width 1024 --height 768 --angle 30 --mode wrap
//   lab05-conv-texture --bench --json bench.json
//
// --part conv runs both variants of the implementation (global and texture); --bench runs the
// course's timing table on 4096 x 4096 for radii 1, 4 and 8: global, __ldg global and texture,
// for the student's code and the reference. Bandwidth counts the minimum DRAM traffic of one run:
// the image read once and the output written once (8 bytes per pixel); "% copy" is that rate
// over the copy bandwidth measured at start-up in the same process.
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include "cudalab/cli.h"
#include "cudalab/cli_options.h"
#include "cudalab/device_info.h"
#include "cudalab/json.h"
#include "cudalab/runner_output.h"
#include "impls.h"
#include "ldg_baseline.h"
#include "texture_cpu.h"

namespace {

constexpr const char* kProgram = "lab05-conv-texture";
constexpr int kMaxSide = 32768;              // within every GPU's 2D texture limits
constexpr long long kMaxPixels = 1LL << 28;  // 1 GiB per float image

struct Options {
  std::string part = "conv";
  int width = 1024, height = 1024, radius = 4;
  double degrees = 30.0;
  cudaTextureAddressMode mode = cudaAddressModeWrap;
  std::string impl = "student";
  bool bench = false;
  std::string json;
};

double parse_double(const std::string& text, const std::string& what) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
    throw cudalab::UsageError(what + " must be a finite number, got '" + text + "'");
  return v;
}

Options parse(int argc, char** argv) {
  cxxopts::Options cli(kProgram, "Lab 05: texture memory (2D convolution, rotation)");
  using cxxopts::value;
  // clang-format off
  cli.add_options()
      ("part", "conv or rotate", value<std::string>()->default_value("conv"))
      ("width", "image width in pixels", value<std::string>()->default_value("1024"))
      ("height", "image height in pixels", value<std::string>()->default_value("1024"))
      ("radius", "conv: mask radius R (a (2R+1) x (2R+1) Gaussian)",
       value<std::string>()->default_value("4"))
      ("angle", "rotate: angle in degrees", value<std::string>()->default_value("30"))
      ("mode", "rotate: address mode, wrap, clamp, border or mirror",
       value<std::string>()->default_value("wrap"))
      ("impl", "student or reference", value<std::string>()->default_value("student"))
      ("bench", "the course's table: global, __ldg and texture at 4096 x 4096, radii 1, 4, 8");
  // clang-format on
  const cxxopts::ParseResult r =
      cudalab::parse_runner_command_line(cli, "write results as JSON to this file", argc, argv);
  Options o;
  o.part = cudalab::parse_either(r["part"].as<std::string>(), "--part", "conv", "rotate");
  o.width = cudalab::int_option(r, "width", 1, kMaxSide);
  o.height = cudalab::int_option(r, "height", 1, kMaxSide);
  if (static_cast<long long>(o.width) * o.height > kMaxPixels)
    throw cudalab::UsageError("--width x --height must be at most 2^28 pixels");
  o.radius = cudalab::int_option(r, "radius", 0, lab05::kMaxRadius);
  o.degrees = parse_double(r["angle"].as<std::string>(), "--angle");
  try {
    o.mode = lab05::parse_mode(r["mode"].as<std::string>());
  } catch (const std::invalid_argument& e) {
    throw cudalab::UsageError(std::string("--mode: ") + e.what());
  }
  o.impl = cudalab::parse_either(r["impl"].as<std::string>(), "--impl", "student", "reference");
  o.bench = r.count("bench") > 0;
  if (r.count("json")) o.json = r["json"].as<std::string>();
  return o;
}

double gbs(long long pixels, double ms) {
  return 8.0 * pixels / (ms * 1e-3) / 1e9;  // 4 bytes read + 4 bytes written per pixel
}

struct Row {
  std::string part, variant;
  int width = 0, height = 0, radius = 0;
  double degrees = 0;
  std::string mode;
  double ms = 0, rse = 0;
  std::string status;  // ok | wrong: ...
};

void print_row(const Row& r, const cudalab::DeviceInfo& dev) {
  char what[64];
  if (r.part == "conv")
    std::snprintf(what, sizeof what, "radius %d", r.radius);
  else
    std::snprintf(what, sizeof what, "%g deg, %s", r.degrees, r.mode.c_str());
  const long long pixels = static_cast<long long>(r.width) * r.height;
  std::printf("%-6s %-18s %5d x %-5d %-16s ", r.part.c_str(), r.variant.c_str(), r.width, r.height,
              what);
  cudalab::print_bandwidth_columns(r.status, r.ms, gbs(pixels, r.ms), dev);
}

void print_header() {
  std::printf("%-6s %-18s %13s %-16s ", "part", "variant", "size", "");
  cudalab::print_bandwidth_header_columns();
}

void write_json(const std::string& path, const std::vector<Row>& rows,
                const cudalab::DeviceInfo& dev) {
  cudalab::JsonWriter w;
  w.begin_object().field("lab", "05-conv-texture").field("bytes_per_element", 8);
  cudalab::write_device_field(w, dev);
  cudalab::write_rows_field(w, rows, [&](const Row& r) {
    const long long pixels = static_cast<long long>(r.width) * r.height;
    w.field("part", r.part)
        .field("variant", r.variant)
        .field("width", r.width)
        .field("height", r.height);
    if (r.part == "conv")
      w.field("radius", r.radius);
    else
      w.field("degrees", r.degrees).field("mode", r.mode);
    cudalab::write_status_and_bandwidth(w, r.status, r.ms, r.rse, gbs(pixels, r.ms), dev);
  });
  w.end_object();
  cudalab::save_json(w, path);
}

// Verifies each variant on the case (the texture loaded first), times the correct ones
// interleaved, and returns one row per variant.
std::vector<Row> run_conv_variants(const lab05::ConvCase& c,
                                   const std::vector<const lab05::ConvVariant*>& variants) {
  lab05::ConvPerfCase perf(c.w, c.radius);  // square images only in the bench
  std::vector<Row> rows;
  std::vector<cudalab::Launch> launches;
  std::vector<std::size_t> timed;
  cudalab::Stream stream;
  for (const auto* v : variants)
    cudalab::add_checked_row(rows, timed, launches,
                             Row{"conv", v->name, c.w, c.h, c.radius, 0, "", 0, 0, "ok"},
                             lab05::run_conv_case(c, *v), [&] { return perf.launch(*v); });
  cudalab::time_rows(rows, timed, launches, stream.get());
  return rows;
}

int run_conv(const Options& o, const cudalab::DeviceInfo& dev) {
  const lab05::ConvCase c = lab05::signal_case(o.width, o.height, o.radius);
  const bool student = o.impl == "student";
  const lab05::ConvVariant& global = student ? lab05::kCandidateGlobal : lab05::kReferenceGlobal;
  const lab05::ConvVariant& texture = student ? lab05::kCandidateTexture : lab05::kReferenceTexture;
  // Non-square sizes: time on the case's own buffers.
  std::vector<Row> rows;
  cudalab::Stream stream;
  cudalab::DeviceBuffer<float> img(c.img), mask(c.mask), out(c.img.size());
  for (const auto* v : {&global, &texture}) {
    Row r{"conv", v->name, c.w, c.h, c.radius, 0, "", 0, 0, "ok"};
    const std::string wrong = lab05::run_conv_case(c, *v);
    if (!wrong.empty()) {
      r.status = "wrong: " + wrong.substr(0, wrong.find('\n'));
    } else {
      if (v->texture()) v->prepare(c.img.data(), c.w, c.h);
      const auto t = cudalab::time_launch(
          [&, run = v->run](cudaStream_t s) {
            run(img.data(), mask.data(), out.data(), c.w, c.h, c.radius, s);
          },
          stream.get());
      r.ms = t.median_ms;
      r.rse = t.rse;
    }
    rows.push_back(r);
  }
  print_header();
  bool all_ok = true;
  for (const auto& r : rows) {
    print_row(r, dev);
    all_ok = all_ok && r.status == "ok";
  }
  if (!o.json.empty()) write_json(o.json, rows, dev);
  return all_ok ? cudalab::kExitOk : cudalab::kExitFailure;
}

int run_rotate(const Options& o, const cudalab::DeviceInfo& dev) {
  const lab05::RotationCase c = lab05::rotation_case(o.width, o.height, o.degrees, o.mode);
  const lab05::RotationVariant& v =
      o.impl == "student" ? lab05::kCandidateRotation : lab05::kReferenceRotation;
  Row r{"rotate", v.name, c.w, c.h, 0, o.degrees, lab05::mode_name(o.mode), 0, 0, "ok"};
  const std::string wrong = lab05::run_rotation_case(c, v);
  if (!wrong.empty()) {
    r.status = "wrong: " + wrong.substr(0, wrong.find('\n'));
  } else {
    cudalab::Stream stream;
    cudalab::DeviceBuffer<float> out(c.img.size());
    v.prepare(c.img.data(), c.w, c.h, c.mode);
    const auto t = cudalab::time_launch(
        [&](cudaStream_t s) { v.run(out.data(), c.w, c.h, c.theta(), s); }, stream.get());
    r.ms = t.median_ms;
    r.rse = t.rse;
  }
  print_header();
  print_row(r, dev);
  if (!o.json.empty()) write_json(o.json, {r}, dev);
  return r.status == "ok" ? cudalab::kExitOk : cudalab::kExitFailure;
}

int run_bench(const Options& o, const cudalab::DeviceInfo& dev) {
  print_header();
  std::vector<Row> all;
  const std::vector<const lab05::ConvVariant*> variants{
      &lab05::kCandidateGlobal, &lab05::baseline::kLdgGlobal, &lab05::kCandidateTexture,
      &lab05::kReferenceGlobal, &lab05::kReferenceTexture};
  for (const int radius : {1, 4, 8}) {
    const lab05::ConvCase c = lab05::signal_case(4096, 4096, radius);
    for (const auto& r : run_conv_variants(c, variants)) {
      print_row(r, dev);
      all.push_back(r);
    }
  }
  if (!o.json.empty()) write_json(o.json, all, dev);
  return cudalab::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::guarded_main(kProgram, [&] {
    const Options o = parse(argc, argv);
    const cudalab::DeviceInfo dev = cudalab::open_device();
    if (o.bench) return run_bench(o, dev);
    return o.part == "conv" ? run_conv(o, dev) : run_rotate(o, dev);
  });
}
