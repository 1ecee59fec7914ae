// Sparse matrix formats for SpMV (lab 07): COO, CSR, ELL, HYB and row panels, the conversions
// between them, and the CPU reference y = A x accumulated in double. The checks and conversions
// of large matrices (validate, csr_to_coo, csr_to_ell, csr_to_hyb) split their rows among host
// threads; the result is the same.
//
// Indices are int32 (what the kernels use; sizes and nnz are checked against it), values float.
// Every builder is deterministic: the same input gives the same arrays bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cudalab::sparse {

using index_t = std::int32_t;

// Coordinate format: entry k is (row[k], col[k], val[k]). Order is whatever the producer made;
// duplicates allowed (they add up).
struct CooMatrix {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row;
  std::vector<index_t> col;
  std::vector<float> val;

  std::size_t nnz() const { return val.size(); }
  void push_back(index_t r, index_t c, float v) {
    row.push_back(r);
    col.push_back(c);
    val.push_back(v);
  }
};

// Compressed sparse row: the entries of row i are k in [row_ptr[i], row_ptr[i+1]), columns
// strictly increasing within a row (no duplicates) when built by coo_to_csr.
struct CsrMatrix {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row_ptr{0};  // rows + 1 entries
  std::vector<index_t> col_idx;
  std::vector<float> val;

  std::size_t nnz() const { return val.size(); }
  index_t row_length(index_t i) const { return row_ptr[i + 1] - row_ptr[i]; }
};

// Column index of an ELL padding slot; its value is 0, so a kernel that skips on
// col < 0 and one that multiplies the padding (after clamping the index) both give the right y.
constexpr index_t kEllPadding = -1;

// ELLPACK, column-major so that thread-per-row reads are coalesced: slot k of row i is at
// k * rows + i, for k < width. Rows shorter than width are padded with (kEllPadding, 0.0f).
struct EllMatrix {
  index_t rows = 0;
  index_t cols = 0;
  index_t width = 0;             // slots per row
  std::vector<index_t> col_idx;  // rows * width
  std::vector<float> val;        // rows * width

  std::size_t slot(index_t i, index_t k) const {
    return static_cast<std::size_t>(k) * static_cast<std::size_t>(rows) +
           static_cast<std::size_t>(i);
  }
};

// Hybrid: the first ell.width entries of each row in ELL, the rest of the row in COO (sorted by
// row, then column). y = ell * x + coo * x.
struct HybMatrix {
  EllMatrix ell;
  CooMatrix coo;
};

// Throws std::invalid_argument naming the first inconsistency (array sizes, index ranges,
// row_ptr monotone, columns sorted and distinct within each row for CSR).
void validate(const CooMatrix& a);
void validate(const CsrMatrix& a);

// CSR from COO: entries sorted by (row, col); duplicates summed in double in the order they
// appear in the COO arrays and rounded to float once, so the result does not depend on the sort.
// Entries that add up to zero stay (explicit zeros are entries). Throws std::invalid_argument on
// out-of-range indices or more than INT32_MAX entries.
CsrMatrix coo_to_csr(const CooMatrix& a);

// COO sorted by (row, col), one entry per CSR entry.
CooMatrix csr_to_coo(const CsrMatrix& a);

// The length of every row (row_ptr differences).
std::vector<index_t> row_lengths(const CsrMatrix& a);

// ELL with `width` slots per row; width < 0 means the longest row. Throws std::invalid_argument
// when a row is longer than `width` (use csr_to_hyb to split instead).
EllMatrix csr_to_ell(const CsrMatrix& a, index_t width = -1);

// The course's split point for HYB (Bell & Garland, SC'09; the lecture: "draw the line when one
// third of the rows have non-zero elements"). Pack each row to the left and look at slot column k:
// it holds an entry for the rows longer than k. Column k goes to ELL while at least one third of
// the rows fill it (3 * #{rows with length > k} >= rows), because thread-per-row ELL is about three
// times faster per slot than thread-per-element COO, so a column that is at least a third full
// costs less in ELL than its entries would in COO. The width is the number of such columns: the
// smallest K with 3 * #{rows with length > K} < rows. 0 for a matrix without rows.
// (Bell & Garland's library also keeps at least 4096 rows' worth; the course rule has no floor.)
index_t hyb_ell_width(const CsrMatrix& a);

// HYB with the given ELL width (width < 0: hyb_ell_width(a)). Row i's first min(len, width)
// entries go to ELL, the rest to COO in (row, col) order.
HybMatrix csr_to_hyb(const CsrMatrix& a, index_t width = -1);

