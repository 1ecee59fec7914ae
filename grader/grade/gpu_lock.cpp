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

GpuLock::Hold::~Hold() {
  for (int& fd : fds_)
    if (fd >= 0) close(fd), fd = -1;
}

GpuLock::Hold::Hold(Hold&& other) noexcept {
  *this = std::move(other);
}

GpuLock::Hold& GpuLock::Hold::operator=(Hold&& other) noexcept {
  if (this != &other) {
    for (int i = 0; i < 2; ++i) {
      if (fds_[i] >= 0) close(fds_[i]);
      fds_[i] = std::exchange(other.fds_[i], -1);
    }
  }
  return *this;
}

GpuLock::Hold GpuLock::shared(bool counted) const {
  Hold hold;
  if (!enabled()) return hold;
  if (counted) hold.fds_[1] = take(path_ + ".counters", LOCK_EX);
  hold.fds_[0] = through_turnstile(LOCK_SH);
  return hold;
}

GpuLock::Hold GpuLock::exclusive() const {
  Hold hold;
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
