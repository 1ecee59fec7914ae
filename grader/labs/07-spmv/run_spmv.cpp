// lab07-spmv: multiplies a sparse matrix (a Matrix Market file or a generated one) by a random x
// in each format, checks y against the double CPU reference row by row, and times it.
//
//   lab07-spmv --matrix pores_1.mtx [--format csr-vector] [--impl reference]
//   lab07-spmv --generate poisson2d --size 1024 [--format all]
//   lab07-spmv --bench [--json bench.json]             every matrix class, every format, cuSPARSE
//   lab07-spmv --bench --matrix big.mtx                 the same on one matrix
//
// --size is the grid side for poisson2d (rows = size^2) and poisson3d (rows = size^3), the number
// of rows (and columns) for the others. Figures: GFLOP/s counts 2 operations per entry; GB/s
// counts the effective bytes of one CSR SpMV, nnz * (4 + 4) + (rows + 1) * 4 + rows * 4 (y)
// + cols * 4 (x read once), for every format alike (spmv_check.h), so that the formats compare
// the same work; "% copy" is that rate over the copy bandwidth measured at start-up. With
// --impl reference and in --bench, the reference's column-sorted row panels
// (labs/07-spmv/panels.h, not a student format) run too, as the row "reference panels".
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "baselines.h"
#include "cudalab/cli.h"
#include "cudalab/cli_options.h"
#include "cudalab/device_info.h"
#include "cudalab/json.h"
#include "cudalab/random.h"
#include "cudalab/runner_output.h"
#include "cudalab/sparse/generators.h"
#include "cudalab/sparse/matrix_market.h"
#include "impls.h"
#undef CUDALAB_IMPL
#define CUDALAB_IMPL reference
#include "panels.h"  // the reference's extra format, timed in --bench
#undef CUDALAB_IMPL

