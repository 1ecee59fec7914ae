#include "network.h"

#include <cuda_runtime.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "cudalab/check.h"
#include "cudalab/device_buffer.h"

namespace lab10 {

namespace {

constexpr int kClasses = 10;
constexpr int kFeatures = 384;  // 24 maps x 4 x 4

__global__ void to_float_kernel(const unsigned char* pixels, float* x, long long n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i < n) x[i] = pixels[i] / 255.0f;
}

// out[plane][h][w] = max(0, max of in[plane][2h .. 2h+1][2w .. 2w+1]); H and W even.
__global__ void relu_maxpool2_kernel(const float* in, float* out, long long planes, int H, int W) {
  const int ho = H / 2, wo = W / 2;
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= planes * ho * wo) return;
  const int w = static_cast<int>(i % wo), h = static_cast<int>(i / wo % ho);
  const long long plane = i / (static_cast<long long>(wo) * ho);
  const float* p = in + (plane * H + 2 * h) * W + 2 * w;
  out[i] = fmaxf(fmaxf(fmaxf(p[0], p[1]), fmaxf(p[W], p[W + 1])), 0.0f);
}

// logits[n][o] = bias[o] + sum_f features[n][f] * weight[o][f]
__global__ void fully_connected_kernel(const float* features, const float* weight,
                                       const float* bias, float* logits, int n) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<long long>(n) * kClasses) return;
  const int o = static_cast<int>(i % kClasses);
  const float* f = features + (i / kClasses) * kFeatures;
  const float* wo = weight + static_cast<long long>(o) * kFeatures;
  float sum = bias[o];
  for (int j = 0; j < kFeatures; ++j) sum = fmaf(f[j], wo[j], sum);
  logits[i] = sum;
}

unsigned blocks_for(long long n, int threads) {
  return static_cast<unsigned>((n + threads - 1) / threads);
}

}  // namespace

std::string fashion_mnist_dir() {
  return data_dir() + "/fashion-mnist";
}

NetworkResult run_network(const FashionMnist& data, const NetWeights& w, const CnnVariant& v,
                          Kernel kernel) {
  const int n = data.images.count;
  const LayerShape conv1{n, 1, 12, 28, 28, 5}, conv2{n, 12, 24, 12, 12, 5};
  cudalab::DeviceBuffer<unsigned char> pixels(data.images.pixels);
  cudalab::DeviceBuffer<float> x(conv1.x_count()), a1(conv1.y_count()), p1(conv2.x_count()),
      a2(conv2.y_count()), p2(static_cast<std::size_t>(n) * kFeatures),
      logits(static_cast<std::size_t>(n) * kClasses);
  cudalab::DeviceBuffer<float> k1(w.conv1), k2(w.conv2), fc_w(w.fc_weight), fc_b(w.fc_bias);
  cudalab::Stream stream;
  cudalab::Event start, stop;
  const ConvFn conv = function_of(v, kernel);
  const int t = 256;
  // NaN in the conv outputs until a kernel writes them: an unwritten output cannot pass for one.
  CUDA_CHECK(cudaMemset(a1.data(), 0xFF, a1.bytes()));
  CUDA_CHECK(cudaMemset(a2.data(), 0xFF, a2.bytes()));
  CUDA_CHECK(cudaDeviceSynchronize());

  // prepare_weights() is untimed set-up, but the two layers have different weights: the second
  // copy may only happen once the first layer has run.
  if (std::string p =
          prepare(v, kernel, w.conv1, conv1, {"network, conv layer 1", 0, conv1.text()});
      !p.empty())
    throw std::runtime_error(p);
  start.record(stream.get());
  to_float_kernel<<<blocks_for(conv1.x_count(), t), t, 0, stream.get()>>>(
      pixels.data(), x.data(), static_cast<long long>(conv1.x_count()));
  CUDA_CHECK(cudaGetLastError());
  conv(x.data(), k1.data(), a1.data(), conv1.B, conv1.C, conv1.M, conv1.H, conv1.W, conv1.K,
       stream.get());
  relu_maxpool2_kernel<<<blocks_for(conv2.x_count(), t), t, 0, stream.get()>>>(
      a1.data(), p1.data(), static_cast<long long>(n) * conv1.M, conv1.ho(), conv1.wo());
  CUDA_CHECK(cudaGetLastError());
  stream.synchronize();
  const float ms1 = [&] {
    cudalab::Event mid;
    mid.record(stream.get());
    return mid.elapsed_since(start);
  }();
  if (std::string p =
          prepare(v, kernel, w.conv2, conv2, {"network, conv layer 2", 0, conv2.text()});
      !p.empty())
    throw std::runtime_error(p);
  cudalab::Event start2;
  start2.record(stream.get());
  conv(p1.data(), k2.data(), a2.data(), conv2.B, conv2.C, conv2.M, conv2.H, conv2.W, conv2.K,
       stream.get());
  relu_maxpool2_kernel<<<blocks_for(static_cast<long long>(n) * kFeatures, t), t, 0,
                         stream.get()>>>(a2.data(), p2.data(), static_cast<long long>(n) * conv2.M,
                                         conv2.ho(), conv2.wo());
  CUDA_CHECK(cudaGetLastError());
  fully_connected_kernel<<<blocks_for(static_cast<long long>(n) * kClasses, t), t, 0,
                           stream.get()>>>(p2.data(), fc_w.data(), fc_b.data(), logits.data(), n);
  CUDA_CHECK(cudaGetLastError());
  stop.record(stream.get());
  const float ms2 = stop.elapsed_since(start2);

  const std::vector<float> out = logits.download();
  NetworkResult r;
  r.count = n;
  r.ms = ms1 + ms2;
  r.predictions.resize(n);
  for (int i = 0; i < n; ++i) {
    int best = 0;  // the first of equal logits; NaN logits never win, so they count as wrong
    for (int o = 1; o < kClasses; ++o)
      if (out[i * kClasses + o] > out[i * kClasses + best]) best = o;
    if (std::isnan(out[i * kClasses + best])) best = -1;
    r.predictions[i] = best;
    if (best == data.labels[i]) ++r.correct;
  }
  r.accuracy = 100.0 * r.correct / n;
  return r;
}

}  // namespace lab10
