// Host tests for lab 07: the worked example in every format (the arrays the docs page draws),
// the per-row comparison and its tolerance (a half-precision or skipped-term y must fail), the
// effective-bytes formula, the format names, the generated matrix classes, and the Matrix
// Market reader on the real and on malformed files.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cudalab/catch.h"
#include "cudalab/sparse/matrix_market.h"
#include "spmv_check.h"

namespace sp = cudalab::sparse;
namespace fs = std::filesystem;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// y as a float SpMV would leave it: the double reference rounded to float.
std::vector<float> as_float(const std::vector<double>& y) {
  return {y.begin(), y.end()};
}

// Rounds to 11 significant bits, like IEEE half precision (no range limits needed here).
float to_half_precision(float v) {
  if (v == 0.0f || !std::isfinite(v)) return v;
  int e = 0;
  const double m = std::frexp(static_cast<double>(v), &e);
  return static_cast<float>(std::ldexp(std::round(std::ldexp(m, 11)), e - 11));
}

}  // namespace

TEST_CASE("worked example: y = (6, 0, 20, 5) and its ELL, COO and HYB arrays", "[lab07][host]") {
  const lab07::MatrixCase c = lab07::worked_example();
  sp::validate(c.a);
  CHECK(sp::spmv_reference(c.a, c.x) == std::vector<double>{6, 0, 20, 5});

  const sp::EllMatrix ell = sp::csr_to_ell(c.a);
  CHECK(ell.width == 3);
  // Column-major: slot 0 of rows 0..3, then slot 1, then slot 2; -1 / 0 pad.
  CHECK(ell.col_idx == std::vector<sp::index_t>{0, -1, 1, 0, 2, -1, 2, 3, -1, -1, 3, -1});
  CHECK(ell.val == std::vector<float>{3, 0, 2, 1, 1, 0, 4, 1, 0, 0, 1, 0});

  const sp::CooMatrix coo = sp::csr_to_coo(c.a);
  CHECK(coo.row == std::vector<sp::index_t>{0, 0, 2, 2, 2, 3, 3});

  // One third of 4 rows: slot columns 0 and 1 are filled by 3 rows (3 * 3 >= 4), column 2 by
  // one (3 * 1 < 4): ELL width 2, row 2's third entry goes to COO.
  const sp::HybMatrix hyb = sp::csr_to_hyb(c.a);
  CHECK(hyb.ell.width == 2);
  REQUIRE(hyb.coo.nnz() == 1);
  CHECK(hyb.coo.row[0] == 2);
  CHECK(hyb.coo.col[0] == 3);
  CHECK(hyb.coo.val[0] == 1.0f);
}

TEST_CASE("compare_rows: exact and rounded results pass, NaN and wrong rows fail",
          "[lab07][host]") {
  const lab07::MatrixCase c = lab07::worked_example();
  const auto expected = sp::spmv_reference(c.a, c.x);
  const auto bound = sp::spmv_error_bound(c.a, c.x);
  CHECK(lab07::compare_rows({6, 0, 20, 5}, expected, bound).empty());

  const std::string unwritten = lab07::compare_rows({6, NAN, 20, 5}, expected, bound);
  CHECK(contains(unwritten, "1 of 4 rows of y differ"));
  CHECK(contains(unwritten, "row 1: expected 0, got nan (never written?)"));

  const std::string wrong = lab07::compare_rows({6, 0, 19, 5}, expected, bound);
  CHECK(contains(wrong, "row 2: expected 20, got 19"));
  CHECK(contains(wrong, "worst at row 2"));
  // An empty row has bound 0: it must be written as exactly 0.
  CHECK_FALSE(lab07::compare_rows({6, 1e-30f, 20, 5}, expected, bound).empty());
  CHECK_THROWS_AS(lab07::compare_rows({6, 0}, expected, bound), std::invalid_argument);
}

