// The performance checks' formats, derived on the device from the CSR arrays already there: the
// same arrays as cudalab::sparse::csr_to_coo, csr_to_ell and csr_to_hyb build on the host, without
// the host's time and memory (tens of millions of entries; a host page fault costs more than the
// device's whole conversion). Each call runs on the legacy default stream and synchronizes.
#pragma once

namespace lab07::device_formats {

// row[k] = i for every entry k of row i (COO's row array; col and val are CSR's).
void coo_rows(const int* row_ptr, int rows, int* row);

// ELL with `width` slots per row, column-major: slot k of row i (at k * rows + i) holds the row's
// entry k, or (-1, 0) padding past its length; entries past `width` are left out (HYB's COO).
void ell(const int* row_ptr, const int* col_idx, const float* val, int rows, int width,
         int* ell_col, float* ell_val);

// HYB's COO part: the entries of row i from `width` on go to row/col/coo_val from coo_start[i]
// on, in row order (coo_start: rows + 1 offsets).
void hyb_tail(const int* row_ptr, const int* col_idx, const float* val, int rows, int width,
              const long long* coo_start, int* row, int* col, float* coo_val);

}  // namespace lab07::device_formats
