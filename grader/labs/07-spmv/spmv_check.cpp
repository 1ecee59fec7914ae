#include "spmv_check.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "cudalab/compare.h"
#include "cudalab/device_data.h"
#include "cudalab/random.h"
#include "cudalab/sparse/generators.h"
#include "cudalab/sparse/matrix_market.h"
#include "device_formats.h"
#include "grading.h"

#ifndef CUDALAB_DATA_DIR_DEFAULT
#define CUDALAB_DATA_DIR_DEFAULT "data"
#endif

namespace lab07 {

using cudalab::derive_seed;
using namespace cudalab::grade;
namespace sp = cudalab::sparse;

// ---------------------------------------------------------------------------------------------
// Formats

const char* format_name(Format f) {
  switch (f) {
    case Format::csr_scalar: return "csr-scalar";
    case Format::csr_vector: return "csr-vector";
    case Format::ell: return "ell";
    case Format::coo: return "coo";
    case Format::hyb: return "hyb";
  }
  return "?";
}

const std::vector<Format>& all_formats() {
  static const std::vector<Format> formats = {Format::csr_scalar, Format::csr_vector, Format::ell,
                                              Format::coo, Format::hyb};
  return formats;
}

Format parse_format(const std::string& name) {
  for (const Format f : all_formats())
    if (name == format_name(f)) return f;
  throw std::invalid_argument("unknown format '" + name +
                              "' (csr-scalar, csr-vector, ell, coo, hyb)");
}

// ---------------------------------------------------------------------------------------------
// Cases

namespace {

std::vector<float> x_for(const CsrMatrix& a, std::uint64_t seed) {
  return cudalab::random_floats(static_cast<std::size_t>(a.cols), seed);
}

MatrixCase generated(const std::string& name, CsrMatrix a, std::uint64_t seed) {
  std::vector<float> x = x_for(a, seed + 1);
  return {name, std::move(a), std::move(x), seed};
}

std::string sizes_of(const CsrMatrix& a) {
  return "rows=" + std::to_string(a.rows) + " cols=" + std::to_string(a.cols) +
         " nnz=" + std::to_string(a.nnz());
}

}  // namespace

MatrixCase worked_example() {
  // | 3 0 1 0 |   x = (1, 2, 3, 4):  y0 = 3*1 + 1*3           = 6
  // | 0 0 0 0 |                      y1 = (empty row)          = 0
  // | 0 2 4 1 |                      y2 = 2*2 + 4*3 + 1*4      = 20
  // | 1 0 0 1 |                      y3 = 1*1 + 1*4            = 5
  CsrMatrix a;
  a.rows = 4;
  a.cols = 4;
  a.row_ptr = {0, 2, 2, 5, 7};
  a.col_idx = {0, 2, 1, 2, 3, 0, 3};
  a.val = {3, 1, 2, 4, 1, 1, 1};
  return {"course worked example (4 x 4, y = (6, 0, 20, 5))", std::move(a), {1, 2, 3, 4}, 0};
}

std::vector<MatrixCase> generated_cases(std::uint64_t seed) {
  std::vector<MatrixCase> cases;
  cases.push_back(worked_example());
  auto s = [seed](int k) { return derive_seed(seed, 7000 + static_cast<std::uint64_t>(k)); };
  cases.push_back(generated("2D Poisson, 13 x 13 grid", sp::poisson_2d(13), s(1)));
  cases.push_back(generated("2D Poisson, 101 x 101 grid", sp::poisson_2d(101), s(2)));
  cases.push_back(generated("3D Poisson, 9^3 grid", sp::poisson_3d(9), s(3)));
  cases.push_back(generated("3D Poisson, 21^3 grid", sp::poisson_3d(21), s(4)));
  cases.push_back(generated("power-law rows (3001 x 3001, lengths 1..1500)",
                            sp::power_law_matrix(3001, 3001, 1, 1500, s(5)), s(5)));
  cases.push_back(generated("power-law rows (20000 x 20000, lengths 2..300)",
                            sp::power_law_matrix(20000, 20000, 2, 300, s(6)), s(6)));
  cases.push_back(generated("one very long row (row 777 of 2000 has 3000 entries, the others 4)",
                            sp::long_row_matrix(2000, 3000, 4, 777, 3000, s(7)), s(7)));
  cases.push_back(generated("empty rows (1000 x 800, 40% empty, first and last too)",
                            sp::empty_rows_matrix(1000, 800, 7, 40, s(8)), s(8)));
  cases.push_back(generated("random (1501 x 1203, lengths 0..40)",
                            sp::random_matrix(1501, 1203, 0, 40, s(9)), s(9)));
  {
    // Small integers in A and x: every product and sum is exact in float, whatever the order.
    CsrMatrix a = sp::random_matrix(777, 999, 1, 64, s(10), sp::Values::small_ints);
    std::vector<float> x = cudalab::random_small_ints(999, s(10) + 1, -4, 4);
    cases.push_back({"random small integers (777 x 999, lengths 1..64, exact)", std::move(a),
                     std::move(x), s(10)});
  }
  {
    CsrMatrix a;
    a.rows = 1;
    a.cols = 1;
    a.row_ptr = {0, 1};
    a.col_idx = {0};
    a.val = {-2.5f};
    cases.push_back({"1 x 1", std::move(a), {3.0f}, 0});
  }
  cases.push_back(generated("more columns than rows (7 x 5000, lengths 100..400)",
                            sp::random_matrix(7, 5000, 100, 400, s(11)), s(11)));
  cases.push_back(generated("more rows than columns (3000 x 5, lengths 0..5)",
                            sp::random_matrix(3000, 5, 0, 5, s(12)), s(12)));
  return cases;
}

std::string data_dir() {
  if (const char* env = std::getenv("CUDALAB_DATA_DIR"); env != nullptr && *env != '\0') return env;
  return CUDALAB_DATA_DIR_DEFAULT;
}

std::vector<MatrixCase> real_cases(std::vector<std::string>* missing) {
  static const char* const kPackageDir = "/usr/lib/R/library/Matrix/external/";
  std::vector<MatrixCase> cases;
  int k = 0;
  for (const char* name : {"pores_1.mtx", "lund_a.mtx", "jgl009.mtx"}) {
    const std::uint64_t seed = derive_seed(cudalab::grade::base_seed(), 7100 + k++);
    std::string path;
    for (const std::string& p : {data_dir() + "/matrices/" + name, kPackageDir + std::string(name)})
      if (std::filesystem::exists(p)) {
        path = p;
        break;
      }
    if (path.empty()) {
      missing->push_back(data_dir() + "/matrices/" + name);
      continue;
    }
    CsrMatrix a = sp::coo_to_csr(sp::read_matrix_market_file(path));
    cases.push_back(generated(std::string(name) + " (r-cran-matrix)", std::move(a), seed));
  }
  return cases;
}

// ---------------------------------------------------------------------------------------------
// Comparison

std::string compare_rows(const std::vector<float>& got, const std::vector<double>& expected,
                         const std::vector<double>& bound) {
  if (got.size() != expected.size() || bound.size() != expected.size())
    throw std::invalid_argument("compare_rows: sizes differ");
  std::size_t wrong = 0, unwritten = 0, worst = 0;
  double worst_ratio = 0.0;
  std::ostringstream first;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = got[i];
    const double err = std::fabs(g - expected[i]);
    const bool ok = !std::isnan(g) && err <= bound[i];
    if (ok) continue;
    if (std::isnan(g)) ++unwritten;
    const double ratio = std::isnan(g) ? INFINITY : err / std::max(bound[i], 1e-300);
    if (wrong == 0 || ratio > worst_ratio) {
      worst_ratio = ratio;
      worst = i;
    }
    if (++wrong <= 10)
      first << "\n  row " << i << ": expected " << cudalab::format_value(expected[i]) << ", got "
            << cudalab::format_value(g) << (std::isnan(g) ? " (never written?)" : "") << " (bound "
            << cudalab::format_value(bound[i]) << ")";
  }
  if (wrong == 0) return "";
  std::ostringstream out;
  out << wrong << " of " << got.size() << " rows of y differ by more than their error bound";
  if (unwritten > 0) out << "; " << unwritten << " hold NaN (never written?)";
  if (unwritten < wrong)
    out << "; worst at row " << worst << " (|error| "
        << cudalab::format_value(std::fabs(got[worst] - expected[worst])) << ")";
  out << first.str();
  if (wrong > 10) out << "\n  ...";
  return out.str();
}

