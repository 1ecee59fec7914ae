// Sparse formats: hand-checked COO/CSR/ELL/HYB/row panels of a small matrix, the course's one-third
// HYB rule, duplicate summing, and the double-precision SpMV reference with its error bound.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <vector>

#include "cudalab/catch.h"
#include "cudalab/random.h"
#include "cudalab/sparse/formats.h"
#include "cudalab/sparse/generators.h"
#include "test_sparse_support.h"

using namespace cudalab::sparse;  // the library under test
using sparse_test::coo_of;

namespace {

// [ 1 0 2 0 ]
// [ 0 0 0 0 ]   row 1 empty
// [ 3 4 5 6 ]   the long row
// [ 0 7 0 0 ]
// given in scrambled order with (2,2) split into 2 + 3.
CooMatrix example_coo() {
  return coo_of(4, 4,
                {{2, 3, 6.0f},
                 {0, 2, 2.0f},
                 {2, 2, 2.0f},
                 {3, 1, 7.0f},
                 {2, 0, 3.0f},
                 {0, 0, 1.0f},
                 {2, 2, 3.0f},
                 {2, 1, 4.0f}});
}

// Thread-per-row ELL and HYB evaluated on the CPU in double: what the kernels compute.
std::vector<double> ell_times(const EllMatrix& e, const std::vector<float>& x) {
  std::vector<double> y(static_cast<std::size_t>(e.rows), 0.0);
  for (index_t i = 0; i < e.rows; ++i)
    for (index_t k = 0; k < e.width; ++k) {
      const index_t c = e.col_idx[e.slot(i, k)];
      if (c == kEllPadding) {
        CHECK(e.val[e.slot(i, k)] == 0.0f);
        continue;
      }
      y[i] += static_cast<double>(e.val[e.slot(i, k)]) * x[c];
    }
  return y;
}

std::vector<double> hyb_times(const HybMatrix& h, const std::vector<float>& x) {
  std::vector<double> y = ell_times(h.ell, x);
  for (std::size_t k = 0; k < h.coo.nnz(); ++k)
    y[h.coo.row[k]] += static_cast<double>(h.coo.val[k]) * x[h.coo.col[k]];
  return y;
}

CsrMatrix with_row_lengths(const std::vector<index_t>& lengths, index_t cols) {
  CsrMatrix a;
  a.rows = static_cast<index_t>(lengths.size());
  a.cols = cols;
  for (index_t len : lengths) {
    for (index_t k = 0; k < len; ++k) {
      a.col_idx.push_back(k);
      a.val.push_back(1.0f);
    }
    a.row_ptr.push_back(static_cast<index_t>(a.col_idx.size()));
  }
  return a;
}

// Row-length shapes the formats must all handle: power-law rows, empty rows, one long row, a
// stencil.
std::vector<CsrMatrix> generated_matrices(std::uint64_t seed) {
  return {
      power_law_matrix(300, 200, 1, 200, seed),
      empty_rows_matrix(100, 50, 7, 30, seed),
      long_row_matrix(64, 500, 4, 17, 500, seed),
      poisson_2d(7),
  };
}

}  // namespace

TEST_CASE("CSR from COO: sorted rows and columns, duplicates summed, hand-checked",
          "[common][sparse][formats]") {
  const CsrMatrix a = coo_to_csr(example_coo());
  CHECK(a.rows == 4);
  CHECK(a.cols == 4);
  CHECK(a.row_ptr == std::vector<index_t>{0, 2, 2, 6, 7});
  CHECK(a.col_idx == std::vector<index_t>{0, 2, 0, 1, 2, 3, 1});
  CHECK(a.val == std::vector<float>{1, 2, 3, 4, 5, 6, 7});
  CHECK(row_lengths(a) == std::vector<index_t>{2, 0, 4, 1});
  CHECK_NOTHROW(validate(a));

  const CooMatrix back = csr_to_coo(a);
  CHECK(back.row == std::vector<index_t>{0, 0, 2, 2, 2, 2, 3});
  CHECK(back.col == a.col_idx);
  CHECK(back.val == a.val);
}

