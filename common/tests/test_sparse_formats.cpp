// Sparse formats: hand-checked COO/CSR/ELL/HYB/SELL of a small matrix, the course's one-third HYB
// rule, duplicate summing, and the double-precision SpMV reference with its error bound.
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

using cudalab::sparse::CooMatrix;
using cudalab::sparse::CsrMatrix;
using cudalab::sparse::EllMatrix;
using cudalab::sparse::HybMatrix;
using cudalab::sparse::index_t;
using cudalab::sparse::kEllPadding;

namespace {

// [ 1 0 2 0 ]
// [ 0 0 0 0 ]   row 1 empty
// [ 3 4 5 6 ]   the long row
// [ 0 7 0 0 ]
// given in scrambled order with (2,2) split into 2 + 3.
CooMatrix example_coo() {
  CooMatrix a;
  a.rows = a.cols = 4;
  a.push_back(2, 3, 6.0f);
  a.push_back(0, 2, 2.0f);
  a.push_back(2, 2, 2.0f);
  a.push_back(3, 1, 7.0f);
  a.push_back(2, 0, 3.0f);
  a.push_back(0, 0, 1.0f);
  a.push_back(2, 2, 3.0f);
  a.push_back(2, 1, 4.0f);
  return a;
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
      cudalab::sparse::power_law_matrix(300, 200, 1, 200, seed),
      cudalab::sparse::empty_rows_matrix(100, 50, 7, 30, seed),
      cudalab::sparse::long_row_matrix(64, 500, 4, 17, 500, seed),
      cudalab::sparse::poisson_2d(7),
  };
}

}  // namespace

TEST_CASE("CSR from COO: sorted rows and columns, duplicates summed, hand-checked",
          "[common][sparse][formats]") {
  const CsrMatrix a = cudalab::sparse::coo_to_csr(example_coo());
  CHECK(a.rows == 4);
  CHECK(a.cols == 4);
  CHECK(a.row_ptr == std::vector<index_t>{0, 2, 2, 6, 7});
  CHECK(a.col_idx == std::vector<index_t>{0, 2, 0, 1, 2, 3, 1});
  CHECK(a.val == std::vector<float>{1, 2, 3, 4, 5, 6, 7});
  CHECK(cudalab::sparse::row_lengths(a) == std::vector<index_t>{2, 0, 4, 1});
  CHECK_NOTHROW(cudalab::sparse::validate(a));

  const CooMatrix back = cudalab::sparse::csr_to_coo(a);
  CHECK(back.row == std::vector<index_t>{0, 0, 2, 2, 2, 2, 3});
  CHECK(back.col == a.col_idx);
  CHECK(back.val == a.val);
}

TEST_CASE("CSR from COO: duplicates add in double, independent of the entry order",
          "[common][sparse][formats]") {
  // In float, 1e8 + 1 - 1e8 is 0 or 1 depending on the order; in double it is exactly 1.
  CooMatrix a;
  a.rows = a.cols = 2;
  a.push_back(1, 1, 1e8f);
  a.push_back(1, 1, 1.0f);
  a.push_back(0, 1, 5.0f);
  a.push_back(1, 1, -1e8f);
  const CsrMatrix c = cudalab::sparse::coo_to_csr(a);
  CHECK(c.row_ptr == std::vector<index_t>{0, 1, 2});
  CHECK(c.val == std::vector<float>{5.0f, 1.0f});

  // Any permutation of a COO without duplicates gives the same CSR.
  const CooMatrix base =
      cudalab::sparse::csr_to_coo(cudalab::sparse::random_matrix(60, 50, 0, 9, 3));
  std::vector<std::size_t> order(base.nnz());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::mt19937_64 rng(11);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng() % i]);
  CooMatrix shuffled;
  shuffled.rows = base.rows;
  shuffled.cols = base.cols;
  for (std::size_t k : order) shuffled.push_back(base.row[k], base.col[k], base.val[k]);
  const CsrMatrix x = cudalab::sparse::coo_to_csr(base), y = cudalab::sparse::coo_to_csr(shuffled);
  CHECK(x.row_ptr == y.row_ptr);
  CHECK(x.col_idx == y.col_idx);
  CHECK(x.val == y.val);
}

TEST_CASE("CSR from COO: bad input is refused", "[common][sparse][formats]") {
  CooMatrix a;
  a.rows = a.cols = 2;
  a.push_back(2, 0, 1.0f);
  CHECK_THROWS_AS(cudalab::sparse::coo_to_csr(a), std::invalid_argument);
  a.row = {0};
  a.col = {-1};
  CHECK_THROWS_AS(cudalab::sparse::coo_to_csr(a), std::invalid_argument);
  a.col = {0, 1};
  CHECK_THROWS_AS(cudalab::sparse::coo_to_csr(a), std::invalid_argument);

  CsrMatrix c = cudalab::sparse::coo_to_csr(example_coo());
  std::swap(c.col_idx[0], c.col_idx[1]);  // unsorted row
  CHECK_THROWS_AS(cudalab::sparse::validate(c), std::invalid_argument);
  c = cudalab::sparse::coo_to_csr(example_coo());
  c.row_ptr.pop_back();
  CHECK_THROWS_AS(cudalab::sparse::validate(c), std::invalid_argument);
}

