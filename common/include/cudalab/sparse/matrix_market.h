// Matrix Market (.mtx) files, coordinate format: the reader for lab 07's real matrices and the
// writer that dumps generated ones. https://math.nist.gov/MatrixMarket/formats.html
//
// Supported: field real (also "double"), integer, pattern (every value 1); symmetry general and
// symmetric (the file holds the lower triangle; the reader mirrors each off-diagonal entry, the
// diagonal once). Refused with a message that says so: array (dense) format, complex, hermitian,
// skew-symmetric. Indices in the file are 1-based, in the COO 0-based.
#pragma once

#include <istream>
#include <ostream>
#include <string>

#include "cudalab/sparse/formats.h"
#include "cudalab/sparse/io.h"

namespace cudalab::sparse {

enum class MmField { real, integer, pattern };
enum class MmSymmetry { general, symmetric };

struct MatrixMarketInfo {
  MmField field = MmField::real;
  MmSymmetry symmetry = MmSymmetry::general;
  std::size_t stored_entries = 0;  // entry lines in the file (before symmetric expansion)
};

// Reads a coordinate Matrix Market matrix into COO: entries in file order; for symmetric files
// each off-diagonal entry (i, j) is followed by its mirror (j, i). Duplicates are kept (CSR
// conversion sums them). Throws ParseError "source:line: problem" on:
//   a missing %%MatrixMarket banner or unknown/unsupported header words; a bad size line
//   (not three non-negative integers, too large for int32, non-square symmetric); an entry line
//   with the wrong number of fields, an index out of 1..rows / 1..cols, an entry above the
//   diagonal of a symmetric file, a value that is not a number, not finite in float, or (integer
//   field) not an integer; fewer entries than declared (at the end of the file) or more.
// `source` names the input in messages.
CooMatrix read_matrix_market(std::istream& in, const std::string& source = "<stream>",
                             MatrixMarketInfo* info = nullptr);

// The same for a file (gzip-compressed files too, when gzip_supported()). A missing file gives
// ParseError "path: cannot open file (No such file or directory)".
CooMatrix read_matrix_market_file(const std::string& path, MatrixMarketInfo* info = nullptr);

// The same from a string already in memory.
CooMatrix parse_matrix_market(const std::string& text, const std::string& source,
                              MatrixMarketInfo* info = nullptr);

struct MatrixMarketWriteOptions {
  MmField field = MmField::real;
  MmSymmetry symmetry = MmSymmetry::general;
  std::string comment;  // written as "% ..." lines after the banner (one per line of the text)
};

// Writes `a` (entries in its order) as coordinate Matrix Market. Real values are written with 9
// significant digits, which read back to the same float. Throws std::invalid_argument when the
// matrix does not fit the options: integer field with non-integer values, pattern with values
// other than 1, symmetric when the matrix is not square or not symmetric (every off-diagonal
// entry needs its mirror with the same value; the writer keeps the lower triangle).
void write_matrix_market(std::ostream& out, const CooMatrix& a,
                         const MatrixMarketWriteOptions& options = {});

// The same into a file; throws std::runtime_error when it cannot be written.
void write_matrix_market_file(const std::string& path, const CooMatrix& a,
                              const MatrixMarketWriteOptions& options = {});

}  // namespace cudalab::sparse
