#include "texture_cpu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace lab05 {

namespace {
constexpr double kPi = 3.14159265358979323846;
constexpr double kFloatU = 1.0 / (1 << 24);  // unit roundoff of float, 2^-24

// acc[x] += m[0] * source[x] + m[1] * source[x + 1] + ... + m[K-1] * source[x + K-1], the
// products added one by one in that order, for x in [0, n). With K known to the compiler the taps
// unroll and the loop over x vectorises.
template <int K>
void add_taps(double* __restrict acc, const double* __restrict source, const double* __restrict m,
              std::size_t n) {
  for (std::size_t x = 0; x < n; ++x) {
    double a = acc[x];
    for (int k = 0; k < K; ++k) a += m[k] * source[x + k];
    acc[x] = a;
  }
}

void add_mask_row(double* acc, const double* source, const double* m, int k, std::size_t n) {
  switch (k) {
    case 1: return add_taps<1>(acc, source, m, n);
    case 3: return add_taps<3>(acc, source, m, n);
    case 5: return add_taps<5>(acc, source, m, n);
    case 7: return add_taps<7>(acc, source, m, n);
    case 9: return add_taps<9>(acc, source, m, n);
    case 11: return add_taps<11>(acc, source, m, n);
    case 13: return add_taps<13>(acc, source, m, n);
    case 15: return add_taps<15>(acc, source, m, n);
    case 17: return add_taps<17>(acc, source, m, n);
    default:  // the same sums, tap by tap
      for (int t = 0; t < k; ++t)
        for (std::size_t x = 0; x < n; ++x) acc[x] += m[t] * source[x + t];
  }
}

}  // namespace

