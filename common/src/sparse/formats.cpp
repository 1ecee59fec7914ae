#include "cudalab/sparse/formats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "parallel.h"

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
  // The first row with a problem, in row order (each thread looks at its share of the rows): its
  // row_ptr decreasing, or a column out of range or not above the one before it. Columns are
  // read only in rows that lie within col_idx (0 <= row_ptr[i], row_ptr[i + 1] <= nnz; a row
  // that does not comes after a decrease, or before one, which is then reported unless a column
  // problem comes first).
  const index_t rows = a.rows;
  const auto nnz = static_cast<index_t>(a.nnz());
  const int threads =
      detail::thread_count(a.nnz() + static_cast<std::size_t>(rows), std::size_t{1} << 20);
  std::vector<index_t> first_bad(static_cast<std::size_t>(threads), rows);
  detail::run_threads(threads, [&](int t) {
    const auto end =
        static_cast<index_t>(detail::part_begin(static_cast<std::size_t>(rows), t + 1, threads));
    for (auto i =
             static_cast<index_t>(detail::part_begin(static_cast<std::size_t>(rows), t, threads));
         i < end; ++i) {
      const index_t begin = a.row_ptr[i], stop = a.row_ptr[i + 1];
      bool bad = stop < begin;
      if (!bad && begin >= 0 && stop <= nnz)
        for (index_t k = begin; k < stop && !bad; ++k)
          bad = a.col_idx[k] < 0 || a.col_idx[k] >= a.cols ||
                (k > begin && a.col_idx[k] <= a.col_idx[k - 1]);
      if (bad) {
        first_bad[static_cast<std::size_t>(t)] = i;
        return;
      }
    }
  });
  const index_t i = *std::min_element(first_bad.begin(), first_bad.end());
  if (i == rows) return;
  if (a.row_ptr[i + 1] < a.row_ptr[i]) fail("CSR: row_ptr decreases at row " + std::to_string(i));
  for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
    if (a.col_idx[k] < 0 || a.col_idx[k] >= a.cols)
      fail("CSR: row " + std::to_string(i) + " has column " + std::to_string(a.col_idx[k]) +
           " outside 0.." + std::to_string(a.cols - 1));
    if (k > a.row_ptr[i] && a.col_idx[k] <= a.col_idx[k - 1])
      fail("CSR: columns of row " + std::to_string(i) + " are not strictly increasing");
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

namespace {

// Calls body(i) for every row i of `a`, rows split among threads by their entries (large matrices
// only). body must write only what belongs to row i.
template <typename Body>
void for_each_row(const CsrMatrix& a, Body body) {
  const int threads =
      detail::thread_count(a.nnz() + static_cast<std::size_t>(a.rows), std::size_t{1} << 20);
  // Thread t takes the rows whose entries start in its share of the entries (by row count when
  // there are no entries).
  const auto first_row = [&](int t) -> index_t {
    if (t == threads) return a.rows;
    if (a.nnz() == 0)
      return static_cast<index_t>(detail::part_begin(static_cast<std::size_t>(a.rows), t, threads));
    const auto k = static_cast<index_t>(detail::part_begin(a.nnz(), t, threads));
    return static_cast<index_t>(std::lower_bound(a.row_ptr.begin(), a.row_ptr.end() - 1, k) -
                                a.row_ptr.begin());
  };
  detail::run_threads(threads, [&](int t) {
    const index_t end = first_row(t + 1);
    for (index_t i = first_row(t); i < end; ++i) body(i);
  });
}

}  // namespace

CooMatrix csr_to_coo(const CsrMatrix& a) {
  validate(a);
  CooMatrix out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.row.resize(a.nnz());
  for_each_row(a, [&](index_t i) {
    std::fill(out.row.begin() + a.row_ptr[i], out.row.begin() + a.row_ptr[i + 1], i);
  });
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
  for_each_row(a, [&](index_t i) {
    const index_t len = std::min(a.row_length(i), width);
    for (index_t k = 0; k < len; ++k) {
      ell.col_idx[ell.slot(i, k)] = a.col_idx[a.row_ptr[i] + k];
      ell.val[ell.slot(i, k)] = a.val[a.row_ptr[i] + k];
    }
  });
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
  // Row i's entries beyond the width go to COO from coo_start[i] on, in row order.
  std::vector<std::size_t> coo_start(static_cast<std::size_t>(a.rows) + 1, 0);
  for (index_t i = 0; i < a.rows; ++i)
    coo_start[static_cast<std::size_t>(i) + 1] =
        coo_start[static_cast<std::size_t>(i)] +
        static_cast<std::size_t>(std::max<index_t>(0, a.row_length(i) - width));
  hyb.coo.row.resize(coo_start.back());
  hyb.coo.col.resize(coo_start.back());
  hyb.coo.val.resize(coo_start.back());
  for_each_row(a, [&](index_t i) {
    std::size_t e = coo_start[static_cast<std::size_t>(i)];
    for (index_t k = a.row_ptr[i] + width; k < a.row_ptr[i + 1]; ++k, ++e) {
      hyb.coo.row[e] = i;
      hyb.coo.col[e] = a.col_idx[k];
      hyb.coo.val[e] = a.val[k];
    }
  });
  return hyb;
}