TEST_CASE("the tolerance accepts float sums and rejects half precision and a skipped term",
          "[lab07][host]") {
  for (const lab07::MatrixCase& c : lab07::generated_cases(20180914)) {
    CAPTURE(c.name);
    const auto expected = sp::spmv_reference(c.a, c.x);
    const auto bound = sp::spmv_error_bound(c.a, c.x);
    // Sequential float sums (what CSR scalar does) are within the bound.
    std::vector<float> sequential(static_cast<std::size_t>(c.a.rows));
    for (sp::index_t i = 0; i < c.a.rows; ++i) {
      float s = 0.0f;
      for (sp::index_t k = c.a.row_ptr[i]; k < c.a.row_ptr[i + 1]; ++k)
        s += c.a.val[k] * c.x[static_cast<std::size_t>(c.a.col_idx[k])];
      sequential[static_cast<std::size_t>(i)] = s;
    }
    CHECK(lab07::compare_rows(sequential, expected, bound).empty());
    CHECK(lab07::compare_rows(as_float(expected), expected, bound).empty());
    if (c.a.nnz() < 20) continue;  // too few rows to be sure of a visible rounding
    // Half precision: 11 bits instead of 24 fails on a matrix of this size.
    std::vector<float> half = as_float(expected);
    for (float& v : half) v = to_half_precision(v);
    // (Small integers below 2^11 are exact in half precision too: nothing to see there.)
    if (half != as_float(expected)) CHECK_FALSE(lab07::compare_rows(half, expected, bound).empty());
    // Leaving out the last entry of the longest row.
    sp::index_t longest = 0;
    for (sp::index_t i = 0; i < c.a.rows; ++i)
      if (c.a.row_length(i) > c.a.row_length(longest)) longest = i;
    std::vector<float> skipped = as_float(expected);
    const sp::index_t k = c.a.row_ptr[longest + 1] - 1;
    skipped[static_cast<std::size_t>(longest)] -=
        c.a.val[k] * c.x[static_cast<std::size_t>(c.a.col_idx[k])];
    CHECK_FALSE(lab07::compare_rows(skipped, expected, bound).empty());
  }
}

TEST_CASE("effective bytes: nnz * 8 + (rows + 1) * 4 + rows * 4 + cols * 4", "[lab07][host]") {
  CHECK(lab07::spmv_effective_bytes(4, 4, 7) == 7 * 8 + 5 * 4 + 4 * 4 + 4 * 4);
  // The 2048^2 Poisson matrix: 20,963,328 entries, 4,194,304 rows: about 218 MB.
  const long long n = 2048, rows = n * n, nnz = 5 * n * n - 4 * n;
  CHECK(lab07::spmv_effective_bytes(rows, rows, nnz) == 8.0 * nnz + 4.0 * (rows + 1) + 8.0 * rows);
  CHECK(lab07::spmv_flops(nnz) == 2.0 * nnz);
}

TEST_CASE("format names round-trip; unknown names are refused", "[lab07][host]") {
  REQUIRE(lab07::all_formats().size() == 5);
  for (const lab07::Format f : lab07::all_formats())
    CHECK(lab07::parse_format(lab07::format_name(f)) == f);
  CHECK_THROWS_AS(lab07::parse_format("csr"), std::invalid_argument);
  CHECK_THROWS_AS(lab07::parse_format(""), std::invalid_argument);
}

TEST_CASE("the generated matrix classes are valid and cover the edge cases", "[lab07][host]") {
  const auto cases = lab07::generated_cases(20180914);
  bool one_by_one = false, wide = false, tall = false, empty_first_last = false, hyb_coo = false;
  for (const lab07::MatrixCase& c : cases) {
    CAPTURE(c.name);
    sp::validate(c.a);
    CHECK(c.x.size() == static_cast<std::size_t>(c.a.cols));
    one_by_one |= c.a.rows == 1 && c.a.cols == 1;
    wide |= c.a.cols > 100 * c.a.rows;
    tall |= c.a.rows > 100 * c.a.cols;
    empty_first_last |= c.a.row_length(0) == 0 && c.a.row_length(c.a.rows - 1) == 0;
    hyb_coo |= sp::csr_to_hyb(c.a).coo.nnz() > 0;
    // Keep ELL (padded to the longest row) small enough for the sanitizer runs.
    CHECK(static_cast<long long>(sp::csr_to_ell(c.a).width) * c.a.rows < (1LL << 24));
  }
  CHECK(one_by_one);
  CHECK(wide);
  CHECK(tall);
  CHECK(empty_first_last);
  CHECK(hyb_coo);
  // The same seed gives the same matrices; another seed changes the random ones.
  const auto again = lab07::generated_cases(20180914);
  const auto other = lab07::generated_cases(1);
  REQUIRE(again.size() == cases.size());
  bool differs = false;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    CHECK(again[i].a.col_idx == cases[i].a.col_idx);
    CHECK(again[i].x == cases[i].x);
    differs |= other[i].a.col_idx != cases[i].a.col_idx;
  }
  CHECK(differs);
}