std::vector<float> test_signal(int w, int h, int delta) {
  // The product of a sine along x and one along y: each factor computed once per column or row
  // (the same doubles as computing both for every pixel).
  std::vector<double> along_x(static_cast<std::size_t>(w)), along_y(static_cast<std::size_t>(h));
  for (int x = 0; x < w; ++x) along_x[x] = std::sin(2 * kPi * x / (w + 2 * delta));
  for (int y = 0; y < h; ++y) along_y[y] = std::sin(2 * kPi * y / (h + 2 * delta));
  std::vector<float> s(static_cast<std::size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      s[static_cast<std::size_t>(y) * w + x] = static_cast<float>(along_x[x] * along_y[y]);
  return s;
}

std::vector<float> gaussian_mask(int radius) {
  const int side = 2 * radius + 1;
  std::vector<double> k(static_cast<std::size_t>(side) * side);
  double sum = 0.0;
  const double d2 = radius == 0 ? 1.0 : static_cast<double>(radius) * radius;
  for (int i = -radius; i <= radius; ++i)
    for (int j = -radius; j <= radius; ++j) {
      const double v = std::exp(-(i * i + j * j) / d2);
      k[static_cast<std::size_t>(i + radius) * side + (j + radius)] = v;
      sum += v;
    }
  std::vector<float> mask(k.size());
  for (std::size_t i = 0; i < k.size(); ++i) mask[i] = static_cast<float>(k[i] / sum);
  return mask;
}

std::vector<double> conv2d_cpu(const std::vector<float>& img, int w, int h,
                               const std::vector<float>& mask, int radius) {
  const int side = 2 * radius + 1;
  if (img.size() != static_cast<std::size_t>(w) * h ||
      mask.size() != static_cast<std::size_t>(side) * side)
    throw std::invalid_argument("conv2d_cpu: sizes do not match");
  // Row by row: each output row adds, for each row of the mask in turn, the mask row's taps times
  // the clamped input row shifted by each tap (add_mask_row). Every pixel gets the same sum, in
  // the same order, as the direct loop over its own taps, and the loops along the row vectorise.
  const std::size_t row = static_cast<std::size_t>(w);
  std::vector<double> out(img.size(), 0.0);
  std::vector<double> padded(row + 2 * static_cast<std::size_t>(radius));  // R clamped each side
  std::vector<double> mask_row(static_cast<std::size_t>(side));
  for (int y = 0; y < h; ++y)
    for (int dy = -radius; dy <= radius; ++dy) {
      const float* source =
          img.data() + static_cast<std::size_t>(std::clamp(y + dy, 0, h - 1)) * row;
      for (std::size_t j = 0; j < padded.size(); ++j)
        padded[j] = source[std::clamp(static_cast<int>(j) - radius, 0, w - 1)];
      for (int k = 0; k < side; ++k)
        mask_row[k] = mask[static_cast<std::size_t>(dy + radius) * side + k];
      // Tap k of the mask row reads padded[x + k] for pixel x: pixel clamp(x + k - R) of the row.
      add_mask_row(out.data() + static_cast<std::size_t>(y) * row, padded.data(), mask_row.data(),
                   side, row);
    }
  return out;
}

cudalab::Tolerance conv2d_tolerance(const std::vector<float>& mask, double max_abs_img) {
  double sum_abs = 0.0;
  for (const float m : mask) sum_abs += std::fabs(m);
  const double k = static_cast<double>(mask.size());
  return {2.0 * k * kFloatU * sum_abs * max_abs_img, 0.0};
}

std::string mode_name(cudaTextureAddressMode mode) {
  switch (mode) {
    case cudaAddressModeWrap: return "wrap";
    case cudaAddressModeClamp: return "clamp";
    case cudaAddressModeBorder: return "border";
    case cudaAddressModeMirror: return "mirror";
  }
  return "unknown";
}

cudaTextureAddressMode parse_mode(const std::string& name) {
  for (const auto mode : kModes)
    if (mode_name(mode) == name) return mode;
  throw std::invalid_argument("address mode must be wrap, clamp, border or mirror, got '" + name +
                              "'");
}

int resolve_index(int i, int n, cudaTextureAddressMode mode) {
  switch (mode) {
    case cudaAddressModeWrap: return ((i % n) + n) % n;
    case cudaAddressModeClamp: return std::clamp(i, 0, n - 1);
    case cudaAddressModeBorder: return i >= 0 && i < n ? i : -1;
    case cudaAddressModeMirror: {
      const int m = ((i % (2 * n)) + 2 * n) % (2 * n);
      return m < n ? m : 2 * n - 1 - m;
    }
  }
  return -1;
}

namespace {

double texel(const std::vector<float>& img, int w, int h, int i, int j,
             cudaTextureAddressMode mode) {
  const int x = resolve_index(i, w, mode);
  const int y = resolve_index(j, h, mode);
  if (x < 0 || y < 0) return 0.0;  // border
  return img[static_cast<std::size_t>(y) * w + x];
}

double quantize(double a, Sampler sampler) {
  if (sampler == Sampler::weights_rounded) return std::round(a * 256.0) / 256.0;
  if (sampler == Sampler::weights_truncated) return std::floor(a * 256.0) / 256.0;
  return a;
}

}  // namespace

double sample(const std::vector<float>& img, int w, int h, double u, double v,
              cudaTextureAddressMode mode, Sampler sampler) {
  if (sampler == Sampler::nearest)
    return texel(img, w, h, static_cast<int>(std::floor(u * w)),
                 static_cast<int>(std::floor(v * h)), mode);
  const double xb = u * w - 0.5, yb = v * h - 0.5;
  const double fi = std::floor(xb), fj = std::floor(yb);
  const double a = quantize(xb - fi, sampler), b = quantize(yb - fj, sampler);
  const int i = static_cast<int>(fi), j = static_cast<int>(fj);
  return (1 - a) * (1 - b) * texel(img, w, h, i, j, mode) +
         a * (1 - b) * texel(img, w, h, i + 1, j, mode) +
         (1 - a) * b * texel(img, w, h, i, j + 1, mode) +
         a * b * texel(img, w, h, i + 1, j + 1, mode);
}

void rotated_coordinates(int x, int y, int w, int h, double theta, double* u, double* v) {
  const double u0 = (x + 0.5) / w - 0.5, v0 = (y + 0.5) / h - 0.5;
  const double c = std::cos(theta), s = std::sin(theta);
  *u = u0 * c + v0 * s + 0.5;
  *v = -u0 * s + v0 * c + 0.5;
}

std::vector<double> rotate_cpu(const std::vector<float>& img, int w, int h, float theta,
                               cudaTextureAddressMode mode, Sampler sampler) {
  std::vector<double> out(img.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double u = 0, v = 0;
      rotated_coordinates(x, y, w, h, theta, &u, &v);
      out[static_cast<std::size_t>(y) * w + x] = sample(img, w, h, u, v, mode, sampler);
    }
  return out;
}

// Tolerance of the texture unit's bilinear filtering.
//
// The hardware does not use the exact weights: the CUDA Programming Guide (Texture Fetching,
// linear filtering) says alpha and beta are stored in 9-bit fixed point with 8 bits of fraction,
// so alpha' = alpha + ea with |ea| <= 2^-9 if it rounds to the nearest 1/256 (2^-8 if it
// truncates; the guide does not say which, so we allow 2^-8). Changing alpha by ea changes the
// result by ea [(1-b)(T[i+1,j] - T[i,j]) + b(T[i+1,j+1] - T[i,j+1])], at most |ea| Dx with Dx the
// largest difference between horizontal neighbours; likewise |eb| Dy; the cross term ea eb (...)
// is below 2^-16 (Dx + Dy). The kernel computes (u, v) in float: cos/sin within 2 ulp, a few
// roundings, |u| < 1.5: |du| <= 16 u_f, i.e. 16 u_f w texels, plus u_f 1.5 w for x_b = u w - 0.5;
// we allow c = 32 u_f w texels (u_f = 2^-24) on top of the weight error. A coordinate error can
// move the sample into the next texel cell, so Dx and Dy are taken over the 4 x 4 texels around
// the sample (address mode applied), not only the 4 it reads. The filter's own arithmetic and the
// float result add a few roundings of max|T|: 64 u_f max|T|. Truncated weights alone reach 97%
// of (Dx + Dy) 2^-8 on these cases, so we double the weight term against undocumented details
// (e.g. how the hardware rounds the coordinate before taking alpha). Altogether, per pixel:
//   atol = Dx (2^-7 + 32 u_f w) + Dy (2^-7 + 32 u_f h) + 64 u_f max|T|.
// For the course's signal on 64 x 64 (texel steps up to 2 pi / 72 = 0.087) that is ~1.4e-3 inside
// the image. Point filtering is off by up to half a texel step (0.04 there, 60x the bound), a
// sample half a texel off (no +0.5) by about half a step at every pixel, and swapped axes by the
// signal itself: the host tests (test_conv_texture.cpp) check that all three fail and that the
// weights rounded or truncated to 1/256 pass.
std::vector<double> rotation_bounds(const std::vector<float>& img, int w, int h, float theta,
                                    cudaTextureAddressMode mode) {
  const double weight = 2.0 / 256;  // 2^-8 (truncation), doubled
  const double cx = 32 * kFloatU * w, cy = 32 * kFloatU * h;
  std::vector<double> bounds(img.size());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double u = 0, v = 0;
      rotated_coordinates(x, y, w, h, theta, &u, &v);
      const int i = static_cast<int>(std::floor(u * w - 0.5));
      const int j = static_cast<int>(std::floor(v * h - 0.5));
      double t[4][4];
      double max_abs = 0.0;
      for (int b = 0; b < 4; ++b)
        for (int a = 0; a < 4; ++a) {
          t[b][a] = texel(img, w, h, i - 1 + a, j - 1 + b, mode);
          max_abs = std::max(max_abs, std::fabs(t[b][a]));
        }
      double dx = 0.0, dy = 0.0;
      for (int b = 0; b < 4; ++b)
        for (int a = 0; a < 3; ++a) {
          dx = std::max(dx, std::fabs(t[b][a + 1] - t[b][a]));
          dy = std::max(dy, std::fabs(t[a + 1][b] - t[a][b]));
        }
      bounds[static_cast<std::size_t>(y) * w + x] =
          dx * (weight + cx) + dy * (weight + cy) + 64 * kFloatU * max_abs;
    }
  return bounds;
}