TEST_CASE("CSR from COO: duplicates add in double, independent of the entry order",
          "[common][sparse][formats]") {
  // In float, 1e8 + 1 - 1e8 is 0 or 1 depending on the order; in double it is exactly 1.
  const CooMatrix a = coo_of(2, 2, {{1, 1, 1e8f}, {1, 1, 1.0f}, {0, 1, 5.0f}, {1, 1, -1e8f}});
  const CsrMatrix c = coo_to_csr(a);
  CHECK(c.row_ptr == std::vector<index_t>{0, 1, 2});
  CHECK(c.val == std::vector<float>{5.0f, 1.0f});

  // Any permutation of a COO without duplicates gives the same CSR.
  const CooMatrix base = csr_to_coo(random_matrix(60, 50, 0, 9, 3));
  std::vector<std::size_t> order(base.nnz());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::mt19937_64 rng(11);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  CooMatrix shuffled;
  shuffled.rows = base.rows;
  shuffled.cols = base.cols;
  for (std::size_t k : order) shuffled.push_back(base.row[k], base.col[k], base.val[k]);
  const CsrMatrix x = coo_to_csr(base), y = coo_to_csr(shuffled);
  CHECK(x.row_ptr == y.row_ptr);
  CHECK(x.col_idx == y.col_idx);
  CHECK(x.val == y.val);
}

TEST_CASE("CSR from COO: bad input is refused", "[common][sparse][formats]") {
  CooMatrix a = coo_of(2, 2, {{2, 0, 1.0f}});
  CHECK_THROWS_AS(coo_to_csr(a), std::invalid_argument);
  a.row = {0};
  a.col = {-1};
  CHECK_THROWS_AS(coo_to_csr(a), std::invalid_argument);
  a.col = {0, 1};
  CHECK_THROWS_AS(coo_to_csr(a), std::invalid_argument);

  CsrMatrix c = coo_to_csr(example_coo());
  std::swap(c.col_idx[0], c.col_idx[1]);  // unsorted row
  CHECK_THROWS_AS(validate(c), std::invalid_argument);
  c = coo_to_csr(example_coo());
  c.row_ptr.pop_back();
  CHECK_THROWS_AS(validate(c), std::invalid_argument);
}

TEST_CASE("ELL: column-major slots padded with (-1, 0), hand-checked",
          "[common][sparse][formats]") {
  const EllMatrix e = csr_to_ell(coo_to_csr(example_coo()));
  REQUIRE(e.width == 4);
  // Slot k of row i at k * rows + i: the first slots of all rows, then the second slots, ...
  const index_t P = kEllPadding;
  CHECK(e.col_idx == std::vector<index_t>{0, P, 0, 1,  //
                                          2, P, 1, P,  //
                                          P, P, 2, P,  //
                                          P, P, 3, P});
  CHECK(e.val == std::vector<float>{1, 0, 3, 7,  //
                                    2, 0, 4, 0,  //
                                    0, 0, 5, 0,  //
                                    0, 0, 6, 0});
  CHECK(kEllPadding == -1);

  const CsrMatrix csr = coo_to_csr(example_coo());
  CHECK_THROWS_AS(csr_to_ell(csr, 3), std::invalid_argument);
  const EllMatrix wide = csr_to_ell(csr, 6);
  CHECK(wide.width == 6);
  CHECK(wide.col_idx.size() == 24);
  CHECK(std::count(wide.col_idx.begin(), wide.col_idx.end(), kEllPadding) == 24 - 7);
}

