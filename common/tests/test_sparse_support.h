// Helpers shared by the sparse tests: COO matrices from a list of entries, catching a
// ParseError's message, temporary files.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <string>

#include "cudalab/sparse/formats.h"
#include "cudalab/sparse/io.h"
#include "test_support.h"

namespace sparse_test {

struct Entry {
  cudalab::sparse::index_t row, col;
  float val;
};

// A rows x cols COO matrix holding `entries` in the order given (duplicates kept).
inline cudalab::sparse::CooMatrix coo_of(cudalab::sparse::index_t rows,
                                         cudalab::sparse::index_t cols,
                                         std::initializer_list<Entry> entries) {
  cudalab::sparse::CooMatrix a;
  a.rows = rows;
  a.cols = cols;
  for (const Entry& e : entries) a.push_back(e.row, e.col, e.val);
  return a;
}

struct Caught {
  bool thrown = false;
  std::string what;
  std::size_t line = 0;
};

inline Caught parse_error_of(const std::function<void()>& f) {
  Caught c;
  try {
    f();
  } catch (const cudalab::sparse::ParseError& e) {
    c.thrown = true;
    c.what = e.what();
    c.line = e.line();
  }
  return c;
}

using test_support::contains;

// A file under the temporary directory, removed on destruction.
class TempFile {
 public:
  explicit TempFile(const std::string& name)
      : path_((std::filesystem::temp_directory_path() /
               ("cudalab-sparse-test-" + std::to_string(counter()++) + "-" + name))
                  .string()) {}
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  const std::string& path() const { return path_; }
  void write(const std::string& bytes) const {
    std::ofstream out(path_, std::ios::binary);
    out << bytes;
  }

 private:
  static int& counter() {
    static int n = 0;
    return n;
  }
  std::string path_;
};

}  // namespace sparse_test