namespace {

namespace sp = cudalab::sparse;
using lab07::Format;
using lab07::MatrixCase;

constexpr const char* kProgram = "lab07-spmv";

struct Options {
  std::string matrix_file, generate = "poisson2d", json, impl = "student";
  int size = 0;  // 0: the generator's default
  std::uint64_t seed = 1;
  std::vector<Format> formats;
  bool bench = false;
};

// Largest --size per generator: keeps every format of the matrix within a few GiB.
struct Generator {
  const char* name;
  int default_size;
  int max_size;
};
constexpr Generator kGenerators[] = {{"poisson2d", 1024, 4096},      {"poisson3d", 100, 256},
                                     {"powerlaw", 1 << 20, 1 << 23}, {"longrow", 1 << 20, 1 << 23},
                                     {"empty", 1 << 20, 1 << 23},    {"random", 1 << 20, 1 << 23}};

const Generator& generator(const std::string& name) {
  for (const Generator& g : kGenerators)
    if (name == g.name) return g;
  throw cudalab::UsageError("--generate: unknown matrix class '" + name +
                            "' (poisson2d, poisson3d, powerlaw, longrow, empty, random)");
}

Options parse(int argc, char** argv) {
  cxxopts::Options cli(kProgram, "Lab 07: sparse matrix-vector multiply in CSR, ELL, COO, HYB");
  using cxxopts::value;
  // clang-format off
  cli.add_options()
      ("matrix", "Matrix Market file (coordinate real/integer/pattern, general/symmetric)",
       value<std::string>())
      ("generate", "poisson2d, poisson3d, powerlaw, longrow, empty or random",
       value<std::string>())
      ("size", "generated matrix: grid side (poisson) or rows", value<std::string>())
      ("seed", "generated matrix and x: seed", value<std::string>()->default_value("1"))
      ("format", "csr-scalar, csr-vector, ell, coo, hyb or all",
       value<std::string>()->default_value("all"))
      ("impl", "student or reference", value<std::string>()->default_value("student"))
      ("bench", "every format of student, reference and cuSPARSE on every matrix class");
  // clang-format on
  const cxxopts::ParseResult r = cudalab::parse_runner_command_line(
      cli, "bench: write results as JSON to this file", argc, argv);
  Options o;
  if (r.count("matrix") && r.count("generate"))
    throw cudalab::UsageError("--matrix and --generate exclude each other");
  if (r.count("matrix")) o.matrix_file = r["matrix"].as<std::string>();
  if (r.count("generate")) o.generate = r["generate"].as<std::string>();
  const Generator& g = generator(o.generate);
  if (r.count("size")) {
    if (!o.matrix_file.empty()) throw cudalab::UsageError("--size applies to --generate only");
    o.size = cudalab::int_option(r, "size", 1, g.max_size);
  }
  o.seed = cudalab::parse_seed(r);
  const std::string format = r["format"].as<std::string>();
  if (format == "all") {
    o.formats = lab07::all_formats();
  } else {
    try {
      o.formats = {lab07::parse_format(format)};
    } catch (const std::invalid_argument& e) {
      throw cudalab::UsageError(std::string("--format: ") + e.what());
    }
  }
  o.impl = cudalab::parse_impl(r);
  o.bench = r.count("bench") > 0;
  o.json = cudalab::writable_path_option(r, "json");
  return o;
}

// A generated matrix of class `name`; `size` 0 means the class's default.
MatrixCase generate(const std::string& name, int size, std::uint64_t seed) {
  const Generator& g = generator(name);
  const int n = size > 0 ? size : g.default_size;
  sp::CsrMatrix a;
  std::string what;
  if (name == "poisson2d") {
    a = sp::poisson_2d(n);
    what = "2D Poisson, " + std::to_string(n) + "^2 grid";
  } else if (name == "poisson3d") {
    a = sp::poisson_3d(n);
    what = "3D Poisson, " + std::to_string(n) + "^3 grid";
  } else if (name == "powerlaw") {
    a = sp::power_law_matrix(n, n, 1, std::min(n, 4096), seed);
    what = "power-law rows, lengths 1.." + std::to_string(std::min(n, 4096));
  } else if (name == "longrow") {
    a = sp::long_row_matrix(n, n, std::min(n, 8), n / 2, std::min(n, 100000), seed);
    what = "one long row of " + std::to_string(std::min(n, 100000)) + ", the others " +
           std::to_string(std::min(n, 8));
  } else if (name == "empty") {
    a = sp::empty_rows_matrix(n, n, std::min(n, 16), 50, seed);
    what = "half the rows empty, the others " + std::to_string(std::min(n, 16));
  } else {
    a = sp::random_matrix(n, n, 0, std::min(n, 32), seed);
    what = "random, lengths 0.." + std::to_string(std::min(n, 32));
  }
  std::vector<float> x = cudalab::random_floats(static_cast<std::size_t>(a.cols), seed + 1);
  return {name + " (" + what + ")", std::move(a), std::move(x), seed};
}

// Read before any GPU work, so that a bad file is a usage error.
MatrixCase load(const std::string& path, std::uint64_t seed) {
  if (std::filesystem::is_directory(path))
    throw cudalab::UsageError("--matrix: '" + path + "' is a directory, not a Matrix Market file");
  sp::CsrMatrix a;
  try {
    a = sp::coo_to_csr(sp::read_matrix_market_file(path));
  } catch (const std::ios_base::failure& e) {  // an unreadable file: still bad input
    throw cudalab::UsageError("--matrix: cannot read '" + path + "': " + e.what());
  }
  std::vector<float> x = cudalab::random_floats(static_cast<std::size_t>(a.cols), seed + 1);
  return {path, std::move(a), std::move(x), seed};
}

// ELL pads every row to the longest: refused when that is more than 4 times the entries.
std::string ell_too_wide(const sp::CsrMatrix& a) {
  long long width = 0;
  for (sp::index_t i = 0; i < a.rows; ++i) width = std::max<long long>(width, a.row_length(i));
  const long long slots = width * a.rows;
  if (slots <= std::max<long long>(4LL * static_cast<long long>(a.nnz()), 1 << 20)) return "";
  return "skipped: ELL would pad to " + std::to_string(slots) + " slots (width " +
         std::to_string(width) + ")";
}

// ---------------------------------------------------------------------------------------------

struct Row {
  std::string matrix, variant, format;
  long long rows = 0, cols = 0, nnz = 0;
  double ms = 0, rse = 0, bytes = 0, flops = 0;
  std::string status = "ok";
};

double gbs(const Row& r) {
  return r.bytes / (r.ms * 1e-3) / 1e9;
}

void print_header() {
  std::printf("%-12s %-11s %10s %9s %9s %7s  %s\n", "variant", "format", "ms", "GFLOP/s", "GB/s",
              "% copy", "status");
}

void print_row(const Row& r, const cudalab::DeviceInfo& dev) {
  if (r.status == "ok")
    std::printf("%-12s %-11s %10.4f %9.1f %9.0f %6.1f%%  ok\n", r.variant.c_str(), r.format.c_str(),
                r.ms, r.flops / (r.ms * 1e-3) / 1e9, gbs(r), 100 * gbs(r) / dev.copy_bandwidth_gbs);
  else
    std::printf("%-12s %-11s %10s %9s %9s %7s  %s\n", r.variant.c_str(), r.format.c_str(), "-", "-",
                "-", "-", r.status.c_str());
  std::fflush(stdout);
}

std::string first_line(const std::string& s) {
  const std::size_t nl = s.find('\n');
  if (nl == std::string::npos) return s;
  const std::size_t nl2 = s.find('\n', nl + 1);
  return s.substr(0, nl) + ": " + s.substr(nl + 1, nl2 == std::string::npos ? nl2 : nl2 - nl - 1);
}

// Every selected format of the given variants, the reference's row panels when `with_panels`, and
// cuSPARSE on CSR when `with_cusparse`: each validated on the whole y, then all timed interleaved.
std::vector<Row> measure(const MatrixCase& m, const std::vector<Format>& formats,
                         const std::vector<const lab07::SpmvVariant*>& variants, bool with_cusparse,
                         bool with_panels) {
  const long long nnz = static_cast<long long>(m.a.nnz());
  const double bytes = lab07::spmv_effective_bytes(m.a.rows, m.a.cols, nnz);
  const double flops = lab07::spmv_flops(nnz);
  std::vector<Row> rows;
  std::vector<cudalab::Launch> launches;
  std::vector<std::size_t> timed;
  std::vector<std::unique_ptr<lab07::PerfCase>> cases;
  std::unique_ptr<lab07::baseline::CusparseCsr> cusparse;
  auto row_for = [&](const std::string& variant, const std::string& format) {
    return Row{m.name, variant, format, m.a.rows, m.a.cols, nnz, 0, 0, bytes, flops, "ok"};
  };
  for (const Format f : formats) {
    if (f == Format::ell) {
      if (std::string why = ell_too_wide(m.a); !why.empty()) {
        for (const auto* v : variants) {
          rows.push_back(row_for(v->name, lab07::format_name(f)));
          rows.back().status = why;
        }
        continue;
      }
    }
    cases.push_back(std::make_unique<lab07::PerfCase>(m, f));
    lab07::PerfCase& pc = *cases.back();
    for (const auto* v : variants)
      cudalab::add_checked_row(rows, timed, launches, row_for(v->name, lab07::format_name(f)),
                               first_line(pc.validate(*v)), [&] { return pc.launch(*v); });
  }
  // The reference's row panels (when with_panels): built on the host for this device, checked,
  // then timed with the rest.
  struct PanelArrays {
    cudalab::DeviceBuffer<int> panel_row, split_ptr, split_row, run_ptr, group_col;
    cudalab::DeviceBuffer<std::uint32_t> packed;
    cudalab::DeviceBuffer<float> val, x, y;
    lab07::PanelView view;
  };
  std::unique_ptr<PanelArrays> panels;
  if (with_panels) {
    const lab07::PanelShape shape = lab07::reference::panel_shape();
    const sp::PanelMatrix h =
        sp::csr_to_panels(m.a, shape.panels, shape.parts, shape.max_accumulators);
    panels = std::make_unique<PanelArrays>(PanelArrays{
        cudalab::DeviceBuffer<int>(h.panel_row), cudalab::DeviceBuffer<int>(h.split_ptr),
        cudalab::DeviceBuffer<int>(h.split_row), cudalab::DeviceBuffer<int>(h.run_ptr),
        cudalab::DeviceBuffer<int>(h.group_col), cudalab::DeviceBuffer<std::uint32_t>(h.packed),
        cudalab::DeviceBuffer<float>(h.val), cudalab::DeviceBuffer<float>(m.x),
        cudalab::DeviceBuffer<float>(static_cast<std::size_t>(m.a.rows)), lab07::PanelView{}});
    lab07::PanelView& v = panels->view;
    v.rows = h.rows;
    v.cols = h.cols;
    v.panels = static_cast<int>(h.panels());
    v.parts = h.parts;
    v.max_accumulators = h.max_accumulators;
    v.panel_row = panels->panel_row.data();
    v.split_ptr = panels->split_ptr.data();
    v.split_row = panels->split_row.data();
    v.run_ptr = panels->run_ptr.data();
    v.packed = panels->packed.data();
    v.group_col = panels->group_col.data();
    v.val = panels->val.data();
    CUDA_CHECK(cudaMemset(panels->y.data(), 0xFF, panels->y.bytes()));
    lab07::reference::spmv_panels(v, panels->x.data(), panels->y.data(), nullptr);
    CUDA_CHECK(cudaDeviceSynchronize());
    cudalab::add_checked_row(rows, timed, launches, row_for("reference", "panels"),
                             lab07::compare_rows(panels->y.download(), sp::spmv_reference(m.a, m.x),
                                                 sp::spmv_error_bound(m.a, m.x)),
                             [a = panels.get()] {
                               return [a](cudaStream_t s) {
                                 lab07::reference::spmv_panels(a->view, a->x.data(), a->y.data(),
                                                               s);
                               };
                             });
  }
  if (with_cusparse) {
    Row r = row_for("cuSPARSE", "csr");
    try {
      cases.push_back(std::make_unique<lab07::PerfCase>(m, Format::csr_scalar));
      lab07::PerfCase& pc = *cases.back();
      cusparse =
          std::make_unique<lab07::baseline::CusparseCsr>(pc.device.csr(), pc.x.data(), pc.y.data());
      CUDA_CHECK(cudaMemset(pc.y.data(), 0xFF, pc.y.bytes()));
      cusparse->run(nullptr);
      CUDA_CHECK(cudaDeviceSynchronize());
      cudalab::add_checked_row(rows, timed, launches, r,
                               lab07::compare_rows(pc.y.download(), sp::spmv_reference(m.a, m.x),
                                                   sp::spmv_error_bound(m.a, m.x)),
                               [c = cusparse.get()] { return [c](cudaStream_t s) { c->run(s); }; });
    } catch (const std::exception& e) {
      r.status = std::string("skipped: ") + e.what();
      rows.push_back(r);
    }
  }
  cudalab::Stream stream;
  cudalab::time_rows(rows, timed, launches, stream.get());
  return rows;
}

void print_matrix(const MatrixCase& m) {
  std::printf("\n%s: %d x %d, %zu entries (mean row length %.2f)\n", m.name.c_str(), m.a.rows,
              m.a.cols, m.a.nnz(), m.a.rows > 0 ? static_cast<double>(m.a.nnz()) / m.a.rows : 0.0);
}

void write_json(const std::string& path, const std::vector<Row>& rows,
                const cudalab::DeviceInfo& dev) {
  cudalab::JsonWriter w = cudalab::begin_lab_json("07-spmv", dev);
  w.field("bytes_formula", "nnz*(4+4) + (rows+1)*4 + rows*4 + cols*4");
  cudalab::write_rows_field(w, rows, [&](const Row& r) {
    w.field("matrix", r.matrix)
        .field("rows", static_cast<std::int64_t>(r.rows))
        .field("cols", static_cast<std::int64_t>(r.cols))
        .field("nnz", static_cast<std::int64_t>(r.nnz))
        .field("variant", r.variant)
        .field("format", r.format)
        .field("bytes", r.bytes)
        .field("flops", r.flops)
        .field("status", r.status);
    if (r.status == "ok")
      w.field("ms", r.ms)
          .field("rse", r.rse)
          .field("gflops", r.flops / (r.ms * 1e-3) / 1e9)
          .field("gbs", gbs(r))
          .field("pct_copy", 100 * gbs(r) / dev.copy_bandwidth_gbs);
  });
  w.end_object();
  cudalab::save_json(w, path);
}

int run_bench(const Options& o, const MatrixCase* given, const cudalab::DeviceInfo& dev) {
  std::vector<Row> all;
  auto bench_one = [&](const MatrixCase& m) {
    print_matrix(m);
    print_header();
    for (const Row& r :
         measure(m, o.formats, {&lab07::kCandidate, &lab07::kReference}, true, true)) {
      print_row(r, dev);
      all.push_back(r);
    }
  };
  if (given != nullptr) {
    bench_one(*given);
  } else {
    // The graded workloads first, then the other classes at about 2 M rows.
    bench_one(lab07::perf_matrix(lab07::PerfMatrix::poisson_2d, o.seed));
    bench_one(lab07::perf_matrix(lab07::PerfMatrix::power_law, o.seed));
    bench_one(generate("poisson3d", 128, o.seed));
    for (const char* name : {"longrow", "empty", "random"})
      bench_one(generate(name, 1 << 21, o.seed));
    std::vector<std::string> missing;
    for (const MatrixCase& m : lab07::real_cases(&missing)) bench_one(m);
    for (const std::string& path : missing) std::printf("\n%s: not found, skipped\n", path.c_str());
  }
  if (!o.json.empty()) write_json(o.json, all, dev);
  return cudalab::kExitOk;
}

int run_matrix(const Options& o, const MatrixCase& m, const cudalab::DeviceInfo& dev) {
  const lab07::SpmvVariant& v = o.impl == "student" ? lab07::kCandidate : lab07::kReference;
  print_matrix(m);
  int wrong = 0;
  std::vector<Format> ok;
  for (const Format f : o.formats) {
    if (f == Format::ell && !ell_too_wide(m.a).empty()) {
      std::printf("%-11s %s\n", lab07::format_name(f), ell_too_wide(m.a).c_str());
      continue;
    }
    const std::string problem = lab07::run_case(m, f, v);
    if (!problem.empty()) {
      std::printf("%-11s WRONG: %s\n", lab07::format_name(f), problem.c_str());
      ++wrong;
    } else {
      ok.push_back(f);
    }
  }
  if (!ok.empty()) {
    print_header();
    // The reference also runs its row panels (checked against the CPU like the rest).
    for (const Row& r : measure(m, ok, {&v}, false, &v == &lab07::kReference)) {
      print_row(r, dev);
      if (r.status != "ok") ++wrong;
    }
  }
  return wrong > 0 ? cudalab::kExitFailure : cudalab::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::guarded_main(kProgram, [&] {
    const Options o = parse(argc, argv);
    // The input first (a bad file or size is a usage error), then the device.
    std::unique_ptr<MatrixCase> m;
    try {
      if (!o.matrix_file.empty())
        m = std::make_unique<MatrixCase>(load(o.matrix_file, o.seed));
      else if (!o.bench)
        m = std::make_unique<MatrixCase>(generate(o.generate, o.size, o.seed));
    } catch (const std::invalid_argument& e) {
      throw cudalab::UsageError(e.what());
    }
    const cudalab::DeviceInfo dev = cudalab::open_device();
    if (o.bench) return run_bench(o, m.get(), dev);
    return run_matrix(o, *m, dev);
  });
}