TEST_CASE("HYB: the one-third rule and the ELL/COO split, hand-checked",
          "[common][sparse][formats]") {
  const CsrMatrix csr = coo_to_csr(example_coo());
  // Row lengths 2, 0, 4, 1 over 4 rows. Slot column 0 is filled by 3 rows, column 1 by 2 (both
  // >= 4/3), column 2 by 1 (< 4/3): K = 2.
  CHECK(hyb_ell_width(csr) == 2);
  const HybMatrix h = csr_to_hyb(csr);
  const index_t P = kEllPadding;
  CHECK(h.ell.width == 2);
  CHECK(h.ell.col_idx == std::vector<index_t>{0, P, 0, 1, 2, P, 1, P});
  CHECK(h.ell.val == std::vector<float>{1, 0, 3, 7, 2, 0, 4, 0});
  CHECK(h.coo.rows == 4);
  CHECK(h.coo.row == std::vector<index_t>{2, 2});
  CHECK(h.coo.col == std::vector<index_t>{2, 3});
  CHECK(h.coo.val == std::vector<float>{5, 6});

  // An explicit width overrides the rule.
  const HybMatrix all_coo = csr_to_hyb(csr, 0);
  CHECK(all_coo.ell.width == 0);
  CHECK(all_coo.coo.nnz() == 7);
}

TEST_CASE("HYB: the one-third rule on row-length distributions", "[common][sparse][formats]") {
  // Equal rows: all ELL.
  CHECK(hyb_ell_width(with_row_lengths(std::vector<index_t>(10, 5), 8)) == 5);
  // One long row among 99 of length 3: the long row's tail goes to COO.
  std::vector<index_t> lengths(100, 3);
  lengths[42] = 60;
  CHECK(hyb_ell_width(with_row_lengths(lengths, 64)) == 3);
  // Exactly one third of the rows still filled stays in ELL; just under a third does not.
  CHECK(hyb_ell_width(with_row_lengths({1, 1, 5}, 8)) == 5);
  CHECK(hyb_ell_width(with_row_lengths({1, 1, 1, 5}, 8)) == 1);
  CHECK(hyb_ell_width(with_row_lengths({2, 4, 0, 0, 0, 6}, 8)) == 4);
  // Mostly empty rows: nothing is worth an ELL column.
  CHECK(hyb_ell_width(with_row_lengths({0, 0, 0, 3}, 8)) == 0);
  CHECK(hyb_ell_width(with_row_lengths({0, 0, 0}, 8)) == 0);
  CHECK(hyb_ell_width(CsrMatrix{}) == 0);
}

TEST_CASE("ELL and HYB compute the same y as CSR on generated matrices",
          "[common][sparse][formats]") {
  const std::uint64_t seed = GENERATE(std::uint64_t{5}, std::uint64_t{6});
  CAPTURE(seed);
  const std::vector<CsrMatrix> matrices = generated_matrices(seed);
  for (const CsrMatrix& a : matrices) {
    CAPTURE(a.rows, a.cols, a.nnz());
    const std::vector<float> x = cudalab::random_floats(static_cast<std::size_t>(a.cols), seed);
    const std::vector<double> ref = spmv_reference(a, x);
    const HybMatrix h = csr_to_hyb(a);
    CHECK(h.ell.col_idx.size() == static_cast<std::size_t>(a.rows) * h.ell.width);
    CHECK(h.coo.nnz() + (h.ell.col_idx.size() -
                         static_cast<std::size_t>(std::count(h.ell.col_idx.begin(),
                                                             h.ell.col_idx.end(), kEllPadding))) ==
          a.nnz());
    const std::vector<double> yh = hyb_times(h, x);
    const std::vector<double> ye = ell_times(csr_to_ell(a), x);
    for (index_t i = 0; i < a.rows; ++i) {
      CAPTURE(i);
      CHECK(yh[i] == Approx(ref[i]).margin(1e-12));
      CHECK(ye[i] == Approx(ref[i]).margin(1e-12));
    }
  }
}

