// Private helpers for the line-oriented readers: lines with their numbers, fields, numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cudalab::sparse::detail {

// Walks `text` line by line (LF or CRLF), counting lines from 1.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}

  // The next line without its terminator; false at the end of the text.
  bool next(std::string_view& line);
  // The number of the line last returned (0 before the first).
  std::size_t line_number() const { return line_number_; }

 private:
  std::string_view text_;
  std::size_t pos_ = 0;
  std::size_t line_number_ = 0;
};

bool is_space(char c);
bool is_blank(std::string_view line);
std::string_view trim_left(std::string_view s);

// The whitespace-separated fields of `line`.
std::vector<std::string_view> split_fields(std::string_view line);

// Whole-field decimal integer (optional sign); false on anything else or overflow.
bool parse_int64(std::string_view field, std::int64_t& out);
// Whole-field floating-point number as strtod reads it; false on anything else.
bool parse_double(std::string_view field, double& out);

// "'text'" for messages, shortened when long.
std::string quote(std::string_view text);

}  // namespace cudalab::sparse::detail