PanelMatrix csr_to_panels(const CsrMatrix& a, index_t panels, index_t parts,
                          index_t max_accumulators, index_t split_length) {
  constexpr index_t kLanes = 32;
  validate(a);
  if (panels < 1) fail("csr_to_panels: panels must be at least 1, got " + std::to_string(panels));
  if (parts < 1 || parts > 8)
    fail("csr_to_panels: parts must be in [1, 8], got " + std::to_string(parts));
  if (max_accumulators < kLanes + 1 || max_accumulators > static_cast<index_t>(kPanelPadding))
    fail("csr_to_panels: max_accumulators must be in [33, 65535], got " +
         std::to_string(max_accumulators));
  if (split_length < 1)
    fail("csr_to_panels: split_length must be at least 1, got " + std::to_string(split_length));
  PanelMatrix m;
  m.rows = a.rows;
  m.cols = a.cols;
  m.parts = parts;
  const long long nnz = a.row_ptr.back();
  auto accumulators = [&](index_t i) { return a.row_length(i) >= split_length ? 1 + kLanes : 1; };
  // Panels: panel p ends where the entries reach (p + 1) / panels of the total, or where the next
  // row's accumulators would pass max_accumulators (a panel's first row always fits).
  for (index_t r = 0, p = 0; r < a.rows; ++p) {
    const index_t first = r;
    const long long limit = p + 1 >= panels ? nnz : nnz * (p + 1) / panels;
    index_t used = 0;
    while (r < a.rows && used + accumulators(r) <= max_accumulators &&
           (r == first || p + 1 >= panels || a.row_ptr[r] < limit)) {
      used += accumulators(r);
      ++r;
    }
    for (index_t i = first; i < r; ++i)
      if (accumulators(i) > 1) m.split_row.push_back(i - first);
    m.panel_row.push_back(r);
    m.split_ptr.push_back(static_cast<index_t>(m.split_row.size()));
    m.max_accumulators = std::max(m.max_accumulators, used);
  }
  // Each row's accumulator within its panel; for a long row, the first of its 32 lane ones.
  std::vector<index_t> accumulator(static_cast<std::size_t>(a.rows));
  for (std::size_t p = 0; p < m.panels(); ++p) {
    for (index_t i = m.panel_row[p]; i < m.panel_row[p + 1]; ++i)
      accumulator[static_cast<std::size_t>(i)] = i - m.panel_row[p];
    const index_t rows = m.panel_row[p + 1] - m.panel_row[p];
    for (index_t j = m.split_ptr[p]; j < m.split_ptr[p + 1]; ++j)
      accumulator[static_cast<std::size_t>(m.panel_row[p] + m.split_row[j])] =
          rows + kLanes * (j - m.split_ptr[p]);
  }
  // A panel's entries in column order (ties by row): walk the columns of a counting sort and
  // deal each entry to its row's panel.
  std::vector<index_t> panel_of(static_cast<std::size_t>(a.rows));
  for (std::size_t p = 0; p < m.panels(); ++p)
    std::fill(panel_of.begin() + m.panel_row[p], panel_of.begin() + m.panel_row[p + 1],
              static_cast<index_t>(p));
  std::vector<index_t> row_of(static_cast<std::size_t>(nnz));
  for (index_t i = 0; i < a.rows; ++i)
    std::fill(row_of.begin() + a.row_ptr[i], row_of.begin() + a.row_ptr[i + 1], i);
  std::vector<long long> col_start(static_cast<std::size_t>(a.cols) + 1, 0);
  for (const index_t c : a.col_idx) ++col_start[static_cast<std::size_t>(c) + 1];
  std::partial_sum(col_start.begin(), col_start.end(), col_start.begin());
  std::vector<index_t> by_col(static_cast<std::size_t>(nnz));
  for (long long k = 0; k < nnz; ++k)  // k in row order, so ties stay in row order
    by_col[static_cast<std::size_t>(col_start[a.col_idx[k]]++)] = static_cast<index_t>(k);
  std::vector<long long> panel_start(m.panels() + 1, 0);
  for (const index_t i : row_of) ++panel_start[static_cast<std::size_t>(panel_of[i]) + 1];
  std::partial_sum(panel_start.begin(), panel_start.end(), panel_start.begin());
  std::vector<index_t> order(static_cast<std::size_t>(nnz));
  {
    std::vector<long long> next(panel_start.begin(), panel_start.end() - 1);
    for (const index_t k : by_col) order[static_cast<std::size_t>(next[panel_of[row_of[k]]]++)] = k;
  }
  // Runs, groups of 32, packing.
  auto pad = [&](index_t group_column) {
    m.packed.push_back(kPanelPadding << 16 | (static_cast<std::uint32_t>(group_column) & 0xffffu));
    m.val.push_back(0.0f);
  };
  for (std::size_t p = 0; p < m.panels(); ++p) {
    const long long begin = panel_start[p], count = panel_start[p + 1] - begin;
    for (index_t part = 0; part < parts; ++part) {
      const long long from = begin + count * part / parts, to = begin + count * (part + 1) / parts;
      for (long long t = from; t < to; ++t) {
        const index_t k = order[static_cast<std::size_t>(t)];
        const index_t col = a.col_idx[k];
        if (m.packed.size() % kLanes != 0 && col - m.group_col.back() >= 65536)
          while (m.packed.size() % kLanes != 0) pad(m.group_col.back());
        if (m.packed.size() % kLanes == 0) m.group_col.push_back(col);
        const index_t i = row_of[k];
        const auto lane = static_cast<index_t>(m.packed.size() % kLanes);
        const auto acc = static_cast<std::uint32_t>(accumulator[static_cast<std::size_t>(i)] +
                                                    (accumulators(i) > 1 ? lane : 0));
        m.packed.push_back(acc << 16 | (static_cast<std::uint32_t>(col) & 0xffffu));
        m.val.push_back(a.val[k]);
      }
      while (m.packed.size() % kLanes != 0) pad(m.group_col.back());
      if (m.packed.size() > kMaxEntries) fail("csr_to_panels: more than 2^31 - 1 slots");
      m.run_ptr.push_back(static_cast<index_t>(m.packed.size()));
    }
  }
  return m;
}