// Column-sorted row panels, the lab 07 reference's extra format (not one the students write).
// Every kernel that takes the entries in row order gathers x[col] one 32-byte L2 sector per entry
// when the columns are random; this layout takes a panel's entries in column order instead, so
// the 32 lanes of a warp read neighbouring columns (shared sectors and cache lines).
//   - The rows are cut into `panels` runs of consecutive rows with about equal entry counts;
//     panel_row[p] .. panel_row[p + 1] are panel p's rows.
//   - A panel's y is summed in shared memory, in accumulators: one per row, then 32 more for each
//     long row (at least `split_length` entries), so that the lanes of a warp never add into one
//     accumulator for it: an entry of the panel's j-th long row adds into accumulator
//     (rows of the panel + 32 j + the entry's lane), and the 32 are added into the row's own at
//     the end. split_row[split_ptr[p] + j] is that long row, within panel p. A panel has at most
//     `max_accumulators`; more panels when that cap binds.
//   - A panel's entries are sorted by column (ties by row) and cut into `parts` runs of equal
//     length, run r of panel p being run p * parts + r (one block each; the parts of a panel
//     are one thread-block cluster that adds its partial y at the end).
//   - Each run is padded to a multiple of 32 entries, a group: what one warp reads per load. An
//     entry is packed as (its accumulator) << 16 | (column & 0xffff); group_col[g] is the full
//     column of group g's first entry and each of the group's columns is group_col[g] +
//     ((packed - group_col[g]) & 0xffff). So a group spans fewer than 65536 columns: an entry
//     that would not fit closes the group with padding and starts the next one.
//   - Padding: packed accumulator kPanelPadding, column group_col[g], value 0.
struct PanelMatrix {
  index_t rows = 0;
  index_t cols = 0;
  index_t parts = 1;
  index_t max_accumulators = 0;       // of the largest panel
  std::vector<index_t> panel_row{0};  // panels + 1
  std::vector<index_t> split_ptr{0};  // panels + 1
  std::vector<index_t> split_row;     // split_ptr.back(): each long row, within its panel
  std::vector<index_t> run_ptr{0};    // panels * parts + 1; multiples of 32
  std::vector<std::uint32_t> packed;  // run_ptr.back() slots
  std::vector<index_t> group_col;     // run_ptr.back() / 32
  std::vector<float> val;             // run_ptr.back() slots, 0 in padding

  std::size_t panels() const { return panel_row.size() - 1; }
};

// The packed accumulator of padding; panels have fewer accumulators, so none is it.
inline constexpr std::uint32_t kPanelPadding = 0xffff;

// Row panels of a CSR matrix. Throws std::invalid_argument for panels < 1, parts outside [1, 8]
// (a portable cluster), max_accumulators outside [33, 65535] (a long row alone needs 33),
// split_length < 1, or more padded slots than int32 reaches.
PanelMatrix csr_to_panels(const CsrMatrix& a, index_t panels, index_t parts,
                          index_t max_accumulators, index_t split_length = 1024);

// The full column of slot k of a PanelMatrix (padding included).
inline index_t panel_column(const PanelMatrix& m, std::size_t k) {
  const auto base = static_cast<std::uint32_t>(m.group_col[k / 32]);
  return static_cast<index_t>(base + ((m.packed[k] - base) & 0xffffu));
}

// y = A x in double: each product and sum in double from the float entries. Throws
// std::invalid_argument when x.size() != cols.
std::vector<double> spmv_reference(const CsrMatrix& a, const std::vector<float>& x);

// Per-row sum of |a_ij * x_j| in double: the scale of the rounding error of a float SpMV row.
std::vector<double> spmv_abs_reference(const CsrMatrix& a, const std::vector<float>& x);

// Per-row bound on |y_float - y_exact| for a float SpMV in any summation order (sequential,
// warp-shuffle tree, segmented, atomics), with or without FMA: gamma(len) * sum |a_ij x_j| where
// len is the row length, gamma(k) = k u / (1 - k u), u = 2^-24 (Higham, "Accuracy and Stability
// of Numerical Algorithms", 3.1: k-1 additions plus one product per term). Rows whose terms
// overflow float are not covered.
std::vector<double> spmv_error_bound(const CsrMatrix& a, const std::vector<float>& x);

// The largest row of spmv_error_bound(a, x) over every x with |x_j| <= 1 (x all ones, where each
// row's bound is largest): one tolerance for every row of a y = A x with such an x. Computed
// without the vectors, by host threads for a large matrix.
double spmv_max_error_bound(const CsrMatrix& a);

// Each row's spmv_error_bound over every x with |x_j| <= 1 (x all ones), rounded up to float: a
// tolerance per row for y = A x with any such x, as tight for a row of one entry as for a row of
// thousands (spmv_max_error_bound's single tolerance is the longest row's, loose for the others).
std::vector<float> spmv_row_error_bounds(const CsrMatrix& a);

}  // namespace cudalab::sparse