double spmv_effective_bytes(long long rows, long long cols, long long nnz) {
  return 8.0 * static_cast<double>(nnz) + 4.0 * static_cast<double>(rows + 1) +
         4.0 * static_cast<double>(rows) + 4.0 * static_cast<double>(cols);
}

// ---------------------------------------------------------------------------------------------
// Device formats

namespace {

bool same_view(const CsrView& a, const CsrView& b) {
  return a.rows == b.rows && a.cols == b.cols && a.nnz == b.nnz && a.row_ptr == b.row_ptr &&
         a.col_idx == b.col_idx && a.val == b.val;
}
bool same_view(const EllView& a, const EllView& b) {
  return a.rows == b.rows && a.cols == b.cols && a.width == b.width && a.col_idx == b.col_idx &&
         a.val == b.val;
}
bool same_view(const CooView& a, const CooView& b) {
  return a.rows == b.rows && a.cols == b.cols && a.nnz == b.nnz && a.row == b.row &&
         a.col == b.col && a.val == b.val;
}
bool same_view(const HybView& a, const HybView& b) {
  return same_view(a.ell, b.ell) && same_view(a.coo, b.coo);
}

// Calls f with a private copy of the view (a host struct passed by const reference): a function
// that wrote through it (a const_cast) would otherwise change what every later call, the
// reference's included, is given. "" or the problem.
template <typename View>
std::string call_with_copy(void (*f)(const View&, const float*, float*, cudaStream_t),
                           const char* function, const View& view, const float* x, float* y,
                           cudaStream_t stream) {
  View handed = view;  // not const: a write through a cast to it is then defined, and seen
  f(handed, x, y, stream);
  if (same_view(handed, view)) return "";
  return std::string(function) +
         " wrote to its const view argument (the sizes or array pointers of the matrix); an "
         "input is read-only, even through a cast";
}

}  // namespace

