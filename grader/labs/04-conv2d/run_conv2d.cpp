// lab04-conv2d: applies a named filter of the course's table to an image (PNG, JPEG, PGM/PPM, or
// a generated one), checks the GPU result against the CPU reference, and writes the filtered
// image as PNG.
//
//   lab04-conv2d --input photo.png --filter sharpen --output out.png [--impl reference]
//   lab04-conv2d --width 1920 --height 1080 --channels 3 --filter gaussian-5x5
//   lab04-conv2d --list-filters
//   lab04-conv2d --bench --json bench.json
//
// Images are processed as 8 bits per value (conv2d_8bit: clamped to [0, 255], rounded half up).
// --bench times the float kernel on a grayscale 8192 x 8192 image (--size to change it) with
// sharpen (3 x 3), gaussian-5x5 and a random 9 x 9 mask: the student's kernel, the reference,
// a naive global-memory kernel and cuDNN (FP32, no TF32; when the build found it), side by side
// in one process; plus the 8-bit RGB path of the student and the reference. Bandwidth counts
// the minimum DRAM traffic of one run, the image read once and the output written once
// (8 bytes a value for float, 2 for 8-bit); "% copy" is that rate over the copy bandwidth
// measured at start-up in the same process.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "baselines.h"
#include "conv2d_cpu.h"
#include "cudalab/cli.h"
#include "cudalab/cli_options.h"
#include "cudalab/device_info.h"
#include "cudalab/json.h"
#include "cudalab/random.h"
#include "cudalab/runner_output.h"
#include "image_io.h"
#include "impls.h"

