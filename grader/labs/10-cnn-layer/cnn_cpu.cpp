#include "cnn_cpu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "cudalab/parallel.h"

namespace lab10 {

std::string LayerShape::text() const {
  return "B=" + std::to_string(B) + " C=" + std::to_string(C) + " M=" + std::to_string(M) +
         " H=" + std::to_string(H) + " W=" + std::to_string(W) + " K=" + std::to_string(K);
}

LayerShape course_layer(int layer, int batch) {
  if (layer == 1) return {batch, 1, 12, 70, 70, 5};   // 66 x 66 out
  if (layer == 2) return {batch, 12, 24, 33, 33, 5};  // 29 x 29 out
  throw std::invalid_argument("course_layer: the course has layers 1 and 2");
}

namespace {

// At least 1e6 multiply-adds per thread (a thread costs ~20 us to start).
constexpr double kWorkPerThread = 1e6;

// kind 0: the formula; 1: p and q swapped in k; 2: only channel 0. The images on several threads.
std::vector<double> conv_variant(const std::vector<float>& x, const std::vector<float>& k,
                                 const LayerShape& s, int b_begin, int b_end, int kind) {
  if (b_end < 0) b_end = s.B;
  const int ho = s.ho(), wo = s.wo(), K = s.K;
  const std::size_t per_image = static_cast<std::size_t>(s.M) * ho * wo;
  const auto images = static_cast<std::size_t>(b_end - b_begin);
  std::vector<double> y(images * per_image, 0.0);
  const int channels = kind == 2 ? 1 : s.C;
  const double macs_per_image = static_cast<double>(per_image) * channels * K * K;
  cudalab::parallel_ranges(
      images, macs_per_image, kWorkPerThread, [&](std::size_t first, std::size_t last) {
        for (std::size_t image = first; image < last; ++image) {
          const std::size_t b = static_cast<std::size_t>(b_begin) + image;
          for (int m = 0; m < s.M; ++m) {
            double* ym = &y[image * per_image + static_cast<std::size_t>(m) * ho * wo];
            for (int c = 0; c < channels; ++c) {
              const float* xc = &x[(b * s.C + c) * s.H * s.W];
              const float* kc = &k[(static_cast<std::size_t>(m) * s.C + c) * K * K];
              for (int p = 0; p < K; ++p)
                for (int q = 0; q < K; ++q) {
                  const double kv = kind == 1 ? kc[q * K + p] : kc[p * K + q];
                  for (int h = 0; h < ho; ++h) {
                    const float* xr = xc + static_cast<std::size_t>(h + p) * s.W + q;
                    double* yr = ym + static_cast<std::size_t>(h) * wo;
                    for (int w = 0; w < wo; ++w) yr[w] += static_cast<double>(xr[w]) * kv;
                  }
                }
            }
          }
        }
      });
  return y;
}

}  // namespace

std::vector<double> conv_forward_cpu(const std::vector<float>& x, const std::vector<float>& k,
                                     const LayerShape& s, int b_begin, int b_end) {
  return conv_variant(x, k, s, b_begin, b_end, 0);
}

cudalab::Tolerance conv_tolerance(const std::vector<float>& k, const LayerShape& s,
                                  double max_abs_x) {
  const double n = static_cast<double>(s.C) * s.K * s.K;
  const double u = std::ldexp(1.0, -24);
  const double gamma = n * u / (1.0 - n * u);
  double max_sum = 0.0;
  const std::size_t per_map = static_cast<std::size_t>(s.C) * s.K * s.K;
  for (int m = 0; m < s.M; ++m) {
    double sum = 0.0;
    for (std::size_t i = 0; i < per_map; ++i) sum += std::fabs(k[m * per_map + i]);
    max_sum = std::max(max_sum, sum);
  }
  return {gamma * max_sum * max_abs_x, 0.0};
}

std::string diagnose(const std::vector<float>& got, const std::vector<float>& x,
                     const std::vector<float>& k, const LayerShape& s, cudalab::Tolerance tol) {
  struct Mistake {
    int kind;
    const char* text;
  };
  for (const Mistake& mistake :
       {Mistake{1, "looks like: p and q swapped (the output is the layer with k[m][c][q][p])"},
        Mistake{2, "looks like: only channel 0 summed (the sum over c stops after c = 0)"}}) {
    if (mistake.kind == 1 && s.K == 1) continue;  // the same layer
    if (mistake.kind == 2 && s.C == 1) continue;
    const std::vector<double> wrong = conv_variant(x, k, s, 0, s.B, mistake.kind);
    if (wrong.size() != got.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < got.size() && same; ++i)
      same = cudalab::within_tolerance(got[i], wrong[i], tol);
    if (same) return mistake.text;
  }
  return "";
}

}  // namespace lab10
