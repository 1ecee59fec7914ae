#include "cudalab/sparse/matrix_market.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <tuple>

#include "text.h"

namespace cudalab::sparse {

namespace {

using detail::LineReader;
using detail::quote;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool is_comment_or_blank(std::string_view line) {
  const std::string_view t = detail::trim_left(line);
  return t.empty() || t.front() == '%';
}

struct Header {
  MmField field = MmField::real;
  MmSymmetry symmetry = MmSymmetry::general;
};

Header parse_banner(std::string_view line, const std::string& source) {
  constexpr std::string_view kBanner = "%%matrixmarket";
  auto fail = [&](const std::string& problem) -> Header { throw ParseError(source, 1, problem); };
  if (lower(line.substr(0, kBanner.size())) != kBanner)
    return fail("missing %%MatrixMarket banner (the first line must start with it)");
  const auto fields = detail::split_fields(line);
  if (fields.size() != 5 || lower(fields[0]) != kBanner)
    return fail("malformed banner: expected '%%MatrixMarket matrix coordinate <field> <symmetry>'");
  if (lower(fields[1]) != "matrix")
    return fail("object " + quote(fields[1]) + " is not supported (only 'matrix')");
  const std::string format = lower(fields[2]);
  if (format == "array")
    return fail("array (dense) format is not supported; only coordinate (sparse) files");
  if (format != "coordinate") return fail("unknown format " + quote(fields[2]));
  Header h;
  const std::string field = lower(fields[3]);
  if (field == "real" || field == "double")
    h.field = MmField::real;
  else if (field == "integer")
    h.field = MmField::integer;
  else if (field == "pattern")
    h.field = MmField::pattern;
  else if (field == "complex")
    return fail("complex values are not supported (real, integer or pattern only)");
  else
    return fail("unknown field " + quote(fields[3]));
  const std::string symmetry = lower(fields[4]);
  if (symmetry == "general")
    h.symmetry = MmSymmetry::general;
  else if (symmetry == "symmetric")
    h.symmetry = MmSymmetry::symmetric;
  else if (symmetry == "hermitian" || symmetry == "skew-symmetric")
    return fail(symmetry + " matrices are not supported (general or symmetric only)");
  else
    return fail("unknown symmetry " + quote(fields[4]));
  return h;
}

// An index field in 1..limit, returned 0-based.
index_t parse_index(std::string_view field, std::int64_t limit, const char* what,
                    const std::string& source, std::size_t line) {
  std::int64_t v = 0;
  if (!detail::parse_int64(field, v))
    throw ParseError(source, line,
                     std::string(what) + " index " + quote(field) + " is not an integer");
  if (v < 1 || v > limit)
    throw ParseError(source, line,
                     std::string(what) + " index " + std::to_string(v) + " is out of range 1.." +
                         std::to_string(limit));
  return static_cast<index_t>(v - 1);
}

float parse_value(std::string_view field, MmField kind, const std::string& source,
                  std::size_t line) {
  if (kind == MmField::integer) {
    std::int64_t v = 0;
    if (!detail::parse_int64(field, v))
      throw ParseError(source, line, "value " + quote(field) + " is not an integer");
    return static_cast<float>(v);
  }
  double v = 0.0;
  if (!detail::parse_double(field, v))
    throw ParseError(source, line, "value " + quote(field) + " is not a number");
  if (!std::isfinite(v) || std::fabs(v) > static_cast<double>(std::numeric_limits<float>::max()))
    throw ParseError(source, line, "value " + quote(field) + " is not a finite float");
  return static_cast<float>(v);
}

}  // namespace

CooMatrix parse_matrix_market(const std::string& text, const std::string& source,
                              MatrixMarketInfo* info) {
  LineReader lines(text);
  std::string_view line;
  if (!lines.next(line)) throw ParseError(source, 1, "empty file: missing %%MatrixMarket banner");
  const Header header = parse_banner(line, source);

  // Size line: the first line after the banner that is neither a comment nor blank.
  bool have_size = false;
  while (lines.next(line)) {
    if (!is_comment_or_blank(line)) {
      have_size = true;
      break;
    }
  }
  if (!have_size)
    throw ParseError(source, lines.line_number(),
                     "missing size line ('rows columns entries') after the header");
  const std::size_t size_line = lines.line_number();
  const auto size_fields = detail::split_fields(line);
  std::int64_t dims[3] = {0, 0, 0};
  if (size_fields.size() != 3)
    throw ParseError(source, size_line,
                     "bad size line: expected 3 integers 'rows columns entries', found " +
                         std::to_string(size_fields.size()) + " fields");
  const char* names[3] = {"rows", "columns", "entries"};
  for (int i = 0; i < 3; ++i) {
    if (!detail::parse_int64(size_fields[i], dims[i]) || dims[i] < 0)
      throw ParseError(source, size_line,
                       std::string("bad size line: ") + names[i] + " " + quote(size_fields[i]) +
                           " is not a non-negative integer");
    if (dims[i] > std::numeric_limits<index_t>::max())
      throw ParseError(source, size_line,
                       std::string("bad size line: ") + names[i] + " " + quote(size_fields[i]) +
                           " exceeds the int32 limit 2147483647");
  }
  const std::int64_t rows = dims[0], cols = dims[1], declared = dims[2];
  if (header.symmetry == MmSymmetry::symmetric && rows != cols)
    throw ParseError(source, size_line,
                     "bad size line: a symmetric matrix must be square, got " +
                         std::to_string(rows) + " x " + std::to_string(cols));

  CooMatrix a;
  a.rows = static_cast<index_t>(rows);
  a.cols = static_cast<index_t>(cols);
  // A lying header must not make us allocate: every entry needs at least 4 bytes of text.
  const std::size_t expect =
      std::min<std::size_t>(static_cast<std::size_t>(declared), text.size() / 4 + 1) *
      (header.symmetry == MmSymmetry::symmetric ? 2 : 1);
  a.row.reserve(expect);
  a.col.reserve(expect);
  a.val.reserve(expect);

  const std::size_t fields_expected = header.field == MmField::pattern ? 2 : 3;
  std::int64_t stored = 0;
  while (lines.next(line)) {
    if (is_comment_or_blank(line)) continue;
    const std::size_t n = lines.line_number();
    if (stored == declared)
      throw ParseError(source, n,
                       "more entries than the " + std::to_string(declared) + " declared on line " +
                           std::to_string(size_line));
    const auto f = detail::split_fields(line);
    if (f.size() != fields_expected)
      throw ParseError(source, n,
                       "expected " + std::to_string(fields_expected) + " fields (" +
                           (fields_expected == 2 ? "row column" : "row column value") +
                           "), found " + std::to_string(f.size()));
    const index_t i = parse_index(f[0], rows, "row", source, n);
    const index_t j = parse_index(f[1], cols, "column", source, n);
    const float v =
        header.field == MmField::pattern ? 1.0f : parse_value(f[2], header.field, source, n);
    if (header.symmetry == MmSymmetry::symmetric && i < j)
      throw ParseError(source, n,
                       "entry (" + std::to_string(i + 1) + ", " + std::to_string(j + 1) +
                           ") lies above the diagonal; a symmetric file stores the lower "
                           "triangle only");
    a.push_back(i, j, v);
    if (header.symmetry == MmSymmetry::symmetric && i != j) a.push_back(j, i, v);
    ++stored;
  }
  if (stored < declared)
    throw ParseError(source, std::max<std::size_t>(lines.line_number(), 1),
                     "file ends after " + std::to_string(stored) + " of the " +
                         std::to_string(declared) + " entries declared on line " +
                         std::to_string(size_line));
  if (a.nnz() > static_cast<std::size_t>(std::numeric_limits<index_t>::max()))
    throw ParseError(source, size_line, "more than 2^31 - 1 entries after symmetric expansion");
  if (info != nullptr) {
    info->field = header.field;
    info->symmetry = header.symmetry;
    info->stored_entries = static_cast<std::size_t>(stored);
  }
  return a;
}

CooMatrix read_matrix_market(std::istream& in, const std::string& source, MatrixMarketInfo* info) {
  const std::string text = read_stream_text(in);
  if (in.bad()) throw ParseError(source, 0, "read error");
  return parse_matrix_market(text, source, info);
}

CooMatrix read_matrix_market_file(const std::string& path, MatrixMarketInfo* info) {
  return parse_matrix_market(read_file_text(path), path, info);
}

namespace {

const char* field_name(MmField f) {
  switch (f) {
    case MmField::real: return "real";
    case MmField::integer: return "integer";
    case MmField::pattern: return "pattern";
  }
  return "real";
}

std::uint32_t float_bits(float v) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return bits;
}

void check_writable(const CooMatrix& a, const MatrixMarketWriteOptions& options) {
  validate(a);
  for (std::size_t k = 0; k < a.nnz(); ++k) {
    const float v = a.val[k];
    if (options.field == MmField::integer && !(std::isfinite(v) && std::nearbyint(v) == v))
      throw std::invalid_argument("Matrix Market writer: integer field but entry " +
                                  std::to_string(k) + " is " + std::to_string(v));
    if (options.field == MmField::pattern && v != 1.0f)
      throw std::invalid_argument("Matrix Market writer: pattern field but entry " +
                                  std::to_string(k) + " is " + std::to_string(v) + ", not 1");
  }
  if (options.symmetry != MmSymmetry::symmetric) return;
  if (a.rows != a.cols)
    throw std::invalid_argument("Matrix Market writer: symmetric but the matrix is " +
                                std::to_string(a.rows) + " x " + std::to_string(a.cols));
  // Strictly lower entries and mirrored strictly upper entries must be the same multiset.
  using Entry = std::tuple<index_t, index_t, std::uint32_t>;
  std::vector<Entry> below, above;
  for (std::size_t k = 0; k < a.nnz(); ++k) {
    if (a.row[k] > a.col[k]) below.emplace_back(a.row[k], a.col[k], float_bits(a.val[k]));
    if (a.row[k] < a.col[k]) above.emplace_back(a.col[k], a.row[k], float_bits(a.val[k]));
  }
  std::sort(below.begin(), below.end());
  std::sort(above.begin(), above.end());
  if (below != above)
    throw std::invalid_argument(
        "Matrix Market writer: symmetric but the matrix is not (an off-diagonal entry has no "
        "mirror with the same value)");
}

}  // namespace