namespace {

constexpr const char* kProgram = "lab04-conv2d";
constexpr int kMaxSide = 65536;
constexpr long long kMaxValues = 1LL << 30;  // 4 GiB per float image

struct Options {
  std::string input, output, json;
  int width = 1024, height = 768, channels = 1;
  int bench_side = lab04::PerfCase::kSide;
  std::string filter = "sharpen";
  std::string impl = "student";
  std::uint64_t seed = 1;
  bool bench = false, list_filters = false;
};

Options parse(int argc, char** argv) {
  cxxopts::Options cli(kProgram, "Lab 04: 2D convolution of images with the course's filters");
  using cxxopts::value;
  // clang-format off
  cli.add_options()
      ("input", "image to filter: PNG, JPEG or PGM/PPM (default: a generated one)",
       value<std::string>())
      ("output", "write the filtered image here (PNG)", value<std::string>())
      ("filter", "filter name (--list-filters)", value<std::string>()->default_value("sharpen"))
      ("list-filters", "print the course's filters and exit")
      ("width", "generated image: width", value<std::string>()->default_value("1024"))
      ("height", "generated image: height", value<std::string>()->default_value("768"))
      ("channels", "generated image: 1 (gray) or 3 (RGB)",
       value<std::string>()->default_value("1"))
      ("seed", "generated image: seed", value<std::string>()->default_value("1"))
      ("impl", "student or reference", value<std::string>()->default_value("student"))
      ("bench", "time student, reference, naive and cuDNN side by side")
      ("size", "bench: image side", value<std::string>()->default_value("8192"));
  // clang-format on
  const cxxopts::ParseResult r = cudalab::parse_runner_command_line(
      cli, "bench: write results as JSON to this file", argc, argv);
  Options o;
  o.list_filters = r.count("list-filters") > 0;
  o.filter = r["filter"].as<std::string>();
  try {
    lab04::filter_by_name(o.filter);
  } catch (const std::invalid_argument& e) {
    throw cudalab::UsageError(std::string("--filter: ") + e.what());
  }
  o.width = cudalab::int_option(r, "width", 1, kMaxSide);
  o.height = cudalab::int_option(r, "height", 1, kMaxSide);
  o.channels =
      std::stoi(cudalab::parse_choice(r["channels"].as<std::string>(), "--channels", {"1", "3"}));
  if (static_cast<long long>(o.width) * o.height * o.channels > kMaxValues)
    throw cudalab::UsageError("--width x --height x --channels must be at most 2^30 values");
  o.seed = cudalab::parse_seed(r);
  o.impl = cudalab::parse_impl(r);
  o.bench = r.count("bench") > 0;
  o.bench_side = cudalab::int_option(r, "size", 256, 16384);
  if (r.count("input")) o.input = r["input"].as<std::string>();
  o.output = cudalab::writable_path_option(r, "output");
  o.json = cudalab::writable_path_option(r, "json");
  return o;
}

int list_filters() {
  for (const lab04::Filter& f : lab04::course_filters()) {
    std::cout << f.name << " (" << f.width << " x " << f.width << "): " << f.description << "\n";
    for (int y = 0; y < f.width; ++y) {
      std::cout << "   ";
      for (int x = 0; x < f.width; ++x) std::printf(" %9.5f", f.mask[y * f.width + x]);
      std::cout << "\n";
    }
  }
  return cudalab::kExitOk;
}

// The image to filter: the --input file (read before any GPU work, so a bad file is a usage
// error) or a seeded random one.
lab04::Image input_image(const Options& o) {
  if (!o.input.empty()) {
    try {
      return lab04::load_image(o.input);
    } catch (const lab04::ImageError& e) {
      throw cudalab::UsageError(std::string("--input: ") + e.what());
    }
  }
  lab04::Image image{o.width, o.height, o.channels, {}};
  const std::vector<float> v = cudalab::random_small_ints(
      static_cast<std::size_t>(o.width) * o.height * o.channels, o.seed, 0, 255);
  image.pixels.assign(v.begin(), v.end());
  return image;
}

int run_image(const Options& o, const lab04::Image& image) {
  const lab04::Filter& f = lab04::filter_by_name(o.filter);
  const lab04::Conv2dVariant& v = o.impl == "student" ? lab04::kCandidate : lab04::kReference;
  lab04::ByteCase c{f.name + " on " + (o.input.empty() ? "a generated image" : o.input),
                    image.width,
                    image.height,
                    image.channels,
                    image.pixels,
                    f.mask,
                    f.width,
                    0};
  std::cout << c.name << " (" << image.width << " x " << image.height << ", "
            << (image.channels == 3 ? "RGB" : "gray") << "), " << v.name << "\n";
  const std::string wrong = lab04::run_case(c, v);
  if (!wrong.empty()) {
    std::cout << "WRONG: " << wrong << "\n";
    return cudalab::kExitFailure;
  }
  std::cout << "matches the CPU reference exactly\n";

  // Time it and keep its output for the file.
  cudalab::DeviceBuffer<unsigned char> in(image.pixels), out(image.pixels.size());
  cudalab::Stream stream;
  v.set_mask(f.mask.data(), f.width);
  CUDA_CHECK(cudaDeviceSynchronize());
  const cudalab::Timing t = cudalab::time_launch(
      [&](cudaStream_t s) {
        v.conv2d_8bit(in.data(), out.data(), image.width, image.height, image.channels, s);
      },
      stream.get());
  const double bytes = 2.0 * static_cast<double>(image.pixels.size());
  std::printf("%.4f ms (median), %.0f GB/s\n", t.median_ms, bytes / (t.median_ms * 1e-3) / 1e9);
  if (!o.output.empty()) {
    lab04::Image result{image.width, image.height, image.channels, out.download()};
    lab04::save_png(o.output, result);
    std::cout << "wrote " << o.output << "\n";
  }
  return cudalab::kExitOk;
}

// ---------------------------------------------------------------------------------------------
// Bench

struct Row {
  std::string variant, mask, element;
  int side = 0, channels = 1;
  double ms = 0, rse = 0, bytes = 0;
  std::string status = "ok";  // ok | wrong: ... | skipped: ...
};

double gbs(const Row& r) {
  return r.bytes / (r.ms * 1e-3) / 1e9;
}

void print_header() {
  std::printf("%-24s %-12s %-14s ", "variant", "mask", "image");
  cudalab::print_bandwidth_header_columns();
}

void print_row(const Row& r, const cudalab::DeviceInfo& dev) {
  char image[32];
  std::snprintf(image, sizeof image, "%d^2 %s %s", r.side, r.channels == 3 ? "RGB" : "gray",
                r.element.c_str());
  std::printf("%-24s %-12s %-14s ", r.variant.c_str(), r.mask.c_str(), image);
  cudalab::print_bandwidth_columns(r.status, r.ms, gbs(r), dev);
  std::fflush(stdout);
}

// Float, grayscale: student, reference, naive and cuDNN on one image and mask, each validated on
// bands of rows first, timed interleaved.
std::vector<Row> bench_float(int side, const std::string& mask_name, const std::vector<float>& mask,
                             int mask_width, lab04::PerfCase& perf) {
  perf.mask = mask;
  perf.mask_width = mask_width;
  const double bytes = 8.0 * side * side;
  std::vector<Row> rows;
  std::vector<cudalab::Launch> launches;
  std::vector<std::size_t> timed;
  for (const auto* v : {&lab04::kCandidate, &lab04::kReference, &lab04::baseline::kNaive}) {
    cudalab::add_checked_row(rows, timed, launches,
                             Row{v->name, mask_name, "float", side, 1, 0, 0, bytes, "ok"},
                             perf.validate(*v), [&] { return perf.launch(*v); });
  }
  std::unique_ptr<lab04::baseline::CudnnConv2d> cudnn;
  std::string why;
  Row cr{"cuDNN", mask_name, "float", side, 1, 0, 0, bytes, "ok"};
  if (!lab04::baseline::cudnn_available(&why)) {
    cr.status = "skipped: " + why;
    rows.push_back(cr);
  } else {
    try {
      cudnn = std::make_unique<lab04::baseline::CudnnConv2d>(side, side, mask, mask_width);
      cr.variant = "cuDNN " + cudnn->algorithm();
      // Validated like the others: wrap it as a variant whose mask is fixed.
      static lab04::baseline::CudnnConv2d* current = nullptr;
      current = cudnn.get();
      const lab04::Conv2dVariant v{cr.variant, [](const float*, int) {},
                                   [](const float* in, float* out, int, int, int, cudaStream_t s) {
                                     current->run(in, out, s);
                                   },
                                   nullptr};
      cudalab::add_checked_row(rows, timed, launches, cr, perf.validate(v),
                               [&] { return perf.launch(v); });
    } catch (const std::exception& e) {
      cr.status = std::string("skipped: ") + e.what();
      rows.push_back(cr);
    }
  }
  cudalab::Stream stream;
  cudalab::time_rows(rows, timed, launches, stream.get());
  return rows;
}

// 8-bit RGB: student and reference on a random image with the filter, validated on a small image
// first (exact), timed interleaved.
std::vector<Row> bench_8bit(int side, const lab04::Filter& f) {
  const std::size_t values = static_cast<std::size_t>(side) * side * 3;
  const std::vector<float> v = cudalab::random_small_ints(values, 7, 0, 255);
  const std::vector<std::uint8_t> pixels(v.begin(), v.end());
  cudalab::DeviceBuffer<unsigned char> in(pixels), out(values);
  std::vector<Row> rows;
  std::vector<cudalab::Launch> launches;
  std::vector<std::size_t> timed;
  const lab04::ByteCase check{
      f.name + " on 257 x 129 RGB",
      257,
      129,
      3,
      std::vector<std::uint8_t>(pixels.begin(), pixels.begin() + 257 * 129 * 3),
      f.mask,
      f.width,
      7};
  for (const auto* var : {&lab04::kCandidate, &lab04::kReference}) {
    cudalab::add_checked_row(
        rows, timed, launches,
        Row{var->name, f.name, "8-bit", side, 3, 0, 0, 2.0 * static_cast<double>(values), "ok"},
        lab04::run_case(check, *var), [&] {
          var->set_mask(f.mask.data(), f.width);
          CUDA_CHECK(cudaDeviceSynchronize());
          return [&in, &out, side, fn = var->conv2d_8bit](cudaStream_t s) {
            fn(in.data(), out.data(), side, side, 3, s);
          };
        });
  }
  cudalab::Stream stream;
  cudalab::time_rows(rows, timed, launches, stream.get());
  return rows;
}

void write_json(const std::string& path, const std::vector<Row>& rows,
                const cudalab::DeviceInfo& dev) {
  cudalab::JsonWriter w = cudalab::begin_lab_json("04-conv2d", dev);
  cudalab::write_rows_field(w, rows, [&](const Row& r) {
    w.field("variant", r.variant)
        .field("mask", r.mask)
        .field("element", r.element)
        .field("side", r.side)
        .field("channels", r.channels)
        .field("bytes", r.bytes);
    cudalab::write_status_and_bandwidth(w, r.status, r.ms, r.rse, gbs(r), dev);
  });
  w.end_object();
  cudalab::save_json(w, path);
}

int run_bench(const Options& o, const cudalab::DeviceInfo& dev) {
  const int side = o.bench_side;
  cudalab::require_device_memory(4 * sizeof(float) * static_cast<std::size_t>(side) * side,
                                 "--size " + std::to_string(side));
  print_header();
  std::vector<Row> all;
  lab04::PerfCase perf(1, side);
  const lab04::Filter& sharpen = lab04::filter_by_name("sharpen");
  const lab04::Filter& g5 = lab04::filter_by_name("gaussian-5x5");
  const std::vector<float> random9 = cudalab::random_floats(81, 9);
  struct MaskCase {
    std::string name;
    const std::vector<float>* mask;
    int width;
  };
  for (const MaskCase& m :
       {MaskCase{"sharpen 3x3", &sharpen.mask, 3}, MaskCase{"gaussian 5x5", &g5.mask, 5},
        MaskCase{"random 9x9", &random9, 9}})
    for (const Row& r : bench_float(side, m.name, *m.mask, m.width, perf)) {
      print_row(r, dev);
      all.push_back(r);
    }
  for (const Row& r : bench_8bit(side, g5)) {
    print_row(r, dev);
    all.push_back(r);
  }
  if (!o.json.empty()) write_json(o.json, all, dev);
  return cudalab::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::guarded_main(kProgram, [&] {
    const Options o = parse(argc, argv);
    if (o.list_filters) return list_filters();
    const lab04::Image image = o.bench ? lab04::Image{} : input_image(o);
    const cudalab::DeviceInfo dev = cudalab::open_device();
    if (o.bench) return run_bench(o, dev);
    return run_image(o, image);
  });
}
