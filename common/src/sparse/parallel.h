// Private helpers of the generators and the CSR builder: host threads over independent ranges,
// and a counter-based random stream. Whatever the number of threads, the result is the same:
// each range is computed from its own indices alone (no shared random state, no shared writes).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace cudalab::sparse::detail {

// The threads to use for `work` items when each thread should get at least `min_per_thread`:
// 1 for small work, at most the hardware's threads and 16. `requested` > 0 overrides it (tests).
inline int thread_count(std::size_t work, std::size_t min_per_thread, int requested = 0) {
  if (requested > 0) return requested;
  const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t by_work =
      std::max<std::size_t>(1, work / std::max<std::size_t>(1, min_per_thread));
  return static_cast<int>(std::min({hardware, by_work, std::size_t{16}}));
}

// Calls body(t) for t in 0..threads-1, t = 0 on the calling thread and the others on threads of
// their own; returns when all are done. An exception from any body is rethrown here (the first by
// thread number).
template <typename Body>
void run_threads(int threads, Body body) {
  if (threads <= 1) {
    body(0);
    return;
  }
  std::vector<std::exception_ptr> errors(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads) - 1);
  const auto guarded = [&](int t) {
    try {
      body(t);
    } catch (...) {
      errors[static_cast<std::size_t>(t)] = std::current_exception();
    }
  };
  for (int t = 1; t < threads; ++t) pool.emplace_back(guarded, t);
  guarded(0);
  for (std::thread& th : pool) th.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

// The part [begin, end) of 0..count that thread t of `threads` takes: equal parts, in order.
// (count below 2^58: the product does not overflow.)
inline std::size_t part_begin(std::size_t count, int t, int threads) {
  return count * static_cast<std::size_t>(t) / static_cast<std::size_t>(threads);
}

// SplitMix64 (Steele, Lea, Flood, OOPSLA 2014; the seeding generator of xoshiro): the stream
// seeded with `seed` is mix(seed + k * gamma) for k = 1, 2, ...; any draw is computed from its
// position alone, so threads can compute any part of a stream. Integer arithmetic only: the same
// numbers on every platform.
inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

inline constexpr std::uint64_t kGamma = 0x9e3779b97f4a7c15ULL;

// Draw k (0, 1, ...) of stream `stream` (itself a well-mixed 64-bit key).
inline std::uint64_t draw(std::uint64_t stream, std::uint64_t k) {
  return mix64(stream + (k + 1) * kGamma);
}

// The key of sub-stream `index` of the stream with key `key` (one per row, per edge block, ...).
inline std::uint64_t substream(std::uint64_t key, std::uint64_t index) {
  return mix64(key ^ mix64(index + kGamma));
}

}  // namespace cudalab::sparse::detail
