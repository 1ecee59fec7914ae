#include "weights_file.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "cudalab/sparse/io.h"

#ifndef CUDALAB_SOURCE_DIR_DEFAULT
#define CUDALAB_SOURCE_DIR_DEFAULT "."
#endif

namespace lab10 {

using cudalab::sparse::ParseError;

namespace {

constexpr char kMagic[8] = {'C', 'U', 'D', 'A', 'L', 'A', 'B', 'W'};
constexpr std::uint32_t kVersion = 1;

struct Expected {
  const char* name;
  std::vector<std::uint32_t> dims;
};

const std::vector<Expected>& expected_tensors() {
  static const std::vector<Expected> tensors = {{"conv1.weight", {12, 1, 5, 5}},
                                                {"conv2.weight", {24, 12, 5, 5}},
                                                {"fc.weight", {10, 384}},
                                                {"fc.bias", {10}}};
  return tensors;
}

std::string dims_text(const std::vector<std::uint32_t>& dims) {
  std::string s = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + "]";
}

class Reader {
 public:
  Reader(const std::string& bytes, const std::string& source) : bytes_(bytes), source_(source) {}
  void need(std::size_t n, const std::string& what) const {
    if (bytes_.size() - at_ < n)
      throw ParseError(source_, 0,
                       "file too short: it ends inside " + what + " (at byte " +
                           std::to_string(at_) + " of " + std::to_string(bytes_.size()) + ")");
  }
  std::uint32_t u32(const std::string& what) {
    need(4, what);
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(bytes_[at_ + i]);
    at_ += 4;
    return v;
  }
  float f32(const std::string& what) {
    const std::uint32_t bits = u32(what);
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }
  std::string text(std::size_t n, const std::string& what) {
    need(n, what);
    std::string s = bytes_.substr(at_, n);
    at_ += n;
    return s;
  }
  std::size_t at() const { return at_; }
  std::size_t left() const { return bytes_.size() - at_; }

 private:
  const std::string& bytes_;
  const std::string& source_;
  std::size_t at_ = 0;
};

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

void put_f32(std::string& out, float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  put_u32(out, bits);
}

}  // namespace

NetWeights parse_weights(const std::string& bytes, const std::string& source) {
  Reader r(bytes, source);
  if (r.text(8, "the magic") != std::string(kMagic, 8))
    throw ParseError(source, 0, "not a CUDA Labs weights file (magic is not \"CUDALABW\")");
  const std::uint32_t version = r.u32("the version");
  if (version != kVersion)
    throw ParseError(source, 0,
                     "weights file version " + std::to_string(version) + ", this reader knows " +
                         std::to_string(kVersion));
  NetWeights w;
  w.trained_accuracy = r.f32("the accuracy");
  if (!(w.trained_accuracy >= 0.0f && w.trained_accuracy <= 100.0f))
    throw ParseError(source, 0, "recorded accuracy is not a percentage");
  const std::uint32_t count = r.u32("the tensor count");
  const auto& expected = expected_tensors();
  if (count != expected.size())
    throw ParseError(
        source, 0, std::to_string(count) + " tensors, expected " + std::to_string(expected.size()));
  std::vector<float>* targets[] = {&w.conv1, &w.conv2, &w.fc_weight, &w.fc_bias};
  for (std::size_t t = 0; t < expected.size(); ++t) {
    const std::string what = "tensor " + std::to_string(t) + " (" + expected[t].name + ")";
    const std::uint32_t name_length = r.u32(what + "'s name length");
    if (name_length < 1 || name_length > 64)
      throw ParseError(source, 0, what + ": name length " + std::to_string(name_length));
    const std::string name = r.text(name_length, what + "'s name");
    if (name != expected[t].name)
      throw ParseError(source, 0,
                       "tensor " + std::to_string(t) + " is \"" + name + "\", expected \"" +
                           expected[t].name + "\"");
    const std::uint32_t rank = r.u32(what + "'s rank");
    if (rank < 1 || rank > 4)
      throw ParseError(source, 0, name + ": rank " + std::to_string(rank) + ", expected 1 to 4");
    std::vector<std::uint32_t> dims;
    for (std::uint32_t d = 0; d < rank; ++d) dims.push_back(r.u32(name + "'s dimensions"));
    if (dims != expected[t].dims)
      throw ParseError(
          source, 0,
          name + " has shape " + dims_text(dims) + ", expected " + dims_text(expected[t].dims));
    std::size_t n = 1;
    for (const std::uint32_t d : dims) n *= d;
    r.need(4 * n, name + "'s " + std::to_string(n) + " values");
    targets[t]->resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      const float v = r.f32(name);
      if (!std::isfinite(v))
        throw ParseError(source, 0, name + ": value " + std::to_string(i) + " is not finite");
      (*targets[t])[i] = v;
    }
  }
  if (r.left() != 0)
    throw ParseError(source, 0,
                     std::to_string(r.left()) + " unexpected bytes after the last tensor");
  return w;
}

NetWeights read_weights(const std::string& path) {
  return parse_weights(cudalab::sparse::read_file_text(path), path);
}

std::string serialize_weights(const NetWeights& w) {
  std::string out(kMagic, 8);
  put_u32(out, kVersion);
  put_f32(out, w.trained_accuracy);
  const auto& expected = expected_tensors();
  put_u32(out, static_cast<std::uint32_t>(expected.size()));
  const std::vector<float>* sources[] = {&w.conv1, &w.conv2, &w.fc_weight, &w.fc_bias};
  for (std::size_t t = 0; t < expected.size(); ++t) {
    const std::string name = expected[t].name;
    put_u32(out, static_cast<std::uint32_t>(name.size()));
    out += name;
    put_u32(out, static_cast<std::uint32_t>(expected[t].dims.size()));
    for (const std::uint32_t d : expected[t].dims) put_u32(out, d);
    for (const float v : *sources[t]) put_f32(out, v);
  }
  return out;
}

std::string default_weights_path() {
  if (const char* env = std::getenv("CUDALAB_CNN_WEIGHTS"); env != nullptr && *env != '\0')
    return env;
  return std::string(CUDALAB_SOURCE_DIR_DEFAULT) +
         "/grader/labs/10-cnn-layer/weights/fashion_cnn.bin";
}

}  // namespace lab10