void write_matrix_market(std::ostream& out, const CooMatrix& a,
                         const MatrixMarketWriteOptions& options) {
  check_writable(a, options);
  const bool symmetric = options.symmetry == MmSymmetry::symmetric;
  std::size_t stored = 0;
  for (std::size_t k = 0; k < a.nnz(); ++k)
    if (!symmetric || a.row[k] >= a.col[k]) ++stored;
  out << "%%MatrixMarket matrix coordinate " << field_name(options.field) << ' '
      << (symmetric ? "symmetric" : "general") << '\n';
  std::size_t start = 0;
  while (start < options.comment.size()) {
    std::size_t end = options.comment.find('\n', start);
    if (end == std::string::npos) end = options.comment.size();
    out << '%' << (end > start ? " " : "") << options.comment.substr(start, end - start) << '\n';
    start = end + 1;
  }
  out << a.rows << ' ' << a.cols << ' ' << stored << '\n';
  char buffer[64];
  for (std::size_t k = 0; k < a.nnz(); ++k) {
    if (symmetric && a.row[k] < a.col[k]) continue;
    out << a.row[k] + 1 << ' ' << a.col[k] + 1;
    if (options.field == MmField::real) {
      // 9 significant digits identify a float uniquely.
      std::snprintf(buffer, sizeof buffer, " %.9g", static_cast<double>(a.val[k]));
      out << buffer;
    } else if (options.field == MmField::integer) {
      std::snprintf(buffer, sizeof buffer, " %.0f", static_cast<double>(a.val[k]));
      out << buffer;
    }
    out << '\n';
  }
}

void write_matrix_market_file(const std::string& path, const CooMatrix& a,
                              const MatrixMarketWriteOptions& options) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error(path + ": cannot open for writing");
  write_matrix_market(file, a, options);
  file.flush();
  if (!file) throw std::runtime_error(path + ": write failed");
}

}  // namespace cudalab::sparse