namespace {

// y of a row-panel matrix in double, slot by slot, as the kernel adds them (a long row's 32 lane
// accumulators summed into its own); checks the layout's invariants on the way.
std::vector<double> panel_times(const PanelMatrix& m, const std::vector<float>& x) {
  std::vector<double> y(static_cast<std::size_t>(m.rows), 0.0);
  REQUIRE(m.run_ptr.size() == m.panels() * m.parts + 1);
  REQUIRE(m.split_ptr.size() == m.panels() + 1);
  REQUIRE(m.val.size() == m.packed.size());
  REQUIRE(m.group_col.size() * 32 == m.packed.size());
  for (std::size_t run = 0; run + 1 < m.run_ptr.size(); ++run) {
    const std::size_t p = run / m.parts;
    const index_t rows = m.panel_row[p + 1] - m.panel_row[p];
    const index_t accumulators = rows + 32 * (m.split_ptr[p + 1] - m.split_ptr[p]);
    CHECK(accumulators <= m.max_accumulators);
    CHECK(m.run_ptr[run] % 32 == 0);
    for (auto k = static_cast<std::size_t>(m.run_ptr[run]);
         k < static_cast<std::size_t>(m.run_ptr[run + 1]); ++k) {
      const index_t col = panel_column(m, k);
      CHECK(col - m.group_col[k / 32] < 65536);
      const std::uint32_t acc = m.packed[k] >> 16;
      if (acc == kPanelPadding) {
        CHECK(m.val[k] == 0.0f);
        continue;
      }
      if (k % 32 != 0) CHECK(col >= panel_column(m, k - 1));  // column order
      REQUIRE(static_cast<index_t>(acc) < accumulators);
      index_t local = static_cast<index_t>(acc);
      if (local >= rows) {  // a long row's lane accumulator: the entry's own lane
        CHECK((local - rows) % 32 == static_cast<index_t>(k % 32));
        local = m.split_row[m.split_ptr[p] + (local - rows) / 32];
      }
      y[static_cast<std::size_t>(m.panel_row[p] + local)] += static_cast<double>(m.val[k]) * x[col];
    }
  }
  return y;
}

std::size_t panel_entries(const PanelMatrix& m) {
  return static_cast<std::size_t>(
      std::count_if(m.packed.begin(), m.packed.end(),
                    [](std::uint32_t v) { return (v >> 16) != kPanelPadding; }));
}

}  // namespace