TEST_CASE("performance matrices: 2D Poisson 2048^2 has 20,963,328 entries", "[lab07][host]") {
  const lab07::MatrixCase m = lab07::perf_matrix(lab07::PerfMatrix::poisson_2d, 1, 64);
  CHECK(m.a.rows == 64 * 64);
  CHECK(m.a.nnz() == 5u * 64 * 64 - 4 * 64);
  const lab07::MatrixCase p = lab07::perf_matrix(lab07::PerfMatrix::power_law, 1, 5000);
  sp::validate(p.a);
  CHECK(p.a.rows == 5000);
  CHECK(5LL * 2048 * 2048 - 4 * 2048 == 20963328LL);
}

TEST_CASE("a malformed Matrix Market file is a usage error naming its line", "[lab07][host]") {
  const fs::path dir = fs::temp_directory_path() / "cudalab-lab07-tests";
  fs::create_directories(dir);
  const fs::path bad = dir / "malformed.mtx";
  std::ofstream(bad) << "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.5\n4 1 2\n";
  try {
    sp::read_matrix_market_file(bad.string());
    FAIL("the malformed file was accepted");
  } catch (const cudalab::UsageError& e) {
    CHECK(contains(std::string(e.what()), "malformed.mtx:4"));
  }
  CHECK_THROWS_AS(sp::read_matrix_market_file((dir / "missing.mtx").string()), cudalab::UsageError);
}

TEST_CASE("real matrices: r-cran-matrix's pores_1, lund_a and jgl009", "[lab07][host]") {
  std::vector<std::string> missing;
  const auto cases = lab07::real_cases(&missing);
  if (!missing.empty()) {
    std::cout << "SKIPPED: data file not found: " << missing.front() << "\n";
    return;
  }
  REQUIRE(cases.size() == 3);
  CHECK(cases[0].a.rows == 30);
  CHECK(cases[0].a.nnz() == 180);
  CHECK(cases[1].a.rows == 147);
  CHECK(cases[2].a.nnz() == 50);
}

TEST_CASE("the timed tolerance is each row's: a skipped entry of every row fails, float sums pass",
          "[lab07][host]") {
  // The timed power-law matrix's generator, rows of 1 to 4096 entries, at 2^16 rows (the timed one
  // has 2^21); x in [-1, 1) as every timed sample's.
  const lab07::MatrixCase p = lab07::perf_matrix(lab07::PerfMatrix::power_law, 20180914, 1 << 16);
  const auto exact = sp::spmv_reference(p.a, p.x);
  const std::vector<float> row_bound = sp::spmv_row_error_bounds(p.a);
  const double one_bound = sp::spmv_max_error_bound(p.a);
  std::size_t sums_outside = 0, skipped_caught = 0, skipped_caught_by_one = 0, rows = 0;
  std::size_t above_one_bound = 0;
  for (sp::index_t i = 0; i < p.a.rows; ++i) {
    const auto r = static_cast<std::size_t>(i);
    if (static_cast<double>(row_bound[r]) > one_bound * (1 + 1e-6)) ++above_one_bound;
    // A float sum in the row's order, and the same sum without its last entry.
    float sum = 0.0f;
    for (sp::index_t k = p.a.row_ptr[i]; k < p.a.row_ptr[i + 1]; ++k)
      sum += p.a.val[k] * p.x[static_cast<std::size_t>(p.a.col_idx[k])];
    const sp::index_t last = p.a.row_ptr[i + 1] - 1;
    const float skipped = sum - p.a.val[last] * p.x[static_cast<std::size_t>(p.a.col_idx[last])];
    // Between two results the tolerance is twice each one's bound (spmv_require.cpp).
    const double tol = 2.0 * static_cast<double>(row_bound[r]);
    if (std::fabs(static_cast<double>(sum) - exact[r]) > row_bound[r]) ++sums_outside;
    if (std::fabs(static_cast<double>(skipped) - exact[r]) > tol) ++skipped_caught;
    if (std::fabs(static_cast<double>(skipped) - exact[r]) > 2.0 * one_bound)
      ++skipped_caught_by_one;
    ++rows;
  }
  CAPTURE(rows, skipped_caught, skipped_caught_by_one);
  CHECK(above_one_bound == 0);
  CHECK(sums_outside == 0);
  // Each row's tolerance catches the skipped entry in nearly every row (not where x_j is ~0);
  // the longest row's tolerance for every row caught almost none.
  CHECK(skipped_caught >= rows * 95 / 100);
  CHECK(skipped_caught_by_one <= rows / 100);
}
