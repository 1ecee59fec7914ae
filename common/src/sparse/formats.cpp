#include "cudalab/sparse/formats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace cudalab::sparse {

namespace {

constexpr std::size_t kMaxEntries = static_cast<std::size_t>(std::numeric_limits<index_t>::max());

[[noreturn]] void fail(const std::string& what) {
  throw std::invalid_argument(what);
}

void check_shape(index_t rows, index_t cols, const char* kind) {
  if (rows < 0 || cols < 0)
    fail(std::string(kind) + ": negative size " + std::to_string(rows) + " x " +
         std::to_string(cols));
}

}  // namespace

void validate(const CooMatrix& a) {
  check_shape(a.rows, a.cols, "COO");
  if (a.row.size() != a.val.size() || a.col.size() != a.val.size())
    fail("COO: row, col and val have different lengths (" + std::to_string(a.row.size()) + ", " +
         std::to_string(a.col.size()) + ", " + std::to_string(a.val.size()) + ")");
  if (a.nnz() > kMaxEntries) fail("COO: more than 2^31 - 1 entries");
  for (std::size_t k = 0; k < a.nnz(); ++k) {
    if (a.row[k] < 0 || a.row[k] >= a.rows || a.col[k] < 0 || a.col[k] >= a.cols)
      fail("COO: entry " + std::to_string(k) + " at (" + std::to_string(a.row[k]) + ", " +
           std::to_string(a.col[k]) + ") lies outside the " + std::to_string(a.rows) + " x " +
           std::to_string(a.cols) + " matrix");
  }
}

void validate(const CsrMatrix& a) {
  check_shape(a.rows, a.cols, "CSR");
  if (a.row_ptr.size() != static_cast<std::size_t>(a.rows) + 1)
    fail("CSR: row_ptr has " + std::to_string(a.row_ptr.size()) +
         " entries, expected rows + 1 = " + std::to_string(static_cast<std::size_t>(a.rows) + 1));
  if (a.col_idx.size() != a.val.size()) fail("CSR: col_idx and val have different lengths");
  if (a.row_ptr[0] != 0) fail("CSR: row_ptr[0] is not 0");
  if (static_cast<std::size_t>(a.row_ptr[a.rows]) != a.nnz())
    fail("CSR: row_ptr[rows] = " + std::to_string(a.row_ptr[a.rows]) + " but there are " +
         std::to_string(a.nnz()) + " entries");
  for (index_t i = 0; i < a.rows; ++i) {
    if (a.row_ptr[i + 1] < a.row_ptr[i]) fail("CSR: row_ptr decreases at row " + std::to_string(i));
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] < 0 || a.col_idx[k] >= a.cols)
        fail("CSR: row " + std::to_string(i) + " has column " + std::to_string(a.col_idx[k]) +
             " outside 0.." + std::to_string(a.cols - 1));
      if (k > a.row_ptr[i] && a.col_idx[k] <= a.col_idx[k - 1])
        fail("CSR: columns of row " + std::to_string(i) + " are not strictly increasing");
    }
  }
}

CsrMatrix coo_to_csr(const CooMatrix& a) {
  validate(a);
  const std::size_t n = a.nnz();
  // Counting sort by row keeps the input order within a row (stable), then a stable sort of each
  // row by column; duplicates are then adjacent and in input order.
  std::vector<std::size_t> count(static_cast<std::size_t>(a.rows) + 1, 0);
  for (std::size_t k = 0; k < n; ++k) ++count[static_cast<std::size_t>(a.row[k]) + 1];
  std::partial_sum(count.begin(), count.end(), count.begin());
  std::vector<std::size_t> order(n);
  {
    std::vector<std::size_t> next(count.begin(), count.end() - 1);
    for (std::size_t k = 0; k < n; ++k) order[next[a.row[k]]++] = k;
  }
  CsrMatrix out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  out.col_idx.reserve(n);
  out.val.reserve(n);
  for (index_t i = 0; i < a.rows; ++i) {
    const auto first = order.begin() + static_cast<std::ptrdiff_t>(count[i]);
    const auto last = order.begin() + static_cast<std::ptrdiff_t>(count[i + 1]);
    std::stable_sort(first, last,
                     [&](std::size_t x, std::size_t y) { return a.col[x] < a.col[y]; });
    for (auto it = first; it != last;) {
      const index_t c = a.col[*it];
      double sum = 0.0;
      for (; it != last && a.col[*it] == c; ++it) sum += static_cast<double>(a.val[*it]);
      out.col_idx.push_back(c);
      out.val.push_back(static_cast<float>(sum));
    }
    out.row_ptr[static_cast<std::size_t>(i) + 1] = static_cast<index_t>(out.col_idx.size());
  }
  return out;
}

