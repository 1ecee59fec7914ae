// The messages between the judge (a lab's grader: the checks, the inputs, the reference, the
// comparisons and the timing, and no code of the student's file) and the candidate process
// (cudalab-serve with the student's file loaded; grader/serve/serve_main.cpp). docs/design.md,
// section 8, says why they are two processes.
//
// A message is a 4-byte length and that many bytes, over a Unix socket pair. Its body is a
// sequence of fields written by Writer and read back by Reader, which throws on a short or
// malformed body: the judge never trusts what the candidate process sends.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

namespace cudalab::wire {

// What the judge asks for.
enum class Request : std::uint8_t {
  call = 1,     // run one function of the lab's interface: function id, then its arguments
  ping = 2,     // nothing but the round trip (and a device-wide synchronisation): the overhead
  collect = 3,  // the kernels the candidate process ran since the last collect (CUPTI)
  fence = 4,    // a device-wide synchronisation, answered with its status
};
// Every request carries a nonce after its kind, and its answer starts with it. The judge draws a
// fresh one for each request and follows every call with a fence: code of the student's file,
// which may write to the channel while its call runs, cannot know the fence's nonce, so an answer
// it forged early shows as a message out of turn (docs/grading.md, "What the grader
// guarantees").

// How an argument travels.
enum class Arg : std::uint8_t {
  integer = 'i',  // int64
  real = 'f',     // double
  device = 'p',   // a device pointer: an IPC handle of its allocation (64 bytes) and an offset
  null = 'n',     // a null device pointer
  // Host bytes: u64 offset and u64 size in the host-argument area (HostArea below). The judge
  // copies them in before the request and back out after the answer, at its own offsets, so that
  // a const input the function changed is seen.
  host = 'h',
};

// Call status in a reply.
enum class Status : std::uint8_t {
  ok = 0,
  cuda_error = 1,   // the function returned with a CUDA error (launch or device), text follows
  bad_request = 2,  // an unknown function or malformed arguments: a grader problem
  not_serving = 3,  // the candidate process could not start serving (text follows)
  threw_invalid_argument = 4,  // the function threw std::invalid_argument (text: its what())
  threw = 5,                   // the function threw another exception
};

// A bound on what either side reads: host arguments travel through the area, not in messages.
constexpr std::uint32_t kMaxMessage = 1u << 30;
constexpr std::size_t kIpcHandleBytes = 64;  // sizeof(cudaIpcMemHandle_t)

// The host-argument area: one sealed memfd per candidate process, made by the judge and mapped by
// both. 256 MiB holds a call's host arguments (the largest, lab 05's 4096 x 4096 image, is
// 64 MiB) and costs only the pages a call touches; it stays well under the grade command's 1 GiB
// file-size limit (RLIMIT_FSIZE), which a memfd's ftruncate obeys. The judge refuses a call whose
// arguments do not fit. The candidate process gets it on descriptor 4 (the channel is on 3), maps
// it and closes the descriptor before any code of the student's file exists.
constexpr int kHostAreaDescriptor = 4;
constexpr std::size_t kHostAreaBytes = std::size_t{256} << 20;
constexpr std::size_t kHostAreaAlignment = 256;  // each argument's offset

class HostArea {
 public:
  HostArea() = default;
  ~HostArea() { reset(); }
  HostArea(const HostArea&) = delete;
  HostArea& operator=(const HostArea&) = delete;
  HostArea(HostArea&& other) noexcept { *this = std::move(other); }
  HostArea& operator=(HostArea&& other) noexcept;

  // The judge's side: a memfd of `bytes` (sparse), sealed against shrinking, growing and further
  // seals, and mapped shared; its descriptor is kept for the child (descriptor()). Throws.
  static HostArea create(std::size_t bytes);
  // The candidate process's side: the whole area behind `fd`, mapped shared. The descriptor stays
  // the caller's to close. Throws.
  static HostArea map(int fd);

  char* data() const { return data_; }
  std::size_t size() const { return size_; }
  int descriptor() const { return fd_; }
  // The mapping alone is kept: the judge's copy of the descriptor is no longer needed once the
  // child has its own.
  void close_descriptor();
  // Unmapped and closed.
  void reset();

  // The bytes [offset, offset + bytes) of the area; throws unless they lie within it (offsets
  // that come from the other process are never trusted).
  char* at(std::uint64_t offset, std::uint64_t bytes) const;

 private:
  char* data_ = nullptr;
  std::size_t size_ = 0;
  int fd_ = -1;
};

class Writer {
 public:
  Writer& u8(std::uint8_t v) { return raw(&v, 1); }
  Writer& u32(std::uint32_t v) { return raw(&v, 4); }
  Writer& u64(std::uint64_t v) { return raw(&v, 8); }
  Writer& i64(std::int64_t v) { return raw(&v, 8); }
  Writer& f64(double v) { return raw(&v, 8); }
  Writer& bytes(const void* p, std::size_t n) {
    u64(n);
    return raw(p, n);
  }
  Writer& text(const std::string& s) { return bytes(s.data(), s.size()); }
  Writer& raw(const void* p, std::size_t n) {
    if (n > 0) body_.append(static_cast<const char*>(p), n);
    return *this;
  }
  const std::string& body() const { return body_; }
  std::string& body() { return body_; }

 private:
  std::string body_;
};

class Reader {
 public:
  explicit Reader(const std::string& body) : p_(body.data()), left_(body.size()) {}
  std::uint8_t u8() { return get<std::uint8_t>(); }
  std::uint32_t u32() { return get<std::uint32_t>(); }
  std::uint64_t u64() { return get<std::uint64_t>(); }
  std::int64_t i64() { return get<std::int64_t>(); }
  double f64() { return get<double>(); }
  // A pointer into the body and its length (valid while the body lives).
  const char* bytes(std::size_t* n) {
    const std::uint64_t len = u64();
    if (len > left_) throw std::runtime_error("malformed message: a field runs past its end");
    const char* at = p_;
    p_ += len;
    left_ -= len;
    *n = static_cast<std::size_t>(len);
    return at;
  }
  std::string text() {
    std::size_t n = 0;
    const char* p = bytes(&n);
    return std::string(p, n);
  }
  void raw(void* out, std::size_t n) {
    if (n > left_) throw std::runtime_error("malformed message: too short");
    std::memcpy(out, p_, n);
    p_ += n;
    left_ -= n;
  }
  bool done() const { return left_ == 0; }

 private:
  template <typename T>
  T get() {
    T v;
    raw(&v, sizeof v);
    return v;
  }
  const char* p_;
  std::size_t left_;
};

// Blocking send of one message; false when the peer is gone.
bool send_message(int fd, const std::string& body);
// Receives one message into `body`. Returns 1 on success, 0 when the peer closed the socket, -1
// after `timeout_ms` (negative: wait forever); throws on a message over `max_bytes`.
int receive_message(int fd, std::string* body, int timeout_ms,
                    std::uint32_t max_bytes = kMaxMessage);

}  // namespace cudalab::wire