TEST_CASE("Row panels: the cut, the column order and padding, hand-checked",
          "[common][sparse][formats]") {
  // The example's rows have 2, 0, 4, 1 entries (7 in all). Two panels: the first ends where the
  // entries reach 7 / 2, so rows 0-2 (6 entries), then row 3.
  const CsrMatrix a = coo_to_csr(example_coo());
  const PanelMatrix m = csr_to_panels(a, 2, 1, 100);
  CHECK(m.panel_row == std::vector<index_t>{0, 3, 4});
  CHECK(m.max_accumulators == 3);
  CHECK(m.split_ptr == std::vector<index_t>{0, 0, 0});
  CHECK(m.run_ptr == std::vector<index_t>{0, 32, 64});
  CHECK(m.group_col == std::vector<index_t>{0, 1});
  // Panel 0 in column order: (0,0)=1 (2,0)=3 (2,1)=4 (0,2)=2 (2,2)=5 (2,3)=6, then padding.
  const std::vector<std::uint32_t> first = {0u << 16 | 0, 2u << 16 | 0, 2u << 16 | 1,
                                            0u << 16 | 2, 2u << 16 | 2, 2u << 16 | 3};
  CHECK(std::vector<std::uint32_t>(m.packed.begin(), m.packed.begin() + 6) == first);
  CHECK(std::vector<float>(m.val.begin(), m.val.begin() + 6) ==
        std::vector<float>{1, 3, 4, 2, 5, 6});
  CHECK(m.packed[6] == (0xffffu << 16 | 0));
  CHECK(m.val[6] == 0.0f);
  // Panel 1: row 3 (local row 0), column 1.
  CHECK(m.packed[32] == (0u << 16 | 1));
  CHECK(m.val[32] == 7.0f);

  // One panel in two parts: the 7 entries in column order, 3 to the first run, 4 to the second.
  const PanelMatrix two = csr_to_panels(a, 1, 2, 100);
  CHECK(two.panel_row == std::vector<index_t>{0, 4});
  CHECK(two.run_ptr == std::vector<index_t>{0, 32, 64});
  CHECK(two.group_col == std::vector<index_t>{0, 1});
  CHECK(std::vector<float>(two.val.begin(), two.val.begin() + 4) == std::vector<float>{1, 3, 4, 0});
  CHECK(std::vector<float>(two.val.begin() + 32, two.val.begin() + 37) ==
        std::vector<float>{7, 2, 5, 6, 0});

  // Every row of at least one entry is long (33 accumulators), and a panel holds 33: one row per
  // panel whatever the entries say. Row 0's entries go to lane accumulators 1 + lane.
  const PanelMatrix single = csr_to_panels(a, 2, 1, 33, 1);
  CHECK(single.panel_row == std::vector<index_t>{0, 1, 2, 3, 4});
  CHECK(single.split_ptr == std::vector<index_t>{0, 1, 1, 2, 3});
  CHECK(single.split_row == std::vector<index_t>{0, 0, 0});
  CHECK(single.run_ptr == std::vector<index_t>{0, 32, 32, 64, 96});
  CHECK(single.max_accumulators == 33);
  CHECK(single.packed[0] >> 16 == 1);
  CHECK(single.packed[1] >> 16 == 2);
  CHECK(single.packed[2] >> 16 == kPanelPadding);
}

TEST_CASE("Row panels: a group never spans 65536 columns", "[common][sparse][formats]") {
  CsrMatrix a;
  a.rows = 1;
  a.cols = 200000;
  a.row_ptr = {0, 5};
  a.col_idx = {0, 1, 70000, 135535, 140000};
  a.val = {1, 2, 3, 4, 5};
  const PanelMatrix m = csr_to_panels(a, 1, 1, 100);
  // 0 and 1 share a group; 70000 is too far and opens the next, 135535 = 70000 + 65535 still fits,
  // 140000 opens a third.
  CHECK(m.group_col == std::vector<index_t>{0, 70000, 140000});
  CHECK(m.run_ptr == std::vector<index_t>{0, 96});
  CHECK(panel_column(m, 33) == 135535);
  CHECK(panel_entries(m) == 5);
  const std::vector<float> x(200000, 0.5f);
  CHECK(panel_times(m, x)[0] == Approx(7.5));
}

TEST_CASE("Row panels compute the same y as CSR on generated matrices",
          "[common][sparse][formats]") {
  const std::uint64_t seed = GENERATE(std::uint64_t{5}, std::uint64_t{6});
  const index_t panels = GENERATE(index_t{1}, index_t{3}, index_t{64});
  const index_t parts = GENERATE(index_t{1}, index_t{2}, index_t{3});
  const index_t max_accumulators = GENERATE(index_t{40}, index_t{65535});
  const index_t split_length = GENERATE(index_t{1}, index_t{8}, index_t{1024});
  CAPTURE(seed, panels, parts, max_accumulators, split_length);
  for (const CsrMatrix& a : generated_matrices(seed)) {
    CAPTURE(a.rows, a.cols, a.nnz());
    const PanelMatrix m = csr_to_panels(a, panels, parts, max_accumulators, split_length);
    CHECK(m.panel_row.back() == a.rows);
    CHECK(m.max_accumulators <= max_accumulators);
    std::size_t long_rows = 0;
    for (index_t i = 0; i < a.rows; ++i) long_rows += a.row_length(i) >= split_length ? 1 : 0;
    CHECK(m.split_row.size() == long_rows);
    CHECK(panel_entries(m) == a.nnz());
    const std::vector<float> x = cudalab::random_floats(static_cast<std::size_t>(a.cols), seed);
    const std::vector<double> ref = spmv_reference(a, x);
    const std::vector<double> y = panel_times(m, x);
    for (index_t i = 0; i < a.rows; ++i) {
      CAPTURE(i);
      CHECK(y[i] == Approx(ref[i]).margin(1e-12));
    }
  }
}

