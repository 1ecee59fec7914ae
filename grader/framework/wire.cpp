#include "wire.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>

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

}  // namespace cudalab::wire