CooMatrix csr_to_coo(const CsrMatrix& a) {
  validate(a);
  CooMatrix out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.row.reserve(a.nnz());
  for (index_t i = 0; i < a.rows; ++i)
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) out.row.push_back(i);
  out.col = a.col_idx;
  out.val = a.val;
  return out;
}

std::vector<index_t> row_lengths(const CsrMatrix& a) {
  std::vector<index_t> len(static_cast<std::size_t>(a.rows));
  for (index_t i = 0; i < a.rows; ++i) len[i] = a.row_length(i);
  return len;
}

namespace {

// ELL part of `a` with `width` slots; entries beyond the width are left out (the caller puts them
// in COO or has checked there are none).
EllMatrix build_ell(const CsrMatrix& a, index_t width) {
  EllMatrix ell;
  ell.rows = a.rows;
  ell.cols = a.cols;
  ell.width = width;
  const std::size_t slots = static_cast<std::size_t>(a.rows) * static_cast<std::size_t>(width);
  ell.col_idx.assign(slots, kEllPadding);
  ell.val.assign(slots, 0.0f);
  for (index_t i = 0; i < a.rows; ++i) {
    const index_t len = std::min(a.row_length(i), width);
    for (index_t k = 0; k < len; ++k) {
      ell.col_idx[ell.slot(i, k)] = a.col_idx[a.row_ptr[i] + k];
      ell.val[ell.slot(i, k)] = a.val[a.row_ptr[i] + k];
    }
  }
  return ell;
}

index_t longest_row(const CsrMatrix& a) {
  index_t longest = 0;
  for (index_t i = 0; i < a.rows; ++i) longest = std::max(longest, a.row_length(i));
  return longest;
}

}  // namespace

EllMatrix csr_to_ell(const CsrMatrix& a, index_t width) {
  validate(a);
  const index_t longest = longest_row(a);
  if (width < 0) width = longest;
  if (longest > width)
    fail("ELL: a row has " + std::to_string(longest) + " entries, more than the width " +
         std::to_string(width));
  return build_ell(a, width);
}

index_t hyb_ell_width(const CsrMatrix& a) {
  // rows_longer[k] = #{rows with length > k}; non-increasing in k.
  const index_t longest = longest_row(a);
  std::vector<std::int64_t> rows_longer(static_cast<std::size_t>(longest) + 1, 0);
  for (index_t i = 0; i < a.rows; ++i)
    if (a.row_length(i) > 0) ++rows_longer[a.row_length(i) - 1];
  for (index_t k = longest - 1; k >= 0; --k) rows_longer[k] += rows_longer[k + 1];
  index_t width = 0;
  while (width < longest && 3 * rows_longer[width] >= std::int64_t{a.rows}) ++width;
  return width;
}

HybMatrix csr_to_hyb(const CsrMatrix& a, index_t width) {
  validate(a);
  if (width < 0) width = hyb_ell_width(a);
  HybMatrix hyb;
  hyb.ell = build_ell(a, width);
  hyb.coo.rows = a.rows;
  hyb.coo.cols = a.cols;
  for (index_t i = 0; i < a.rows; ++i)
    for (index_t k = a.row_ptr[i] + width; k < a.row_ptr[i + 1]; ++k)
      hyb.coo.push_back(i, a.col_idx[k], a.val[k]);
  return hyb;
}

