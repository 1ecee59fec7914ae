// A small JSON writer for reports and benchmark output (no dependency beyond the standard
// library). Produces pretty-printed, valid JSON; keys in the order written. Misuse (a value
// without a key in an object, mismatched or unclosed containers) throws std::logic_error.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace cudalab {

std::string json_escape(const std::string& s);  // without the surrounding quotes

class JsonWriter {
 public:
  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(const std::string& k);
  JsonWriter& value(const std::string& v);
  JsonWriter& value(const char* v);
  JsonWriter& value(double v);  // NaN and infinities become null (JSON has no such numbers)
  JsonWriter& value(std::int64_t v);
  JsonWriter& value(int v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(std::size_t v) { return value(static_cast<std::int64_t>(v)); }
  JsonWriter& value(bool v);
  JsonWriter& null();
  template <typename T>
  JsonWriter& field(const std::string& k, const T& v) {
    key(k);
    return value(v);
  }
  std::string str() const;

 private:
  void before_value();
  JsonWriter& end_container(char close);
  std::ostringstream out_;
  std::vector<bool> first_;  // one entry per open container: nothing written in it yet
  std::vector<char> kinds_;  // '}' or ']' per open container, to catch misuse
  bool after_key_ = false;
  bool wrote_top_level_ = false;
};

}  // namespace cudalab