struct DeviceFormat::Arrays {
  explicit Arrays(bool keep) : keep_copies(keep) {}
  bool keep_copies;  // of every array on the host, for check_unchanged
  std::vector<std::unique_ptr<GuardedBuffer<int>>> ints;
  std::vector<std::vector<int>> int_copies;
  std::vector<std::unique_ptr<GuardedBuffer<float>>> floats;
  std::vector<std::vector<float>> float_copies;
  std::string description;

  // An empty array (the COO part of a HYB matrix that fits in ELL) is a null pointer.
  const int* add(const std::string& name, const std::vector<int>& host) {
    return add_to(ints, int_copies, name, host);
  }
  const float* add(const std::string& name, const std::vector<float>& host) {
    return add_to(floats, float_copies, name, host);
  }
  // An array of `count` elements for a kernel to fill (no host copy: the timed path only).
  int* fresh_ints(const std::string& name, std::size_t count) { return fresh(ints, name, count); }
  float* fresh_floats(const std::string& name, std::size_t count) {
    return fresh(floats, name, count);
  }

 private:
  template <typename T>
  static T* fresh(std::vector<std::unique_ptr<GuardedBuffer<T>>>& buffers, const std::string& name,
                  std::size_t count) {
    if (count == 0) return nullptr;
    buffers.push_back(std::make_unique<GuardedBuffer<T>>(name, count));
    return buffers.back()->data();
  }

  template <typename T>
  const T* add_to(std::vector<std::unique_ptr<GuardedBuffer<T>>>& buffers,
                  std::vector<std::vector<T>>& copies, const std::string& name,
                  const std::vector<T>& host) {
    if (host.empty()) return nullptr;
    buffers.push_back(std::make_unique<GuardedBuffer<T>>(name, host.size()));
    buffers.back()->upload(host);
    if (keep_copies) copies.push_back(host);
    return buffers.back()->data();
  }
};

