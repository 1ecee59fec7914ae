// Lab 10 host tests: the CPU reference layer on a worked example, the tolerance against its
// analysis, the diagnoses, the idx reader and the weights file reader on good and malformed
// input. No GPU, no data files and no trained weights needed.
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>

#include "cnn_cpu.h"
#include "cudalab/catch.h"
#include "cudalab/sparse/io.h"
#include "fashion_mnist.h"
#include "network.h"
#include "weights_file.h"

using lab10::LayerShape;

namespace {

std::string big_endian(std::uint32_t v) {
  std::string s;
  for (int i = 3; i >= 0; --i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
  return s;
}

std::string idx_images(std::uint32_t count, std::uint32_t rows, std::uint32_t columns,
                       std::size_t pixels, std::uint32_t magic = 0x803) {
  return big_endian(magic) + big_endian(count) + big_endian(rows) + big_endian(columns) +
         std::string(pixels, '\x07');
}

std::string idx_labels(std::uint32_t count, std::size_t bytes, char value = 3,
                       std::uint32_t magic = 0x801) {
  return big_endian(magic) + big_endian(count) + std::string(bytes, value);
}

// The message of the ParseError `f` throws ("" if none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const cudalab::sparse::ParseError& e) {
    return e.what();
  }
  return "";
}

lab10::NetWeights small_weights() {
  lab10::NetWeights w;
  w.trained_accuracy = 91.25f;
  w.conv1.assign(12 * 25, 0.5f);
  w.conv2.assign(24 * 12 * 25, -0.25f);
  w.fc_weight.assign(10 * 384, 0.125f);
  w.fc_bias.assign(10, 1.0f);
  return w;
}

}  // namespace

TEST_CASE("layer: a worked example by hand", "[lab10][host]") {
  // B = 1, C = 2, 3 x 3 images, M = 1, K = 2: y[h][w] = sum over both channels of the 2 x 2
  // window times the filter.
  const LayerShape s{1, 2, 1, 3, 3, 2};
  const std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8, 9,   // channel 0
                                1, 0, 1, 0, 1, 0, 1, 0, 1};  // channel 1
  const std::vector<float> k = {1, 0, 0, -1,                 // channel 0: x[h][w] - x[h+1][w+1]
                                2, 2, 2, 2};                 // channel 1: 2 * window sum
  const std::vector<double> y = lab10::conv_forward_cpu(x, k, s);
  // (1 - 5) + 2 * (1 + 0 + 0 + 1) = 0; (2 - 6) + 2 * (0 + 1 + 1 + 0) = 0; ...
  REQUIRE(y == std::vector<double>{0, 0, 0, 0});
  // x0[h][w+1] + x1[h+1][w+1]: 2 + 1, 3 + 0, 5 + 0, 6 + 1.
  const std::vector<float> k2 = {0, 1, 0, 0, 0, 0, 0, 1};
  REQUIRE(lab10::conv_forward_cpu(x, k2, s) == std::vector<double>{3, 3, 5, 7});
}

TEST_CASE("layer: shapes and the course's layers", "[lab10][host]") {
  const LayerShape l1 = lab10::course_layer(1), l2 = lab10::course_layer(2);
  CHECK(l1.ho() == 66);
  CHECK(l1.wo() == 66);
  CHECK(l2.ho() == 29);
  CHECK(l2.wo() == 29);
  // 2 * B * M * C * K * K * Ho * Wo
  CHECK(l1.flops() == Approx(2.0 * 10000 * 12 * 1 * 25 * 66 * 66));
  CHECK(l2.flops() == Approx(2.0 * 10000 * 24 * 12 * 25 * 29 * 29));
  CHECK(l1.y_count() * 4 == 10000ULL * 12 * 66 * 66 * 4);  // 2.09 GB written
  CHECK_THROWS_AS(lab10::course_layer(3), std::invalid_argument);
}

TEST_CASE("layer: images range of the CPU reference", "[lab10][host]") {
  const LayerShape s{3, 1, 2, 4, 4, 3};
  std::vector<float> x(s.x_count()), k(s.k_count(), 1.0f);
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i % 7);
  const std::vector<double> all = lab10::conv_forward_cpu(x, k, s);
  const std::vector<double> middle = lab10::conv_forward_cpu(x, k, s, 1, 2);
  const std::size_t per_image = 2 * 2 * 2;
  REQUIRE(middle == std::vector<double>(all.begin() + per_image, all.begin() + 2 * per_image));
}

