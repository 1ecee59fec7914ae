#include "fashion_mnist.h"

#include <cstdio>
#include <filesystem>

#include "cudalab/sparse/io.h"

namespace lab10 {

using cudalab::sparse::ParseError;

namespace {

std::uint32_t big_endian_u32(const std::string& bytes, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(bytes[at + i]);
  return v;
}

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", v);
  return buf;
}

void require_size(const std::string& bytes, std::size_t expected, const std::string& source,
                  const std::string& what) {
  if (bytes.size() < expected)
    throw ParseError(source, 0,
                     "file too short: " + what + " need " + std::to_string(expected) +
                         " bytes, the file has " + std::to_string(bytes.size()));
  if (bytes.size() > expected)
    throw ParseError(source, 0,
                     std::to_string(bytes.size() - expected) + " unexpected bytes after the " +
                         what + " (" + std::to_string(expected) + " bytes expected)");
}

std::string pick(const std::string& dir, const std::string& name) {
  const std::string plain = dir + "/" + name;
  if (std::filesystem::exists(plain + ".gz") || !std::filesystem::exists(plain))
    return plain + ".gz";
  return plain;
}

}  // namespace

IdxImages parse_idx_images(const std::string& bytes, const std::string& source) {
  if (bytes.size() < 16)
    throw ParseError(source, 0,
                     "file too short for an idx image header (16 bytes), it has " +
                         std::to_string(bytes.size()));
  const std::uint32_t magic = big_endian_u32(bytes, 0);
  if (magic != 0x00000803)
    throw ParseError(source, 0,
                     "not an idx image file: magic " + hex(magic) +
                         ", expected 0x00000803 (unsigned bytes, 3 dimensions)");
  const std::uint32_t count = big_endian_u32(bytes, 4), rows = big_endian_u32(bytes, 8),
                      columns = big_endian_u32(bytes, 12);
  if (count == 0 || count > 1000000)
    throw ParseError(source, 0, "image count " + std::to_string(count) + " out of range");
  if (rows != kImageSide || columns != kImageSide)
    throw ParseError(source, 0,
                     "images are " + std::to_string(rows) + " x " + std::to_string(columns) +
                         ", expected 28 x 28");
  const std::size_t pixels = static_cast<std::size_t>(count) * rows * columns;
  require_size(bytes, 16 + pixels, source, std::to_string(count) + " images of 28 x 28");
  IdxImages out;
  out.count = static_cast<int>(count);
  out.rows = static_cast<int>(rows);
  out.columns = static_cast<int>(columns);
  out.pixels.assign(bytes.begin() + 16, bytes.end());
  return out;
}

std::vector<std::uint8_t> parse_idx_labels(const std::string& bytes, const std::string& source) {
  if (bytes.size() < 8)
    throw ParseError(
        source, 0,
        "file too short for an idx label header (8 bytes), it has " + std::to_string(bytes.size()));
  const std::uint32_t magic = big_endian_u32(bytes, 0);
  if (magic != 0x00000801)
    throw ParseError(source, 0,
                     "not an idx label file: magic " + hex(magic) +
                         ", expected 0x00000801 (unsigned bytes, 1 dimension)");
  const std::uint32_t count = big_endian_u32(bytes, 4);
  if (count == 0 || count > 1000000)
    throw ParseError(source, 0, "label count " + std::to_string(count) + " out of range");
  require_size(bytes, 8 + static_cast<std::size_t>(count), source,
               std::to_string(count) + " labels");
  std::vector<std::uint8_t> labels(bytes.begin() + 8, bytes.end());
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (labels[i] > 9)
      throw ParseError(
          source, 0,
          "label " + std::to_string(i) + " is " + std::to_string(labels[i]) + ", expected 0 to 9");
  return labels;
}

IdxImages read_idx_images(const std::string& path) {
  return parse_idx_images(cudalab::sparse::read_file_text(path), path);
}

std::vector<std::uint8_t> read_idx_labels(const std::string& path) {
  return parse_idx_labels(cudalab::sparse::read_file_text(path), path);
}

std::string fashion_mnist_test_images(const std::string& dir) {
  return pick(dir, "t10k-images-idx3-ubyte");
}
std::string fashion_mnist_test_labels(const std::string& dir) {
  return pick(dir, "t10k-labels-idx1-ubyte");
}

FashionMnist read_fashion_mnist_test(const std::string& dir) {
  FashionMnist data;
  const std::string images = fashion_mnist_test_images(dir),
                    labels = fashion_mnist_test_labels(dir);
  data.images = read_idx_images(images);
  data.labels = read_idx_labels(labels);
  if (data.labels.size() != static_cast<std::size_t>(data.images.count))
    throw ParseError(labels, 0,
                     std::to_string(data.labels.size()) + " labels for " +
                         std::to_string(data.images.count) + " images in " + images);
  return data;
}

const char* class_name(int label) {
  static const char* const names[] = {"T-shirt/top", "Trouser", "Pullover", "Dress", "Coat",
                                      "Sandal",      "Shirt",   "Sneaker",  "Bag",   "Ankle boot"};
  return label >= 0 && label < 10 ? names[label] : "?";
}

}  // namespace lab10
