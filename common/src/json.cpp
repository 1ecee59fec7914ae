#include "cudalab/json.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace cudalab {

std::string json_escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (const char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  return out;
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!kinds_.empty() && kinds_.back() == '}')
    throw std::logic_error("JsonWriter: a value inside an object needs a key first");
  if (kinds_.empty() && wrote_top_level_)
    throw std::logic_error("JsonWriter: only one top-level value");
  if (kinds_.empty()) wrote_top_level_ = true;
  if (!first_.empty()) {
    if (!first_.back()) out_ << ",";
    first_.back() = false;
    out_ << "\n" << std::string(2 * first_.size(), ' ');
  }
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ << "{";
  first_.push_back(true);
  kinds_.push_back('}');
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  return end_container('}');
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ << "[";
  first_.push_back(true);
  kinds_.push_back(']');
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  return end_container(']');
}

JsonWriter& JsonWriter::end_container(char close) {
  if (first_.empty()) throw std::logic_error("JsonWriter: end without begin");
  if (kinds_.back() != close) throw std::logic_error("JsonWriter: mismatched end of container");
  if (after_key_) throw std::logic_error("JsonWriter: key without a value");
  const bool empty = first_.back();
  first_.pop_back();
  kinds_.pop_back();
  if (!empty) out_ << "\n" << std::string(2 * first_.size(), ' ');
  out_ << close;
  return *this;
}

JsonWriter& JsonWriter::key(const std::string& k) {
  if (kinds_.empty() || kinds_.back() != '}' || after_key_)
    throw std::logic_error("JsonWriter: a key belongs directly inside an object");
  after_key_ = false;
  kinds_.back() = ']';  // let before_value() place the comma and indentation
  before_value();
  kinds_.back() = '}';
  out_ << "\"" << json_escape(k) << "\": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::value(const std::string& v) {
  before_value();
  out_ << "\"" << json_escape(v) << "\"";
  return *this;
}

JsonWriter& JsonWriter::value(const char* v) {
  return value(std::string(v));
}

JsonWriter& JsonWriter::value(double v) {
  if (!std::isfinite(v)) return null();
  before_value();
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  out_ << buf;
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t v) {
  before_value();
  out_ << v;
  return *this;
}

JsonWriter& JsonWriter::value(bool v) {
  before_value();
  out_ << (v ? "true" : "false");
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ << "null";
  return *this;
}

std::string JsonWriter::str() const {
  if (!first_.empty()) throw std::logic_error("JsonWriter: unclosed container");
  return out_.str() + "\n";
}

}  // namespace cudalab
