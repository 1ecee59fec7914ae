#include "gpu_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace cudalab::grade {

namespace {

// A descriptor of `path` (created if need be), of its own open file description: flock locks of
// two threads of one process conflict only when each opened the file itself.
int open_lock_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0)
    throw std::runtime_error("the GPU lock " + path + " cannot be opened: " + std::strerror(errno));
  return fd;
}

// `path` opened and locked (`how`: LOCK_SH or LOCK_EX), waiting as long as it takes.
int take(const std::string& path, int how) {
  const int fd = open_lock_file(path);
  while (flock(fd, how) != 0) {
    if (errno == EINTR) continue;
    const int e = errno;
    close(fd);
    throw std::runtime_error("the GPU lock " + path + " cannot be taken: " + std::strerror(e));
  }
  return fd;
}

}  // namespace

GpuLock::GpuLock(std::string path) : path_(std::move(path)) {}

void GpuLock::Hold::release() {
  for (int& fd : fds_)
    if (fd >= 0) close(fd), fd = -1;
  if (in_process_ != nullptr) {
    {
      std::lock_guard<std::mutex> lock(in_process_->mutex);
      if (exclusive_)
        in_process_->writer = false;
      else
        --in_process_->readers;
    }
    in_process_->changed.notify_all();
    in_process_.reset();
  }
}

GpuLock::Hold::~Hold() {
  release();
}

GpuLock::Hold::Hold(Hold&& other) noexcept {
  *this = std::move(other);
}

GpuLock::Hold& GpuLock::Hold::operator=(Hold&& other) noexcept {
  if (this != &other) {
    release();
    for (int i = 0; i < 2; ++i) fds_[i] = std::exchange(other.fds_[i], -1);
    in_process_ = std::move(other.in_process_);
    exclusive_ = other.exclusive_;
  }
  return *this;
}

GpuLock::Hold GpuLock::shared(bool counted) const {
  Hold hold;
  {
    std::unique_lock<std::mutex> lock(in_process_->mutex);
    in_process_->changed.wait(
        lock, [&] { return !in_process_->writer && in_process_->writers_waiting == 0; });
    ++in_process_->readers;
  }
  hold.in_process_ = in_process_;  // released with the hold, even if what follows throws
  if (!enabled()) return hold;
  if (counted) hold.fds_[1] = take(path_ + ".counters", LOCK_EX);
  hold.fds_[0] = through_turnstile(LOCK_SH);
  return hold;
}

GpuLock::Hold GpuLock::exclusive() const {
  Hold hold;
  {
    std::unique_lock<std::mutex> lock(in_process_->mutex);
    ++in_process_->writers_waiting;
    in_process_->changed.wait(lock,
                              [&] { return !in_process_->writer && in_process_->readers == 0; });
    --in_process_->writers_waiting;
    in_process_->writer = true;
  }
  hold.in_process_ = in_process_;
  hold.exclusive_ = true;
  if (enabled()) hold.fds_[0] = through_turnstile(LOCK_EX);
  return hold;
}

int GpuLock::through_turnstile(int how) const {
  const int turnstile = take(path_ + ".turnstile", LOCK_EX);
  int fd = -1;
  try {
    fd = take(path_, how);
  } catch (...) {
    close(turnstile);
    throw;
  }
  close(turnstile);
  return fd;
}

void GpuLock::check_usable() const {
  if (!enabled()) return;
  for (const std::string& p : {path_, path_ + ".turnstile", path_ + ".counters"})
    close(open_lock_file(p));
}

}  // namespace cudalab::grade