DeviceFormat::DeviceFormat(const CsrMatrix& a, Format format, bool timed)
    : format_(format), keep_copies_(!timed), arrays_(std::make_unique<Arrays>(!timed)) {
  const bool csr = format == Format::csr_scalar || format == Format::csr_vector;
  if (timed && !csr) {
    derive_on_device(a);
    return;
  }
  Arrays& arr = *arrays_;
  auto put_ell = [&arr](const sp::EllMatrix& e, const std::string& prefix) {
    EllView v;
    v.rows = e.rows;
    v.cols = e.cols;
    v.width = e.width;
    v.col_idx = arr.add(prefix + "col_idx", e.col_idx);
    v.val = arr.add(prefix + "val", e.val);
    return v;
  };
  auto put_coo = [&arr](const sp::CooMatrix& c, const std::string& prefix) {
    CooView v;
    v.rows = c.rows;
    v.cols = c.cols;
    v.nnz = static_cast<int>(c.nnz());
    v.row = arr.add(prefix + "row", c.row);
    v.col = arr.add(prefix + "col", c.col);
    v.val = arr.add(prefix + "val", c.val);
    return v;
  };
  switch (format) {
    case Format::csr_scalar:
    case Format::csr_vector:
      csr_.rows = a.rows;
      csr_.cols = a.cols;
      csr_.nnz = static_cast<int>(a.nnz());
      csr_.row_ptr = arr.add("row_ptr", a.row_ptr);
      csr_.col_idx = arr.add("col_idx", a.col_idx);
      csr_.val = arr.add("val", a.val);
      arr.description = "CSR";
      break;
    case Format::ell: {
      const sp::EllMatrix e = sp::csr_to_ell(a);
      ell_ = put_ell(e, "ell ");
      arr.description = "ELL width " + std::to_string(e.width);
      break;
    }
    case Format::coo:
      coo_ = put_coo(sp::csr_to_coo(a), "coo ");
      arr.description = "COO";
      break;
    case Format::hyb: {
      const sp::HybMatrix h = sp::csr_to_hyb(a);
      hyb_.ell = put_ell(h.ell, "hyb ell ");
      hyb_.coo = put_coo(h.coo, "hyb coo ");
      arr.description = "HYB: ELL width " + std::to_string(h.ell.width) + " + " +
                        std::to_string(h.coo.nnz()) + " COO entries";
      break;
    }
  }
}

void DeviceFormat::derive_on_device(const CsrMatrix& a) {
  Arrays& arr = *arrays_;
  // The CSR arrays, uploaded once, are what the kernels read; they are freed at the end.
  const cudalab::DeviceBuffer<int> row_ptr(a.row_ptr), col_idx(a.col_idx);
  const cudalab::DeviceBuffer<float> val(a.val);
  const auto rows = static_cast<std::size_t>(a.rows);
  // An ELL part of `width` slots per row (csr_to_ell's, or csr_to_hyb's ELL part).
  const auto put_ell = [&](sp::index_t width, const std::string& prefix) {
    EllView v;
    v.rows = a.rows;
    v.cols = a.cols;
    v.width = width;
    const std::size_t slots = rows * static_cast<std::size_t>(width);
    int* col = arr.fresh_ints(prefix + "col_idx", slots);
    float* value = arr.fresh_floats(prefix + "val", slots);
    device_formats::ell(row_ptr.data(), col_idx.data(), val.data(), a.rows, width, col, value);
    v.col_idx = col;
    v.val = value;
    return v;
  };
  switch (format_) {
    case Format::ell: {
      sp::index_t width = 0;
      for (sp::index_t i = 0; i < a.rows; ++i) width = std::max(width, a.row_length(i));
      ell_ = put_ell(width, "ell ");
      arrays_->description = "ELL width " + std::to_string(width);
      break;
    }
    case Format::coo: {
      coo_.rows = a.rows;
      coo_.cols = a.cols;
      coo_.nnz = static_cast<int>(a.nnz());
      int* row = arr.fresh_ints("coo row", a.nnz());
      device_formats::coo_rows(row_ptr.data(), a.rows, row);
      coo_.row = row;
      coo_.col = arr.add("coo col", a.col_idx);
      coo_.val = arr.add("coo val", a.val);
      arrays_->description = "COO";
      break;
    }
    case Format::hyb: {
      const sp::index_t width = sp::hyb_ell_width(a);
      hyb_.ell = put_ell(width, "hyb ell ");
      // Row i's entries past the width go to COO from coo_start[i] on (csr_to_hyb's order).
      std::vector<long long> coo_start(rows + 1, 0);
      for (std::size_t i = 0; i < rows; ++i)
        coo_start[i + 1] =
            coo_start[i] + std::max(0, a.row_ptr[i + 1] - a.row_ptr[i] - static_cast<int>(width));
      const auto tail = static_cast<std::size_t>(coo_start.back());
      CooView& c = hyb_.coo;
      c.rows = a.rows;
      c.cols = a.cols;
      c.nnz = static_cast<int>(tail);
      int* row = arr.fresh_ints("hyb coo row", tail);
      int* col = arr.fresh_ints("hyb coo col", tail);
      float* value = arr.fresh_floats("hyb coo val", tail);
      if (tail > 0) {
        const cudalab::DeviceBuffer<long long> start(coo_start);
        device_formats::hyb_tail(row_ptr.data(), col_idx.data(), val.data(), a.rows, width,
                                 start.data(), row, col, value);
      }
      c.row = row;
      c.col = col;
      c.val = value;
      arrays_->description =
          "HYB: ELL width " + std::to_string(width) + " + " + std::to_string(tail) + " COO entries";
      break;
    }
    case Format::csr_scalar:
    case Format::csr_vector: break;  // uploaded as they are (the constructor)
  }
}

