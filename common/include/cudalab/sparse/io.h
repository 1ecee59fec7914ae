// Plumbing shared by the sparse-matrix and graph readers: the error they throw and reading a
// whole (optionally gzip-compressed) file. Readers report one line, "source:line: problem", so
// a runner's guarded_main prints it and exits with the usage code (2), like any other bad input.
#pragma once

#include <cstddef>
#include <istream>
#include <string>

#include "cudalab/cli.h"

namespace cudalab::sparse {

// A malformed or unreadable input file. A UsageError, so guarded_main maps it to exit code 2.
// what() is "source:line: problem", or "source: problem" when no line applies (line 0).
class ParseError : public UsageError {
 public:
  ParseError(const std::string& source, std::size_t line, const std::string& problem);

  const std::string& source() const { return source_; }
  std::size_t line() const { return line_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string source_;
  std::size_t line_;
  std::string problem_;
};

// True when the readers can open gzip files (.gz) themselves: the build found zlib. Without it
// a .gz path is refused with a ParseError that says to gunzip the file first.
bool gzip_supported();

// The whole content of `path`. Files starting with the gzip magic bytes are decompressed
// (when gzip_supported()). Throws ParseError "path: cannot open file (reason)" and the like.
std::string read_file_text(const std::string& path);

// The rest of `in` as one string.
std::string read_stream_text(std::istream& in);

}  // namespace cudalab::sparse