TEST_CASE("ELL: column-major slots padded with (-1, 0), hand-checked",
          "[common][sparse][formats]") {
  const EllMatrix e = cudalab::sparse::csr_to_ell(cudalab::sparse::coo_to_csr(example_coo()));
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

  const CsrMatrix csr = cudalab::sparse::coo_to_csr(example_coo());
  CHECK_THROWS_AS(cudalab::sparse::csr_to_ell(csr, 3), std::invalid_argument);
  const EllMatrix wide = cudalab::sparse::csr_to_ell(csr, 6);
  CHECK(wide.width == 6);
  CHECK(wide.col_idx.size() == 24);
  CHECK(std::count(wide.col_idx.begin(), wide.col_idx.end(), kEllPadding) == 24 - 7);
}

TEST_CASE("HYB: the one-third rule and the ELL/COO split, hand-checked",
          "[common][sparse][formats]") {
  const CsrMatrix csr = cudalab::sparse::coo_to_csr(example_coo());
  // Row lengths 2, 0, 4, 1 over 4 rows. Slot column 0 is filled by 3 rows, column 1 by 2 (both
  // >= 4/3), column 2 by 1 (< 4/3): K = 2.
  CHECK(cudalab::sparse::hyb_ell_width(csr) == 2);
  const HybMatrix h = cudalab::sparse::csr_to_hyb(csr);
  const index_t P = kEllPadding;
  CHECK(h.ell.width == 2);
  CHECK(h.ell.col_idx == std::vector<index_t>{0, P, 0, 1, 2, P, 1, P});
  CHECK(h.ell.val == std::vector<float>{1, 0, 3, 7, 2, 0, 4, 0});
  CHECK(h.coo.rows == 4);
  CHECK(h.coo.row == std::vector<index_t>{2, 2});
  CHECK(h.coo.col == std::vector<index_t>{2, 3});
  CHECK(h.coo.val == std::vector<float>{5, 6});

  // An explicit width overrides the rule.
  const HybMatrix all_coo = cudalab::sparse::csr_to_hyb(csr, 0);
  CHECK(all_coo.ell.width == 0);
  CHECK(all_coo.coo.nnz() == 7);
}

TEST_CASE("HYB: the one-third rule on row-length distributions", "[common][sparse][formats]") {
  using cudalab::sparse::hyb_ell_width;
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
    const std::vector<double> ref = cudalab::sparse::spmv_reference(a, x);
    const HybMatrix h = cudalab::sparse::csr_to_hyb(a);
    CHECK(h.ell.col_idx.size() == static_cast<std::size_t>(a.rows) * h.ell.width);
    CHECK(h.coo.nnz() + (h.ell.col_idx.size() -
                         static_cast<std::size_t>(std::count(h.ell.col_idx.begin(),
                                                             h.ell.col_idx.end(), kEllPadding))) ==
          a.nnz());
    const std::vector<double> yh = hyb_times(h, x);
    const std::vector<double> ye = ell_times(cudalab::sparse::csr_to_ell(a), x);
    for (index_t i = 0; i < a.rows; ++i) {
      CAPTURE(i);
      CHECK(yh[i] == Approx(ref[i]).margin(1e-12));
      CHECK(ye[i] == Approx(ref[i]).margin(1e-12));
    }
  }
}

namespace {

// y of a SELL matrix in double, lane by lane as the kernel adds them.
std::vector<double> sell_times(const cudalab::sparse::SellMatrix& s, const std::vector<float>& x) {
  std::vector<double> y(static_cast<std::size_t>(s.rows), 0.0);
  for (std::size_t w = 0; w + 1 < s.window_slice.size(); ++w)
    for (index_t slice = s.window_slice[w]; slice < s.window_slice[w + 1]; ++slice) {
      const index_t width = (s.slice_ptr[slice + 1] - s.slice_ptr[slice]) / 32;
      for (int lane = 0; lane < 32; ++lane) {
        const int local = s.lane_row[static_cast<std::size_t>(slice) * 32 + lane];
        double sum = 0.0;
        for (index_t k = 0; k < width; ++k) {
          const std::size_t slot = static_cast<std::size_t>(s.slice_ptr[slice]) + 32u * k + lane;
          sum += static_cast<double>(s.val[slot]) * x[s.col_idx[slot]];
        }
        if (local >= 0)
          y[w * static_cast<std::size_t>(s.window) + local] += sum;
        else
          CHECK(sum == 0.0);  // an unused lane holds padding only
      }
    }
  return y;
}

}  // namespace

