// Host threads for the graders' CPU references: contiguous ranges of independent items.
#pragma once

#include <algorithm>
#include <cstddef>
#include <system_error>
#include <thread>
#include <vector>

namespace cudalab {

// Calls body(begin, end) on contiguous ranges that cover [0, count), on up to one thread per CPU
// and 16, each with at least `work_per_thread` units of work (`work_per_item` x count in all; on
// this thread alone below twice that): a thread costs ~20 us to start. Each item's result must be
// computed as in a loop on one thread, so that the results do not depend on the number of threads.
template <typename Body>
void parallel_ranges(std::size_t count, double work_per_item, double work_per_thread, Body body) {
  const auto wanted =
      static_cast<std::size_t>(static_cast<double>(count) * work_per_item / work_per_thread);
  const std::size_t threads =
      std::min<std::size_t>({wanted, count, std::max(1u, std::thread::hardware_concurrency()), 16});
  if (threads <= 1) {
    body(std::size_t{0}, count);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t) {
    const std::size_t begin = count * t / threads, end = count * (t + 1) / threads;
    try {
      pool.emplace_back(body, begin, end);
    } catch (const std::system_error&) {  // no thread to be had: this one does the range
      body(begin, end);
    }
  }
  body(std::size_t{0}, count / threads);
  for (std::thread& t : pool) t.join();
}

}  // namespace cudalab
