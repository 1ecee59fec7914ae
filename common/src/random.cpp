#include "cudalab/random.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <stdexcept>

namespace cudalab {

namespace {
// 24 random bits -> [0, 1) exactly representable in float; portable, unlike
// std::uniform_real_distribution whose algorithm the standard leaves open.
float unit_float(std::mt19937_64& rng) {
  return static_cast<float>(rng() >> 40) * (1.0f / 16777216.0f);
}
}  // namespace

std::vector<float> random_floats(std::size_t count, std::uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::vector<float> v(count);
  for (auto& x : v) {
    x = lo + (hi - lo) * unit_float(rng);
    // Rounding can land on hi when |lo| is large against hi - lo; keep the range half-open.
    if (x >= hi && hi > lo) x = std::nextafter(hi, lo);
  }
  return v;
}

std::int64_t random_int(std::uint64_t seed, std::int64_t lo, std::int64_t hi) {
  if (hi < lo) throw std::invalid_argument("random_int: empty range");
  std::mt19937_64 rng(seed);
  // Unsigned arithmetic: hi - lo overflows int64 for ranges wider than half of it.
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
  const std::uint64_t offset = span == 0 ? rng() : rng() % span;
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + offset);
}

std::vector<float> random_small_ints(std::size_t count, std::uint64_t seed, int lo, int hi) {
  if (hi < lo) throw std::invalid_argument("random_small_ints: empty range");
  std::mt19937_64 rng(seed);
  // In 64 bits: hi - lo overflows int for ranges wider than half of it.
  const std::uint64_t span = static_cast<std::uint64_t>(std::int64_t{hi} - lo) + 1;
  std::vector<float> v(count);
  for (auto& x : v) x = static_cast<float>(lo + static_cast<std::int64_t>(rng() % span));
  return v;
}

std::uint64_t seed_from_env(std::uint64_t fallback) {
  const char* text = std::getenv("CUDALAB_SEED");
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  errno = 0;
  const unsigned long long value = std::strtoull(text, &end, 10);
  // strtoull skips spaces, accepts a sign (negating "-5" to a huge value) and saturates.
  if (*end != '\0' || !std::isdigit(static_cast<unsigned char>(text[0])) || errno == ERANGE)
    throw std::invalid_argument(std::string("CUDALAB_SEED is not a non-negative integer: ") + text);
  return value;
}

std::uint64_t derive_seed(std::uint64_t base, std::uint64_t case_id) {
  // splitmix64 finaliser over the combination: distinct cases get unrelated streams.
  std::uint64_t z = base + 0x9e3779b97f4a7c15ULL * (case_id + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace cudalab