namespace {

void check_x(const CsrMatrix& a, const std::vector<float>& x) {
  if (x.size() != static_cast<std::size_t>(a.cols))
    fail("SpMV: x has " + std::to_string(x.size()) + " entries, the matrix " +
         std::to_string(a.cols) + " columns");
}

// y[i] = sum over row i of term(a_ij * x_j), each product and the sum in double.
template <typename Term>
std::vector<double> row_sums(const CsrMatrix& a, const std::vector<float>& x, Term term) {
  check_x(a, x);
  std::vector<double> y(static_cast<std::size_t>(a.rows), 0.0);
  for (index_t i = 0; i < a.rows; ++i) {
    double sum = 0.0;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      sum += term(static_cast<double>(a.val[k]) * static_cast<double>(x[a.col_idx[k]]));
    y[i] = sum;
  }
  return y;
}

}  // namespace

std::vector<double> spmv_reference(const CsrMatrix& a, const std::vector<float>& x) {
  return row_sums(a, x, [](double product) { return product; });
}

std::vector<double> spmv_abs_reference(const CsrMatrix& a, const std::vector<float>& x) {
  return row_sums(a, x, [](double product) { return std::fabs(product); });
}

double spmv_max_error_bound(const CsrMatrix& a) {
  // spmv_error_bound(a, ones) row by row, without the vectors: the same sums in the same order,
  // and the largest of them (whichever thread finds it).
  constexpr double u = 1.0 / 16777216.0;
  const int threads =
      detail::thread_count(a.nnz() + static_cast<std::size_t>(a.rows), std::size_t{1} << 20);
  std::vector<double> largest(static_cast<std::size_t>(threads), 0.0);
  detail::run_threads(threads, [&](int t) {
    const auto end =
        static_cast<index_t>(detail::part_begin(static_cast<std::size_t>(a.rows), t + 1, threads));
    double m = 0.0;
    for (auto i =
             static_cast<index_t>(detail::part_begin(static_cast<std::size_t>(a.rows), t, threads));
         i < end; ++i) {
      double sum = 0.0;
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
        sum += std::fabs(static_cast<double>(a.val[k]));
      const double ku = static_cast<double>(a.row_length(i)) * u;
      m = std::max(m, ku < 1.0 ? sum * ku / (1.0 - ku) : std::numeric_limits<double>::infinity());
    }
    largest[static_cast<std::size_t>(t)] = m;
  });
  return *std::max_element(largest.begin(), largest.end());
}

std::vector<float> spmv_row_error_bounds(const CsrMatrix& a) {
  constexpr double u = 1.0 / 16777216.0;
  std::vector<float> bounds(static_cast<std::size_t>(a.rows));
  for (index_t i = 0; i < a.rows; ++i) {
    double sum = 0.0;  // spmv_abs_reference with x all ones
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
      sum += std::fabs(static_cast<double>(a.val[k]));
    const double ku = static_cast<double>(a.row_length(i)) * u;
    const double b = ku < 1.0 ? sum * ku / (1.0 - ku) : std::numeric_limits<double>::infinity();
    float f = static_cast<float>(b);
    if (static_cast<double>(f) < b) f = std::nextafter(f, std::numeric_limits<float>::infinity());
    bounds[static_cast<std::size_t>(i)] = f;
  }
  return bounds;
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
