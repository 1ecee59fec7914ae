// Helpers shared by the sparse tests: catching a ParseError's message, temporary files.
#pragma once

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "cudalab/sparse/io.h"

namespace sparse_test {

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

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

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
