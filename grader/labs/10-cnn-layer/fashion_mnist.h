// Fashion-MNIST in the idx format (the files of Debian's dataset-fashion-mnist, gzipped or not):
//
//   images: magic 0x00000803, count, rows, columns (big-endian uint32), then count * rows *
//           columns bytes, row-major, 0 = background, 255 = full intensity;
//   labels: magic 0x00000801, count (big-endian uint32), then count bytes, each 0 to 9.
//
// Our own reader: every problem (missing file, gzip without zlib, wrong magic, wrong image size,
// short or over-long file, label out of range, images and labels of different counts) is one
// line, thrown as cudalab::sparse::ParseError ("path: problem"), a UsageError: runners print it
// and exit with code 2.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace lab10 {

struct IdxImages {
  int count = 0, rows = 0, columns = 0;
  std::vector<std::uint8_t> pixels;  // count * rows * columns
};

// `source` names the data in error messages (a path).
IdxImages parse_idx_images(const std::string& bytes, const std::string& source);
std::vector<std::uint8_t> parse_idx_labels(const std::string& bytes, const std::string& source);
IdxImages read_idx_images(const std::string& path);
std::vector<std::uint8_t> read_idx_labels(const std::string& path);

// The test set: 10000 images of 28 x 28 and their labels, checked against each other.
struct FashionMnist {
  IdxImages images;
  std::vector<std::uint8_t> labels;
};
inline constexpr int kImageSide = 28;
// Reads <dir>/t10k-images-idx3-ubyte.gz and <dir>/t10k-labels-idx1-ubyte.gz (or the files
// without .gz when those exist).
FashionMnist read_fashion_mnist_test(const std::string& dir);
// The file names it looks for, for messages ("<dir>/t10k-images-idx3-ubyte.gz").
std::string fashion_mnist_test_images(const std::string& dir);
std::string fashion_mnist_test_labels(const std::string& dir);

// The ten class names, in label order ("T-shirt/top", "Trouser", ...).
const char* class_name(int label);

}  // namespace lab10
