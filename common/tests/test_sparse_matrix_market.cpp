// Matrix Market reader and writer: what the supported files read as, one clear line for every
// malformed file (naming the line and the problem), and writer -> reader round trips.
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/catch.h"
#include "cudalab/sparse/formats.h"
#include "cudalab/sparse/generators.h"
#include "cudalab/sparse/matrix_market.h"
#include "test_sparse_support.h"

using namespace cudalab::sparse;  // the library under test
using sparse_test::contains;
using sparse_test::coo_of;
using sparse_test::parse_error_of;

namespace {

CooMatrix parse(const std::string& text, MatrixMarketInfo* info = nullptr) {
  return parse_matrix_market(text, "test.mtx", info);
}

}  // namespace

TEST_CASE("Matrix Market: a general real file reads as 0-based COO in file order",
          "[common][sparse][mtx]") {
  MatrixMarketInfo info;
  const CooMatrix a = parse(
      "%%MatrixMarket matrix coordinate real general\n"
      "% a comment\n"
      "%another\n"
      "\n"
      "3 4 3\n"
      "1 1 1.5\n"
      "3 4 -2e-3\n"
      "   2\t2   7\n",
      &info);
  CHECK(a.rows == 3);
  CHECK(a.cols == 4);
  CHECK(a.row == std::vector<int>{0, 2, 1});
  CHECK(a.col == std::vector<int>{0, 3, 1});
  CHECK(a.val == std::vector<float>{1.5f, -2e-3f, 7.0f});
  CHECK(info.field == MmField::real);
  CHECK(info.symmetry == MmSymmetry::general);
  CHECK(info.stored_entries == 3);
}

TEST_CASE("Matrix Market: header words are case-insensitive, 'double' is real, CRLF lines work",
          "[common][sparse][mtx]") {
  const CooMatrix a =
      parse("%%matrixmarket MATRIX Coordinate DOUBLE General\r\n2 2 1\r\n2 1 3\r\n");
  CHECK(a.row == std::vector<int>{1});
  CHECK(a.col == std::vector<int>{0});
  CHECK(a.val == std::vector<float>{3.0f});
}

TEST_CASE("Matrix Market: pattern entries are 1 and integer entries exact",
          "[common][sparse][mtx]") {
  const CooMatrix p = parse("%%MatrixMarket matrix coordinate pattern general\n2 3 2\n1 3\n2 1\n");
  CHECK(p.val == std::vector<float>{1.0f, 1.0f});
  CHECK(p.col == std::vector<int>{2, 0});
  const CooMatrix i =
      parse("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 1 -7\n2 2 +16777216\n");
  CHECK(i.val == std::vector<float>{-7.0f, 16777216.0f});
}

TEST_CASE("Matrix Market: symmetric files expand to both triangles with the diagonal once",
          "[common][sparse][mtx]") {
  MatrixMarketInfo info;
  const CooMatrix a = parse(
      "%%MatrixMarket matrix coordinate real symmetric\n"
      "3 3 4\n"
      "1 1 2\n"
      "2 1 -1\n"
      "3 2 5\n"
      "3 3 4\n",
      &info);
  CHECK(info.symmetry == MmSymmetry::symmetric);
  CHECK(info.stored_entries == 4);
  REQUIRE(a.nnz() == 6);
  CHECK(a.row == std::vector<int>{0, 1, 0, 2, 1, 2});
  CHECK(a.col == std::vector<int>{0, 0, 1, 1, 2, 2});
  CHECK(a.val == std::vector<float>{2, -1, -1, 5, 5, 4});
  // Symmetric pattern files too.
  const CooMatrix p = parse("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n");
  CHECK(p.nnz() == 2);
}