TEST_CASE("tolerance: gamma_n * max_m sum |k[m]| * max |x|", "[lab10][host]") {
  const LayerShape s{1, 12, 2, 33, 33, 5};  // n = 300
  std::vector<float> k(s.k_count(), 0.5f);
  k[0] = -1.0f;  // map 0: 299 * 0.5 + 1 = 150.5; map 1: 150
  const double u = std::ldexp(1.0, -24), n = 300;
  const cudalab::Tolerance tol = lab10::conv_tolerance(k, s, 2.0);
  CHECK(tol.atol == Approx(n * u / (1 - n * u) * 150.5 * 2.0));
  CHECK(tol.rtol == 0.0);
  // Tight enough: one missing tap of 0.5 * 1 is far above it.
  CHECK(tol.atol < 0.01);
}

TEST_CASE("diagnosis names swapped p and q, and a single channel", "[lab10][host]") {
  const LayerShape s{2, 3, 2, 6, 7, 3};
  std::vector<float> x(s.x_count()), k(s.k_count());
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 11) - 5;
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = static_cast<float>((i * 5) % 9) - 4;
  const cudalab::Tolerance exact{0.0, 0.0};
  const auto as_float = [](const std::vector<double>& v) {
    return std::vector<float>(v.begin(), v.end());
  };
  const std::vector<double> right = lab10::conv_forward_cpu(x, k, s);
  CHECK(lab10::diagnose(as_float(right), x, k, s, exact).empty());
  // k with p and q swapped gives the layer of the transposed filters.
  std::vector<float> kt(k.size());
  for (int mc = 0; mc < s.M * s.C; ++mc)
    for (int p = 0; p < 3; ++p)
      for (int q = 0; q < 3; ++q) kt[mc * 9 + p * 3 + q] = k[mc * 9 + q * 3 + p];
  CHECK(lab10::diagnose(as_float(lab10::conv_forward_cpu(x, kt, s)), x, k, s, exact)
            .find("p and q swapped") != std::string::npos);
  // Only channel 0: zero the weights of channels 1 and 2.
  std::vector<float> k0 = k;
  for (int m = 0; m < s.M; ++m)
    for (int i = 9; i < 27; ++i) k0[m * 27 + i] = 0.0f;
  CHECK(lab10::diagnose(as_float(lab10::conv_forward_cpu(x, k0, s)), x, k, s, exact)
            .find("only channel 0") != std::string::npos);
}

TEST_CASE("idx: well-formed image and label files", "[lab10][host]") {
  const lab10::IdxImages images = lab10::parse_idx_images(idx_images(3, 28, 28, 3 * 784), "t");
  CHECK(images.count == 3);
  CHECK(images.rows == 28);
  CHECK(images.columns == 28);
  CHECK(images.pixels.size() == 3 * 784);
  CHECK(images.pixels[100] == 7);
  const std::vector<std::uint8_t> labels = lab10::parse_idx_labels(idx_labels(4, 4), "l");
  CHECK(labels == std::vector<std::uint8_t>{3, 3, 3, 3});
}

TEST_CASE("idx: malformed files give one line naming the problem", "[lab10][host]") {
  using lab10::parse_idx_images;
  using lab10::parse_idx_labels;
  CHECK(error_of([] { parse_idx_images("abc", "f"); }).find("too short") != std::string::npos);
  CHECK(error_of([] {
          parse_idx_images(idx_images(1, 28, 28, 784, 0x801), "f");
        }).find("magic 0x00000801") != std::string::npos);
  CHECK(error_of([] {
          parse_idx_images(idx_images(1, 32, 32, 1024), "f");
        }).find("32 x 32, expected 28 x 28") != std::string::npos);
  CHECK(error_of([] {
          parse_idx_images(idx_images(2, 28, 28, 784), "f");
        }).find("file too short") != std::string::npos);
  CHECK(error_of([] {
          parse_idx_images(idx_images(1, 28, 28, 785), "f");
        }).find("1 unexpected bytes") != std::string::npos);
  CHECK(error_of([] { parse_idx_images(idx_images(0, 28, 28, 0), "f"); }).find("count 0") !=
        std::string::npos);
  CHECK(error_of([] {
          parse_idx_labels(idx_labels(1, 1, 3, 0x803), "f");
        }).find("not an idx label file") != std::string::npos);
  CHECK(error_of([] { parse_idx_labels(idx_labels(5, 4), "f"); }).find("file too short") !=
        std::string::npos);
  CHECK(error_of([] { parse_idx_labels(idx_labels(2, 2, 10), "f"); }).find("expected 0 to 9") !=
        std::string::npos);
  const std::string missing = error_of([] { lab10::read_idx_images("/nonexistent/t10k.gz"); });
  CHECK(missing.find("/nonexistent/t10k.gz: cannot open") == 0);
  CHECK(missing.find('\n') == std::string::npos);
}