DeviceFormat::~DeviceFormat() = default;

std::string DeviceFormat::run(const SpmvVariant& v, const float* x, float* y,
                              cudaStream_t stream) const {
  switch (format_) {
    case Format::csr_scalar:
      return call_with_copy(v.csr_scalar, "spmv_csr_scalar", csr_, x, y, stream);
    case Format::csr_vector:
      return call_with_copy(v.csr_vector, "spmv_csr_vector", csr_, x, y, stream);
    case Format::ell: return call_with_copy(v.ell, "spmv_ell", ell_, x, y, stream);
    case Format::coo: return call_with_copy(v.coo, "spmv_coo", coo_, x, y, stream);
    case Format::hyb: return call_with_copy(v.hyb, "spmv_hyb", hyb_, x, y, stream);
  }
  return "";
}

std::string DeviceFormat::check_unchanged() const {
  if (!keep_copies_)
    throw std::logic_error("DeviceFormat::check_unchanged: a timed format has no host copies");
  const Arrays& arr = *arrays_;
  for (std::size_t i = 0; i < arr.ints.size(); ++i) {
    if (std::string g = arr.ints[i]->check_guards(); !g.empty()) return g;
    if (arr.ints[i]->download() != arr.int_copies[i])
      return "input " + arr.ints[i]->name() + " was modified; the matrix is read-only";
  }
  for (std::size_t i = 0; i < arr.floats.size(); ++i) {
    if (std::string g = arr.floats[i]->check_guards(); !g.empty()) return g;
    const std::vector<float> now = arr.floats[i]->download();
    if (!now.empty() &&
        std::memcmp(now.data(), arr.float_copies[i].data(), now.size() * sizeof(float)) != 0)
      return "input " + arr.floats[i]->name() + " was modified; the matrix is read-only";
  }
  return "";
}

std::vector<TimedRunChecks::Region> DeviceFormat::regions() const {
  std::vector<TimedRunChecks::Region> out;
  for (const auto& b : arrays_->ints)
    out.push_back({b->name(), b->data(), b->size() * sizeof(int)});
  for (const auto& b : arrays_->floats)
    out.push_back({b->name(), b->data(), b->size() * sizeof(float)});
  return out;
}

std::string DeviceFormat::describe() const {
  return arrays_->description;
}

// ---------------------------------------------------------------------------------------------
// Running cases

std::string run_case(const MatrixCase& c, Format format, const SpmvVariant& v) {
  const std::string f = format_name(format);
  DeviceFormat dev(c.a, format);
  const CaseInfo info{v.name + ", " + c.name, c.seed, sizes_of(c.a) + ", " + dev.describe()};
  GuardedBuffer<float> x("x", c.x.size()), y("y", static_cast<std::size_t>(c.a.rows));
  x.upload(c.x);
  cudalab::Stream stream;
  std::string view_problem;
  try {
    view_problem = dev.run(v, x.data(), y.data(), stream.get());
  } catch (const std::exception& e) {
    return f + ": threw an exception\n" + info.header() + ": " + e.what();
  }
  if (!view_problem.empty())
    return f + ": modified the matrix\n" + info.header() + ": " + view_problem;
  if (std::string p = check_cuda_errors(info); !p.empty()) return f + ": CUDA error\n" + p;
  if (std::string p = y.check_guards(); !p.empty())
    return f + ": wrote outside y\n" + info.header() + ": " + p;
  const std::vector<double> expected = sp::spmv_reference(c.a, c.x);
  const std::vector<double> bound = sp::spmv_error_bound(c.a, c.x);
  if (std::string p = compare_rows(y.download(), expected, bound); !p.empty())
    return f + ": wrong y on " + c.name.substr(0, c.name.find(" (")) + "\n" + info.header() +
           ":\n" + p;
  if (std::string p = check_unchanged(info, x, c.x); !p.empty()) return f + ": modified x\n" + p;
  if (std::string p = dev.check_unchanged(); !p.empty())
    return f + ": modified the matrix\n" + info.header() + ": " + p;
  return "";
}

