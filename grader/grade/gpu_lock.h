// Grades that share one GPU (the batch's and the service's workers, several on a GPU): their
// untimed work runs side by side, every timed check with nothing else on the GPU, and the GPU's
// performance counters serve one process at a time.
//
// The protocol, on three files beside each other that every grade of that GPU names (the grade
// command's --gpu-lock PATH; grader/classroom/workers.py speaks it too, for the builds):
// - PATH: an untimed process (and a worker's build) holds it shared (flock LOCK_SH), a grade's
//   timed checks exclusive (LOCK_EX), all of them at once;
// - PATH.turnstile: taken exclusive before PATH, and let go once PATH is held, so that a timed
//   phase waiting for PATH goes before the untimed work that asks after it (no writer starves);
// - PATH.counters: held exclusive, before PATH, by a process that reads the GPU's counters (a
//   technique check, a profile run).
// A hold ends when its Hold is destroyed (or its process ends, however it ends).
// The same rules hold between the threads of one grade, whether or not there is a file: a GpuLock
// and its copies share one lock in the process (shared holds together, an exclusive one alone,
// and an exclusive one that waits goes before shared ones that ask after it).
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>

namespace cudalab::grade {

class GpuLock {
 public:
  // `path` empty: no lock (a grade that has its GPU to itself); every hold is then a no-op.
  explicit GpuLock(std::string path = "");

  // The lock between the threads of this process (writer-preferring).
  struct InProcess {
    std::mutex mutex;
    std::condition_variable changed;
    int readers = 0;
    int writers_waiting = 0;
    bool writer = false;
  };

  class Hold {
   public:
    Hold() = default;
    ~Hold();
    Hold(Hold&& other) noexcept;
    Hold& operator=(Hold&& other) noexcept;
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;

   private:
    friend class GpuLock;
    void release();
    int fds_[2] = {-1, -1};
    std::shared_ptr<InProcess> in_process_;  // held by this Hold, unless null
    bool exclusive_ = false;
  };

  // Waits until it holds PATH shared (untimed work), after PATH.counters when `counted`.
  Hold shared(bool counted = false) const;
  // Waits until it holds PATH exclusive (the timed checks; a failure confirmed alone).
  Hold exclusive() const;

  bool enabled() const { return !path_.empty(); }
  const std::string& path() const { return path_; }

  // Throws std::runtime_error naming the file when one of the three cannot be opened or created.
  void check_usable() const;

 private:
  // PATH taken (`how`) between taking and letting go of PATH.turnstile; its descriptor.
  int through_turnstile(int how) const;

  std::string path_;
  std::shared_ptr<InProcess> in_process_ = std::make_shared<InProcess>();
};

}  // namespace cudalab::grade