TEST_CASE("weights file: written and read back", "[lab10][host]") {
  const lab10::NetWeights w = small_weights();
  const std::string bytes = lab10::serialize_weights(w);
  CHECK(bytes.substr(0, 8) == "CUDALABW");
  const lab10::NetWeights r = lab10::parse_weights(bytes, "w");
  CHECK(r.trained_accuracy == 91.25f);
  CHECK(r.conv1 == w.conv1);
  CHECK(r.conv2 == w.conv2);
  CHECK(r.fc_weight == w.fc_weight);
  CHECK(r.fc_bias == w.fc_bias);
}

TEST_CASE("weights file: malformed files give one line naming the problem", "[lab10][host]") {
  const std::string good = lab10::serialize_weights(small_weights());
  const auto error = [](const std::string& bytes) {
    return error_of([&] { lab10::parse_weights(bytes, "w.bin"); });
  };
  CHECK(error("CUDALABX" + good.substr(8)).find("magic") != std::string::npos);
  std::string version = good;
  version[8] = 2;
  CHECK(error(version).find("version 2") != std::string::npos);
  CHECK(error(good.substr(0, good.size() - 3)).find("file too short") != std::string::npos);
  CHECK(error(good + "x").find("1 unexpected bytes") != std::string::npos);
  // Header 20 bytes; tensor 0: name length at 20, name at 24, rank at 36, dims at 40, values
  // at 56.
  std::string name = good;
  name[24] = 'k';  // "conv1.weight" -> "konv1.weight"
  CHECK(error(name).find("\"konv1.weight\", expected \"conv1.weight\"") != std::string::npos);
  std::string shape = good;
  shape[40] = 13;  // conv1.weight [13][1][5][5]
  CHECK(error(shape).find("shape [13, 1, 5, 5], expected [12, 1, 5, 5]") != std::string::npos);
  std::string nan = good;
  const std::size_t first_value = 56;
  nan[first_value + 3] = '\x7f';
  nan[first_value + 2] = '\xc0';
  CHECK(error(nan).find("not finite") != std::string::npos);
  for (const std::string& e : {error(good.substr(0, 5)), error(nan), error(shape)})
    CHECK(e.find('\n') == std::string::npos);
}

TEST_CASE("the real test set and the committed weights, where present, read cleanly",
          "[lab10][host]") {
  // Neither is needed by the host tests: without them this test only says so.
  const std::string dir = lab10::fashion_mnist_dir();
  if (std::filesystem::exists(lab10::fashion_mnist_test_images(dir))) {
    const lab10::FashionMnist data = lab10::read_fashion_mnist_test(dir);
    CHECK(data.images.count == 10000);
    CHECK(data.labels.size() == 10000);
    std::vector<int> per_class(10, 0);
    for (const std::uint8_t label : data.labels) ++per_class[label];
    CHECK(per_class == std::vector<int>(10, 1000));  // the test set is balanced
  } else {
    WARN("Fashion-MNIST not installed (scripts/fetch-data fashion-mnist): not read");
  }
  const std::string weights = lab10::default_weights_path();
  if (std::filesystem::exists(weights)) {
    const lab10::NetWeights w = lab10::read_weights(weights);
    CHECK(w.trained_accuracy > 80.0f);
  } else {
    WARN("no weights file yet (scripts/train-cnn.py writes it): " + weights);
  }
}