// ---------------------------------------------------------------------------------------------
// Performance

const char* perf_matrix_name(PerfMatrix m) {
  return m == PerfMatrix::poisson_2d ? "poisson-2d" : "power-law";
}

MatrixCase perf_matrix(PerfMatrix m, std::uint64_t seed, int size, bool with_x) {
  const std::uint64_t s = derive_seed(seed, 7900 + static_cast<std::uint64_t>(m));
  MatrixCase c;
  if (m == PerfMatrix::poisson_2d) {
    const int n = size > 0 ? size : 2048;
    c = {"2D Poisson, " + std::to_string(n) + " x " + std::to_string(n) + " grid",
         sp::poisson_2d(n),
         {},
         s};
  } else {
    const int rows = size > 0 ? size : (1 << 21);
    const int longest = std::min(rows, 4096);
    c = {"power-law rows (" + std::to_string(rows) + " x " + std::to_string(rows) +
             ", lengths 1.." + std::to_string(longest) + ")",
         sp::power_law_matrix(rows, rows, 1, longest, s),
         {},
         s};
  }
  if (with_x) c.x = x_for(c.a, s + 1);
  return c;
}

PerfCase::PerfCase(MatrixCase c, Format format)
    : matrix(std::move(c)),
      device(matrix.a, format, /*timed=*/true),
      x(static_cast<std::size_t>(matrix.a.cols)),
      y(static_cast<std::size_t>(matrix.a.rows)) {
  if (!matrix.x.empty())
    x.upload(matrix.x);
  else
    cudalab::fill_uniform_async(x.data(), x.size(), matrix.seed + 1, -1.0f, 1.0f, nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());
}

cudalab::Launch PerfCase::launch(const SpmvVariant& v) {
  return launch(v, y.data());
}

cudalab::Launch PerfCase::launch(const SpmvVariant& v, float* output) {
  return [this, &v, output](cudaStream_t stream) {
    if (std::string p = device.run(v, x.data(), output, stream); !p.empty())
      throw std::runtime_error(p);
  };
}

Workload PerfCase::workload() const {
  const long long nnz = static_cast<long long>(matrix.a.nnz());
  return {matrix.name + ", " + format_name(device.format()) + " (" + device.describe() + ")",
          spmv_effective_bytes(matrix.a.rows, matrix.a.cols, nnz), spmv_flops(nnz), true};
}

std::string PerfCase::validate(const SpmvVariant& v) {
  const std::string f = format_name(device.format());
  const CaseInfo info{v.name + ", performance case, " + matrix.name, matrix.seed,
                      sizes_of(matrix.a) + ", " + device.describe()};
  cudalab::Stream stream;
  CUDA_CHECK(cudaMemset(y.data(), 0xFF, y.bytes()));
  CUDA_CHECK(cudaDeviceSynchronize());
  std::string view_problem;
  try {
    view_problem = device.run(v, x.data(), y.data(), stream.get());
  } catch (const std::exception& e) {
    return f + ": threw an exception\n" + info.header() + ": " + e.what();
  }
  if (!view_problem.empty())
    return f + ": modified the matrix\n" + info.header() + ": " + view_problem;
  if (std::string p = check_cuda_errors(info); !p.empty()) return f + ": CUDA error\n" + p;
  if (std::string p = compare_rows(y.download(), sp::spmv_reference(matrix.a, matrix.x),
                                   sp::spmv_error_bound(matrix.a, matrix.x));
      !p.empty())
    return f + ": wrong y on the performance matrix\n" + info.header() + ":\n" + p;
  return "";
}

}  // namespace lab07