cudalab::CompareResult compare_with_bounds(const std::vector<float>& got,
                                           const std::vector<double>& expected,
                                           const std::vector<double>& bounds,
                                           std::size_t max_report) {
  if (got.size() != expected.size() || bounds.size() != expected.size())
    throw std::invalid_argument("compare_with_bounds: sizes do not match");
  cudalab::CompareResult r;
  r.count = got.size();
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double g = got[i], e = expected[i];
    if (std::isfinite(g) && std::isfinite(e) && std::fabs(g - e) > r.max_abs_error) {
      r.max_abs_error = std::fabs(g - e);
      r.max_error_index = i;
    }
    if (cudalab::within_tolerance(g, e, {bounds[i], 0.0})) continue;
    ++r.mismatches;
    if (std::isnan(g) && !std::isnan(e)) ++r.unwritten;
    if (r.first.size() < max_report) r.first.push_back({i, e, g});
  }
  return r;
}

std::string describe_with_bounds(const cudalab::CompareResult& r,
                                 const std::vector<double>& bounds) {
  double largest = 0.0;
  for (const double b : bounds) largest = std::max(largest, b);
  std::string text = cudalab::describe(r, {largest, 0.0});
  return text + "\n  (atol is per pixel, from the texels around it; the largest is shown)";
}

}  // namespace lab05