TEST_CASE("Matrix Market: an empty matrix and a matrix without entries", "[common][sparse][mtx]") {
  const CooMatrix a = parse("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
  CHECK(a.rows == 0);
  CHECK(a.nnz() == 0);
  const CooMatrix b = parse("%%MatrixMarket matrix coordinate real general\n5 3 0\n\n");
  CHECK(b.rows == 5);
  CHECK(b.cols == 3);
  CHECK(b.nnz() == 0);
}

TEST_CASE("Matrix Market: every malformed file gives one line naming the line and the problem",
          "[common][sparse][mtx]") {
  struct Case {
    std::size_t line;
    const char* problem;
  };
  const std::string general = "%%MatrixMarket matrix coordinate real general\n";
  const std::string integer = "%%MatrixMarket matrix coordinate integer general\n";
  const std::string pattern = "%%MatrixMarket matrix coordinate pattern general\n";
  const std::string symmetric = "%%MatrixMarket matrix coordinate real symmetric\n";
  const std::vector<std::pair<std::string, Case>> cases = {
      {"", {1, "empty file: missing %%MatrixMarket banner"}},
      {"3 3 1\n1 1 1\n", {1, "missing %%MatrixMarket banner"}},
      {"% MatrixMarket matrix coordinate real general\n1 1 0\n", {1, "missing %%MatrixMarket"}},
      {"%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n",
       {1, "array (dense) format is not supported"}},
      {"%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n",
       {1, "complex values are not supported"}},
      {"%%MatrixMarket matrix coordinate real hermitian\n1 1 0\n",
       {1, "hermitian matrices are not supported"}},
      {"%%MatrixMarket matrix coordinate real skew-symmetric\n1 1 0\n",
       {1, "skew-symmetric matrices are not supported"}},
      {"%%MatrixMarket vector coordinate real general\n", {1, "object 'vector' is not supported"}},
      {"%%MatrixMarket matrix coordinate real\n1 1 0\n", {1, "malformed banner"}},
      {"%%MatrixMarket matrix sparse real general\n", {1, "unknown format 'sparse'"}},
      {"%%MatrixMarket matrix coordinate float general\n", {1, "unknown field 'float'"}},
      {"%%MatrixMarket matrix coordinate real upper\n", {1, "unknown symmetry 'upper'"}},
      {general + "% only comments\n\n", {3, "missing size line"}},
      {general + "3 3\n", {2, "bad size line: expected 3 integers"}},
      {general + "3 3 1 1\n", {2, "bad size line: expected 3 integers"}},
      {general + "3 x 1\n", {2, "columns 'x' is not a non-negative integer"}},
      {general + "-3 3 1\n", {2, "rows '-3' is not a non-negative integer"}},
      {general + "3 3 1.5\n", {2, "entries '1.5' is not a non-negative integer"}},
      {general + "3000000000 3 1\n", {2, "exceeds the int32 limit"}},
      {symmetric + "3 4 1\n", {2, "a symmetric matrix must be square"}},
      {general + "3 3 1\n0 1 1\n", {3, "row index 0 is out of range 1..3"}},
      {general + "3 3 2\n1 1 1\n2 4 1\n", {4, "column index 4 is out of range 1..3"}},
      {general + "3 3 1\n-1 1 1\n", {3, "row index -1 is out of range 1..3"}},
      {general + "3 3 1\n1.0 1 1\n", {3, "row index '1.0' is not an integer"}},
      {general + "3 3 1\n1 b 1\n", {3, "column index 'b' is not an integer"}},
      {general + "3 3 1\n1 1 abc\n", {3, "value 'abc' is not a number"}},
      {general + "3 3 1\n1 1 1.5x\n", {3, "value '1.5x' is not a number"}},
      {general + "3 3 1\n1 1 1e300\n", {3, "value '1e300' is not a finite float"}},
      {general + "3 3 1\n1 1 nan\n", {3, "value 'nan' is not a finite float"}},
      {integer + "3 3 1\n1 1 1.5\n", {3, "value '1.5' is not an integer"}},
      {general + "3 3 1\n1 1\n", {3, "expected 3 fields (row column value), found 2"}},
      {general + "3 3 1\n1 1 2 3\n", {3, "expected 3 fields (row column value), found 4"}},
      {pattern + "3 3 1\n1 1 1\n", {3, "expected 2 fields (row column), found 3"}},
      {symmetric + "3 3 1\n1 3 1\n", {3, "entry (1, 3) lies above the diagonal"}},
      {general + "3 3 3\n1 1 1\n2 2 2\n",
       {4, "file ends after 2 of the 3 entries declared on line 2"}},
      {general + "% c\n3 3 2\n1 1 1\n\n% trailing comment\n",
       {6, "file ends after 1 of the 2 entries declared on line 3"}},
      {general + "3 3 1\n1 1 1\n2 2 2\n", {4, "more entries than the 1 declared on line 2"}},
      // The Matrix package ships this broken file as wrong.mtx.
      {"%%MatrixMarket matrix coordinate integer general\n2 3 2\n0 1 1\n1 3 4\n",
       {3, "row index 0 is out of range 1..2"}},
  };
  for (const auto& [text, expected] : cases) {
    CAPTURE(text);
    const auto caught = parse_error_of([&] { parse(text); });
    CAPTURE(caught.what);
    REQUIRE(caught.thrown);
    CHECK(caught.line == expected.line);
    const std::string prefix = "test.mtx:" + std::to_string(expected.line) + ": ";
    CHECK(caught.what.rfind(prefix, 0) == 0);
    CHECK(contains(caught.what, expected.problem));
    CHECK(caught.what.find('\n') == std::string::npos);
  }
}

TEST_CASE("Matrix Market: the stream reader names its source; a missing file is one clear line",
          "[common][sparse][mtx]") {
  std::istringstream in("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 2 1\n");
  const auto caught = parse_error_of([&] { read_matrix_market(in, "input.mtx"); });
  CHECK(caught.what == "input.mtx:3: column index 2 is out of range 1..1");

  const auto missing =
      parse_error_of([] { read_matrix_market_file("/nonexistent/dir/matrix.mtx"); });
  CHECK(missing.thrown);
  CHECK(missing.line == 0);
  CHECK(missing.what ==
        "/nonexistent/dir/matrix.mtx: cannot open file (No such file or directory)");
  // A ParseError is a UsageError, so guarded_main exits with code 2.
  CHECK_THROWS_AS(read_matrix_market_file("/nonexistent.mtx"), cudalab::UsageError);
  // A folder opens as a stream on Linux but cannot be read: the same kind of one-line error.
  const auto folder = parse_error_of([] { read_matrix_market_file("/tmp"); });
  CHECK(folder.thrown);
  CHECK(folder.what == "/tmp: is a folder, not a file");
}

TEST_CASE("Matrix Market: gzip-compressed files read when zlib is built in, else a clear refusal",
          "[common][sparse][mtx][gzip]") {
  // gzip -9n of a 2 x 2 general real file with entries (1,1) = 1.5 and (2,2) = -2.
  const unsigned char gz[] = {
      0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x53, 0x55, 0xf5, 0x4d, 0x2c,
      0x29, 0xca, 0xac, 0xf0, 0x4d, 0x2c, 0xca, 0x4e, 0x2d, 0x51, 0xc8, 0x05, 0x73, 0x14, 0x92,
      0xf3, 0xf3, 0x8b, 0x52, 0x32, 0xf3, 0x12, 0x4b, 0x52, 0x15, 0x8a, 0x52, 0x13, 0x73, 0x14,
      0xd2, 0x53, 0xf3, 0x52, 0x8b, 0x12, 0x73, 0xb8, 0x54, 0x15, 0xd2, 0xab, 0x14, 0x4a, 0x52,
      0x8b, 0x4b, 0xb8, 0x8c, 0x14, 0x80, 0x90, 0xcb, 0x50, 0x01, 0x08, 0xf5, 0x4c, 0xc1, 0x3c,
      0x5d, 0x23, 0x2e, 0x00, 0xf4, 0xf1, 0xe6, 0x07, 0x4d, 0x00, 0x00, 0x00};
  const std::string bytes(reinterpret_cast<const char*>(gz), sizeof gz);
  sparse_test::TempFile file("m.mtx.gz");
  file.write(bytes);
  if (gzip_supported()) {
    const CooMatrix a = read_matrix_market_file(file.path());
    CHECK(a.rows == 2);
    CHECK(a.val == std::vector<float>{1.5f, -2.0f});
    // A truncated archive is refused, not read short.
    sparse_test::TempFile cut("cut.mtx.gz");
    cut.write(bytes.substr(0, bytes.size() - 20));
    const auto caught = parse_error_of([&] { read_matrix_market_file(cut.path()); });
    CHECK(contains(caught.what, "corrupt gzip file"));
  } else {
    const auto caught = parse_error_of([&] { read_matrix_market_file(file.path()); });
    CHECK(contains(caught.what, "gunzip the file first"));
  }
}

namespace {

std::string write(const CooMatrix& a, const MatrixMarketWriteOptions& options = {}) {
  std::ostringstream out;
  write_matrix_market(out, a, options);
  return out.str();
}

}  // namespace

TEST_CASE("Matrix Market: writer output is the documented text", "[common][sparse][mtx]") {
  const CooMatrix a = coo_of(2, 3, {{0, 2, 0.1f}, {1, 0, -3.0f}});
  MatrixMarketWriteOptions options;
  options.comment = "made by a test\nsecond line";
  CHECK(write(a, options) ==
        "%%MatrixMarket matrix coordinate real general\n"
        "% made by a test\n"
        "% second line\n"
        "2 3 2\n"
        "1 3 0.100000001\n"
        "2 1 -3\n");
}

TEST_CASE("Matrix Market: writer -> reader round trips are exact", "[common][sparse][mtx]") {
  const std::uint64_t seed = GENERATE(std::uint64_t{1}, std::uint64_t{77});
  CAPTURE(seed);
  SECTION("real general, values bit for bit (9 significant digits)") {
    const CooMatrix a = csr_to_coo(random_matrix(50, 40, 0, 12, seed));
    const CooMatrix b = parse(write(a));
    CHECK(b.rows == a.rows);
    CHECK(b.cols == a.cols);
    CHECK(b.row == a.row);
    CHECK(b.col == a.col);
    REQUIRE(b.val.size() == a.val.size());
    CHECK(std::memcmp(b.val.data(), a.val.data(), a.val.size() * sizeof(float)) == 0);
  }
  SECTION("integer and pattern fields") {
    const CooMatrix a = csr_to_coo(random_matrix(30, 30, 1, 5, seed, Values::small_ints));
    MatrixMarketWriteOptions options;
    options.field = MmField::integer;
    CHECK(parse(write(a, options)).val == a.val);
    CooMatrix ones = a;
    ones.val.assign(a.nnz(), 1.0f);
    options.field = MmField::pattern;
    const std::string text = write(ones, options);
    CHECK(contains(text, "coordinate pattern general"));
    const CooMatrix p = parse(text);
    CHECK(p.row == ones.row);
    CHECK(p.val == ones.val);
  }
  SECTION("symmetric: the lower triangle is written and expanded back") {
    const auto csr = poisson_2d(6);
    const CooMatrix a = csr_to_coo(csr);
    MatrixMarketWriteOptions options;
    options.symmetry = MmSymmetry::symmetric;
    const std::string text = write(a, options);
    MatrixMarketInfo info;
    const CooMatrix b = parse(text, &info);
    CHECK(info.stored_entries == (a.nnz() + 36) / 2);
    const auto back = coo_to_csr(b);
    CHECK(back.row_ptr == csr.row_ptr);
    CHECK(back.col_idx == csr.col_idx);
    CHECK(back.val == csr.val);
  }
  SECTION("through a file") {
    const CooMatrix a = csr_to_coo(power_law_matrix(40, 40, 1, 40, seed));
    sparse_test::TempFile file("round.mtx");
    write_matrix_market_file(file.path(), a);
    const CooMatrix b = read_matrix_market_file(file.path());
    CHECK(b.row == a.row);
    CHECK(b.val == a.val);
  }
}

TEST_CASE("Matrix Market: the writer refuses matrices that do not fit the options",
          "[common][sparse][mtx]") {
  CooMatrix a = coo_of(2, 2, {{0, 0, 0.5f}, {0, 1, 2.0f}});
  MatrixMarketWriteOptions options;
  options.field = MmField::integer;
  CHECK_THROWS_AS(write(a, options), std::invalid_argument);
  options.field = MmField::pattern;
  CHECK_THROWS_AS(write(a, options), std::invalid_argument);
  options.field = MmField::real;
  options.symmetry = MmSymmetry::symmetric;
  CHECK_THROWS_AS(write(a, options), std::invalid_argument);  // (0,1) has no mirror
  a.push_back(1, 0, 2.5f);
  CHECK_THROWS_AS(write(a, options), std::invalid_argument);  // mirror differs
  a.val.back() = 2.0f;
  CHECK_NOTHROW(write(a, options));
  CooMatrix wide;
  wide.rows = 2;
  wide.cols = 3;
  CHECK_THROWS_AS(write(wide, options), std::invalid_argument);
}
