#include "wire.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>

namespace cudalab::wire {

namespace {

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// 1: read, 0: closed, -1: timed out.
int read_all(int fd, char* p, std::size_t n, int timeout_ms,
             std::chrono::steady_clock::time_point start) {
  while (n > 0) {
    int wait = -1;
    if (timeout_ms >= 0) {
      const auto spent = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::steady_clock::now() - start)
                             .count();
      if (spent >= timeout_ms) return -1;
      wait = static_cast<int>(timeout_ms - spent);
    }
    pollfd pfd{fd, POLLIN, 0};
    const int ready = poll(&pfd, 1, wait);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) return -1;
    if (ready < 0) return 0;
    const ssize_t r = recv(fd, p, n, 0);
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (r <= 0) return 0;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return 1;
}

}  // namespace

bool send_message(int fd, const std::string& body) {
  if (body.size() > kMaxMessage) return false;
  const std::uint32_t n = static_cast<std::uint32_t>(body.size());
  return write_all(fd, reinterpret_cast<const char*>(&n), 4) &&
         write_all(fd, body.data(), body.size());
}

int receive_message(int fd, std::string* body, int timeout_ms, std::uint32_t max_bytes) {
  const auto start = std::chrono::steady_clock::now();
  std::uint32_t n = 0;
  if (const int r = read_all(fd, reinterpret_cast<char*>(&n), 4, timeout_ms, start); r != 1)
    return r;
  if (n > max_bytes)
    throw std::runtime_error("a message of " + std::to_string(n) + " bytes, more than the " +
                             std::to_string(max_bytes) + " allowed");
  body->assign(n, '\0');
  return read_all(fd, body->data(), n, timeout_ms, start);
}

HostArea& HostArea::operator=(HostArea&& other) noexcept {
  if (this != &other) {
    reset();
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(fd_, other.fd_);
  }
  return *this;
}

HostArea HostArea::create(std::size_t bytes) {
  const auto fail = [](const char* step) {
    return std::runtime_error(std::string("cannot make the host-argument area (") + step +
                              "): " + std::strerror(errno));
  };
  HostArea area;
  area.fd_ = memfd_create("cudalab-host-args", MFD_CLOEXEC | MFD_ALLOW_SEALING);
  if (area.fd_ < 0) throw fail("memfd_create");
  if (ftruncate(area.fd_, static_cast<off_t>(bytes)) != 0) throw fail("ftruncate");
  // Its size fixed for good: nobody (the candidate's code included, should it ever get hold of
  // the descriptor) can shrink it under the judge's mapping, where a read past the new end would
  // be a SIGBUS in the judge.
  if (fcntl(area.fd_, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
    throw fail("F_ADD_SEALS");
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, area.fd_, 0);
  if (p == MAP_FAILED) throw fail("mmap");
  area.data_ = static_cast<char*>(p);
  area.size_ = bytes;
  return area;
}

HostArea HostArea::map(int fd) {
  struct stat st {};
  if (fstat(fd, &st) != 0)
    throw std::runtime_error(std::string("the host-argument area: fstat: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode) || st.st_size <= 0)
    throw std::runtime_error("descriptor " + std::to_string(fd) +
                             " is not a host-argument area (not a file, or empty)");
  const std::size_t bytes = static_cast<std::size_t>(st.st_size);
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED)
    throw std::runtime_error(std::string("the host-argument area: mmap: ") + std::strerror(errno));
  HostArea area;
  area.data_ = static_cast<char*>(p);
  area.size_ = bytes;
  return area;
}

void HostArea::close_descriptor() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

void HostArea::reset() {
  if (data_ != nullptr) munmap(data_, size_);
  data_ = nullptr;
  size_ = 0;
  close_descriptor();
}

char* HostArea::at(std::uint64_t offset, std::uint64_t bytes) const {
  if (data_ == nullptr) throw std::runtime_error("a host argument, but no host-argument area");
  if (offset > size_ || bytes > size_ - offset)
    throw std::runtime_error("a host argument outside the area: " + std::to_string(bytes) +
                             " bytes at offset " + std::to_string(offset) + " of " +
                             std::to_string(size_));
  return data_ + offset;
}

}  // namespace cudalab::wire
