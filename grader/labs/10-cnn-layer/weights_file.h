// The network's weights file (grader/labs/10-cnn-layer/weights/fashion_cnn.bin, written by
// scripts/train-cnn.py). Little-endian throughout:
//
//   offset  bytes  field
//   0       8      magic "CUDALABW"
//   8       4      version, uint32 = 1
//   12      4      test accuracy the training script measured with PyTorch, float32, percent
//   16      4      tensor count n, uint32 (= 4)
//   then n tensors, each:
//           4      name length L, uint32, 1 to 64
//           L      name, ASCII
//           4      rank r, uint32, 1 to 4
//           4 r    dimensions, uint32 each
//           4 N    values, float32, row-major, N = product of the dimensions
//   the file ends right after the last tensor.
//
// The tensors, in this order (the network of network.h):
//   conv1.weight [12][1][5][5]   conv2.weight [24][12][5][5]   fc.weight [10][384]   fc.bias [10]
//
// The reader checks everything (magic, version, count, each name, rank and shape, finite values,
// no bytes missing or left over) and throws cudalab::sparse::ParseError "path: problem" (a
// UsageError: one line, exit code 2 in the runner).
#pragma once

#include <string>
#include <vector>

namespace lab10 {

struct NetWeights {
  float trained_accuracy = 0.0f;  // percent, as the training script measured it
  std::vector<float> conv1;       // [12][1][5][5]
  std::vector<float> conv2;       // [24][12][5][5]
  std::vector<float> fc_weight;   // [10][384]
  std::vector<float> fc_bias;     // [10]
};

NetWeights parse_weights(const std::string& bytes, const std::string& source);
NetWeights read_weights(const std::string& path);
// The file's bytes for `w` (the host tests build malformed files from it).
std::string serialize_weights(const NetWeights& w);

// <source>/grader/labs/10-cnn-layer/weights/fashion_cnn.bin, or CUDALAB_CNN_WEIGHTS.
std::string default_weights_path();

}  // namespace lab10