TEST_CASE("Row panels: empty matrices and bad shapes", "[common][sparse][formats]") {
  CsrMatrix none;
  none.row_ptr = {0};
  const PanelMatrix m0 = csr_to_panels(none, 4, 2, 100);
  CHECK(m0.panels() == 0);
  CHECK(m0.run_ptr == std::vector<index_t>{0});
  CsrMatrix zeros;
  zeros.rows = 5;
  zeros.cols = 3;
  zeros.row_ptr = std::vector<index_t>(6, 0);
  const PanelMatrix mz = csr_to_panels(zeros, 2, 2, 100);
  CHECK(mz.panel_row.back() == 5);
  CHECK(mz.packed.empty());
  CHECK(mz.run_ptr == std::vector<index_t>(mz.panels() * 2 + 1, 0));

  const CsrMatrix a = coo_to_csr(example_coo());
  CHECK_THROWS_WITH(csr_to_panels(a, 0, 1, 100), Catch::Contains("panels must be"));
  CHECK_THROWS_WITH(csr_to_panels(a, 2, 0, 100), Catch::Contains("parts must be"));
  CHECK_THROWS_WITH(csr_to_panels(a, 2, 9, 100), Catch::Contains("parts must be"));
  CHECK_THROWS_WITH(csr_to_panels(a, 2, 1, 32), Catch::Contains("max_accumulators"));
  CHECK_THROWS_WITH(csr_to_panels(a, 2, 1, 65536), Catch::Contains("max_accumulators"));
  CHECK_THROWS_WITH(csr_to_panels(a, 2, 1, 100, 0), Catch::Contains("split_length"));
}

TEST_CASE("SpMV reference: y = A x in double on a tiny matrix", "[common][sparse][spmv]") {
  const CsrMatrix a = coo_to_csr(example_coo());
  const std::vector<float> x = {1.0f, -2.0f, 0.5f, 3.0f};
  // Row 0: 1 + 2*0.5 = 2; row 1 empty; row 2: 3 - 8 + 2.5 + 18 = 15.5; row 3: -14.
  CHECK(spmv_reference(a, x) == std::vector<double>{2.0, 0.0, 15.5, -14.0});
  CHECK(spmv_abs_reference(a, x) == std::vector<double>{2.0, 0.0, 31.5, 14.0});
  CHECK_THROWS_AS(spmv_reference(a, std::vector<float>(3)), std::invalid_argument);
}

TEST_CASE("SpMV error bound: gamma(row length) * sum |a x| holds for float sums in any order",
          "[common][sparse][spmv]") {
  const CsrMatrix a = power_law_matrix(400, 3000, 2, 3000, 9);
  const std::vector<float> x = cudalab::random_floats(3000, 10);
  const std::vector<double> ref = spmv_reference(a, x);
  const std::vector<double> bound = spmv_error_bound(a, x);
  const std::vector<double> abs = spmv_abs_reference(a, x);
  for (index_t i = 0; i < a.rows; ++i) {
    CAPTURE(i, a.row_length(i));
    const double ku = a.row_length(i) / 16777216.0;
    CHECK(bound[i] == Approx(abs[i] * ku / (1 - ku)));
    // Sequential and reversed float sums (thread per row, another order) stay within it.
    float forward = 0.0f, backward = 0.0f;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) forward += a.val[k] * x[a.col_idx[k]];
    for (index_t k = a.row_ptr[i + 1] - 1; k >= a.row_ptr[i]; --k)
      backward += a.val[k] * x[a.col_idx[k]];
    CHECK(std::fabs(forward - ref[i]) <= bound[i]);
    CHECK(std::fabs(backward - ref[i]) <= bound[i]);
  }
}