SellMatrix csr_to_sell(const CsrMatrix& a, index_t window, index_t max_piece) {
  validate(a);
  if (window < 1 || window > 32767)
    fail("csr_to_sell: the window must be in [1, 32767] rows, got " + std::to_string(window));
  if (max_piece < 1)
    fail("csr_to_sell: max_piece must be at least 1, got " + std::to_string(max_piece));
  constexpr int kLanes = 32;
  SellMatrix s;
  s.rows = a.rows;
  s.cols = a.cols;
  s.window = window;
  struct Piece {
    index_t local, start, length;
  };
  std::vector<Piece> pieces;
  long long slots = 0;
  for (index_t first = 0; first < a.rows; first += window) {
    const index_t last = std::min<long long>(a.rows, static_cast<long long>(first) + window);
    pieces.clear();
    for (index_t i = first; i < last; ++i) {
      const index_t begin = a.row_ptr[i], length = a.row_ptr[i + 1] - begin;
      const index_t parts = (length + max_piece - 1) / max_piece;
      for (index_t p = 0; p < parts; ++p) {
        const auto from = static_cast<index_t>(static_cast<long long>(length) * p / parts);
        const auto to = static_cast<index_t>(static_cast<long long>(length) * (p + 1) / parts);
        pieces.push_back({i - first, begin + from, to - from});
      }
    }
    std::stable_sort(pieces.begin(), pieces.end(),
                     [](const Piece& l, const Piece& r) { return l.length > r.length; });
    for (std::size_t p0 = 0; p0 < pieces.size(); p0 += kLanes) {
      const index_t width = pieces[p0].length;
      const long long base = slots;
      slots += static_cast<long long>(kLanes) * width;
      if (slots > std::numeric_limits<index_t>::max())
        fail("csr_to_sell: more than 2^31 - 1 slots with padding");
      s.col_idx.resize(static_cast<std::size_t>(slots), 0);
      s.val.resize(static_cast<std::size_t>(slots), 0.0f);
      for (int lane = 0; lane < kLanes; ++lane) {
        const std::size_t p = p0 + lane;
        if (p >= pieces.size()) {
          s.lane_row.push_back(-1);
          continue;
        }
        s.lane_row.push_back(static_cast<std::int16_t>(pieces[p].local));
        for (index_t k = 0; k < pieces[p].length; ++k) {
          const auto slot =
              static_cast<std::size_t>(base + static_cast<long long>(kLanes) * k + lane);
          s.col_idx[slot] = a.col_idx[pieces[p].start + k];
          s.val[slot] = a.val[pieces[p].start + k];
        }
      }
      s.slice_ptr.push_back(static_cast<index_t>(slots));
    }
    s.window_slice.push_back(static_cast<index_t>(s.slices()));
  }
  return s;
}

namespace {

void check_x(const CsrMatrix& a, const std::vector<float>& x) {
  if (x.size() != static_cast<std::size_t>(a.cols))
    fail("SpMV: x has " + std::to_string(x.size()) + " entries, the matrix " +
         std::to_string(a.cols) + " columns");
}

}  // namespace

std::vector<double> spmv_reference(const CsrMatrix& a, const std::vector<float>& x) {
  check_x(a, x);
  std::vector<double> y(static_cast<std::size_t>(a.rows), 0.0);
  for (index_t i = 0; i < a.rows; ++i) {
    double sum = 0.0;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      sum += static_cast<double>(a.val[k]) * static_cast<double>(x[a.col_idx[k]]);
    y[i] = sum;
  }
  return y;
}

std::vector<double> spmv_abs_reference(const CsrMatrix& a, const std::vector<float>& x) {
  check_x(a, x);
  std::vector<double> y(static_cast<std::size_t>(a.rows), 0.0);
  for (index_t i = 0; i < a.rows; ++i) {
    double sum = 0.0;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      sum += std::fabs(static_cast<double>(a.val[k]) * static_cast<double>(x[a.col_idx[k]]));
    y[i] = sum;
  }
  return y;
}

std::vector<double> spmv_error_bound(const CsrMatrix& a, const std::vector<float>& x) {
  std::vector<double> bound = spmv_abs_reference(a, x);
  constexpr double u = 1.0 / 16777216.0;  // unit roundoff of float, 2^-24
  for (index_t i = 0; i < a.rows; ++i) {
    const double ku = static_cast<double>(a.row_length(i)) * u;
    // k u >= 1 only for rows of 2^24 entries or more, where the bound says nothing.
    bound[i] = ku < 1.0 ? bound[i] * ku / (1.0 - ku) : std::numeric_limits<double>::infinity();
  }
  return bound;
}

}  // namespace cudalab::sparse