TEST_CASE("SELL: pieces, the window sort and padding, hand-checked", "[common][sparse][formats]") {
  // The example's rows have 2, 0, 4, 1 entries. Window 4, pieces of at most 2: row 2 becomes two
  // pieces of 2; sorted by length: row 0 (2), row 2 (2), row 2 (2), row 3 (1); one slice of
  // width 2.
  const CsrMatrix a = cudalab::sparse::coo_to_csr(example_coo());
  const cudalab::sparse::SellMatrix s = cudalab::sparse::csr_to_sell(a, 4, 2);
  REQUIRE(s.slices() == 1);
  CHECK(s.window_slice == std::vector<index_t>{0, 1});
  CHECK(s.slice_ptr == std::vector<index_t>{0, 64});
  CHECK(std::vector<std::int16_t>(s.lane_row.begin(), s.lane_row.begin() + 5) ==
        std::vector<std::int16_t>{0, 2, 2, 3, -1});
  // Slot k of lane l at 32 k + l: lane 0 = row 0 (cols 0, 2), lane 1 = row 2's first half
  // (cols 0, 1), lane 2 its second half (cols 2, 3), lane 3 = row 3 (col 1, then padding).
  CHECK(s.col_idx[0] == 0);
  CHECK(s.col_idx[32] == 2);
  CHECK(s.col_idx[1] == 0);
  CHECK(s.col_idx[33] == 1);
  CHECK(s.col_idx[2] == 2);
  CHECK(s.col_idx[34] == 3);
  CHECK(s.col_idx[3] == 1);
  CHECK(s.val[3] == 7.0f);
  CHECK(s.val[35] == 0.0f);
  CHECK(s.val[4] == 0.0f);
}

TEST_CASE("SELL computes the same y as CSR on generated matrices", "[common][sparse][formats]") {
  const std::uint64_t seed = GENERATE(std::uint64_t{5}, std::uint64_t{6});
  const index_t window = GENERATE(index_t{1}, index_t{7}, index_t{256});
  CAPTURE(seed, window);
  const std::vector<CsrMatrix> matrices = generated_matrices(seed);
  for (const CsrMatrix& a : matrices) {
    CAPTURE(a.rows, a.cols, a.nnz());
    const cudalab::sparse::SellMatrix s = cudalab::sparse::csr_to_sell(a, window, 32);
    CHECK(s.window_slice.size() == static_cast<std::size_t>((a.rows + window - 1) / window) + 1);
    CHECK(s.lane_row.size() == 32 * s.slices());
    CHECK(s.col_idx.size() == static_cast<std::size_t>(s.slice_ptr.back()));
    CHECK(s.col_idx.size() >= a.nnz());
    for (std::size_t slice = 0; slice < s.slices(); ++slice)
      CHECK((s.slice_ptr[slice + 1] - s.slice_ptr[slice]) / 32 <= 32);  // pieces of at most 32
    const std::vector<float> x = cudalab::random_floats(static_cast<std::size_t>(a.cols), seed);
    const std::vector<double> ref = cudalab::sparse::spmv_reference(a, x);
    const std::vector<double> y = sell_times(s, x);
    for (index_t i = 0; i < a.rows; ++i) {
      CAPTURE(i);
      CHECK(y[i] == Approx(ref[i]).margin(1e-12));
    }
  }
}

TEST_CASE("SELL: bad windows and pieces are refused", "[common][sparse][formats]") {
  const CsrMatrix a = cudalab::sparse::coo_to_csr(example_coo());
  CHECK_THROWS_WITH(cudalab::sparse::csr_to_sell(a, 0), Catch::Contains("window must be in"));
  CHECK_THROWS_WITH(cudalab::sparse::csr_to_sell(a, 40000), Catch::Contains("window must be in"));
  CHECK_THROWS_WITH(cudalab::sparse::csr_to_sell(a, 4, 0), Catch::Contains("max_piece"));
}

TEST_CASE("SpMV reference: y = A x in double on a tiny matrix", "[common][sparse][spmv]") {
  const CsrMatrix a = cudalab::sparse::coo_to_csr(example_coo());
  const std::vector<float> x = {1.0f, -2.0f, 0.5f, 3.0f};
  // Row 0: 1 + 2*0.5 = 2; row 1 empty; row 2: 3 - 8 + 2.5 + 18 = 15.5; row 3: -14.
  CHECK(cudalab::sparse::spmv_reference(a, x) == std::vector<double>{2.0, 0.0, 15.5, -14.0});
  CHECK(cudalab::sparse::spmv_abs_reference(a, x) == std::vector<double>{2.0, 0.0, 31.5, 14.0});
  CHECK_THROWS_AS(cudalab::sparse::spmv_reference(a, std::vector<float>(3)), std::invalid_argument);
}

TEST_CASE("SpMV error bound: gamma(row length) * sum |a x| holds for float sums in any order",
          "[common][sparse][spmv]") {
  const CsrMatrix a = cudalab::sparse::power_law_matrix(400, 3000, 2, 3000, 9);
  const std::vector<float> x = cudalab::random_floats(3000, 10);
  const std::vector<double> ref = cudalab::sparse::spmv_reference(a, x);
  const std::vector<double> bound = cudalab::sparse::spmv_error_bound(a, x);
  const std::vector<double> abs = cudalab::sparse::spmv_abs_reference(a, x);
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