TEST_CASE("SpMV error bound: the largest row with |x| <= 1 is the largest with x all ones",
          "[common][sparse][spmv]") {
  // 300000 rows: large enough for the host threads (on a machine with more than one).
  for (const CsrMatrix& a :
       {random_matrix(57, 40, 0, 40, 3), power_law_matrix(300000, 300000, 1, 3000, 4)}) {
    CAPTURE(a.rows);
    const std::vector<double> bound =
        spmv_error_bound(a, std::vector<float>(static_cast<std::size_t>(a.cols), 1.0f));
    CHECK(spmv_max_error_bound(a) == *std::max_element(bound.begin(), bound.end()));
    // Each row's, rounded up to float: never below the double bound, within a float's step of it.
    const std::vector<float> rows = spmv_row_error_bounds(a);
    REQUIRE(rows.size() == bound.size());
    std::size_t below = 0, loose = 0;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (static_cast<double>(rows[i]) < bound[i]) ++below;
      if (static_cast<double>(rows[i]) > bound[i] * (1.0 + 1.2e-7)) ++loose;
    }
    CHECK(below == 0);
    CHECK(loose == 0);
  }
  CsrMatrix empty;
  CHECK(spmv_max_error_bound(empty) == 0.0);
  CHECK(spmv_row_error_bounds(empty).empty());
}

TEST_CASE("COO, ELL and HYB of a large matrix (built by host threads) hold its entries in order",
          "[common][sparse][formats]") {
  const CsrMatrix a = random_matrix(300000, 200000, 0, 20, 5);
  const CooMatrix coo = csr_to_coo(a);
  const EllMatrix ell = csr_to_ell(a);
  const HybMatrix hyb = csr_to_hyb(a, 6);
  REQUIRE(coo.nnz() == a.nnz());
  CHECK(coo.col == a.col_idx);
  CHECK(coo.val == a.val);
  std::size_t in_coo = 0;
  bool rows_right = true, ell_right = true, hyb_right = true;
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t slot = k - a.row_ptr[i];
      rows_right = rows_right && coo.row[static_cast<std::size_t>(k)] == i;
      ell_right = ell_right && ell.col_idx[ell.slot(i, slot)] == a.col_idx[k] &&
                  ell.val[ell.slot(i, slot)] == a.val[k];
      if (slot < 6) {
        hyb_right = hyb_right && hyb.ell.col_idx[hyb.ell.slot(i, slot)] == a.col_idx[k];
      } else {
        hyb_right = hyb_right && hyb.coo.row[in_coo] == i && hyb.coo.col[in_coo] == a.col_idx[k] &&
                    hyb.coo.val[in_coo] == a.val[k];
        ++in_coo;
      }
    }
    for (index_t slot = a.row_length(i); slot < ell.width; ++slot)
      ell_right = ell_right && ell.col_idx[ell.slot(i, slot)] == kEllPadding &&
                  ell.val[ell.slot(i, slot)] == 0.0f;
  }
  CHECK(rows_right);
  CHECK(ell_right);
  CHECK(hyb_right);
  CHECK(in_coo == hyb.coo.nnz());
  // The first problem in row order is the one reported, whichever thread finds it.
  CsrMatrix bad = a;
  bad.col_idx[static_cast<std::size_t>(bad.row_ptr[250000])] = -1;
  bad.row_ptr[200000] = bad.row_ptr[199999] - 1;
  CHECK_THROWS_WITH(validate(bad), "CSR: row_ptr decreases at row 199999");
  bad.col_idx[static_cast<std::size_t>(bad.row_ptr[100000])] = 200000;
  CHECK_THROWS_WITH(validate(bad), "CSR: row 100000 has column 200000 outside 0..199999");
}
