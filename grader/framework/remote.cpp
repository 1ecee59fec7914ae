#include "remote.h"

#include <cuda.h>
#include <cuda_runtime.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>

#include "cudalab/timing.h"
#include "wire.h"

extern char** environ;

// The paths of cudalab-serve and of this grader's candidate library: defined by the source
// cudalab_add_lab generates for a grader whose lab has a remote.cpp; otherwise these weak ones
// say that the candidate is linked into this process.
extern "C" __attribute__((weak)) const char* cudalab_candidate_server() {
  return nullptr;
}
extern "C" __attribute__((weak)) const char* cudalab_candidate_library() {
  return nullptr;
}
// The reference's library (the solution compiled as a candidate): the reference runs in a process
// of its own too, so that both are timed alike.
extern "C" __attribute__((weak)) const char* cudalab_reference_library() {
  return nullptr;
}

namespace cudalab::remote {

namespace {

// What the candidate process may print, per grader process: beyond it, output is counted and
// dropped (its lines reach the judge's stdout prefixed, so that none can pass for the grader's or
// compute-sanitizer's own).
constexpr std::size_t kOutputLimit = 64 * 1024;

int call_timeout_ms() {
  static const int ms = [] {
    const char* v = std::getenv("CUDALAB_CALL_TIMEOUT_S");
    const long s = v != nullptr ? std::strtol(v, nullptr, 10) : 0;
    return static_cast<int>(s > 0 ? s * 1000 : 120000);
  }();
  return ms;
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return std::string("signal ") + std::to_string(sig) +
         (abbrev != nullptr ? std::string(" (SIG") + abbrev + ")" : "");
}

// One cudalab-serve process: the candidate's or the reference's (Endpoint).
class ServeProcess {
 public:
  explicit ServeProcess(Endpoint endpoint) : endpoint_(endpoint) {}
  ~ServeProcess() { stop(); }

  // Starts the process unless it runs, and waits until it is ready to serve; throws with the
  // reason it cannot.
  void ensure_started() {
    if (pid_ <= 0) launch();
    if (!ready_) await_ready();
  }

  // Starts the process unless it runs, without waiting for it: its CUDA context is made while
  // the judge makes its inputs (prestart()).
  void launch() {
    if (pid_ > 0) return;
    const char* server = cudalab_candidate_server();
    const char* library = endpoint_ == Endpoint::candidate ? cudalab_candidate_library()
                                                           : cudalab_reference_library();
    if (server == nullptr || library == nullptr)
      throw std::logic_error("no candidate process in this grader");
    // Nothing of this process is within the candidate's reach through /proc or ptrace: a process
    // that is not dumpable is not open to processes of the same user.
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    // This process's host-argument area (wire.h), fresh for each process started: it holds this
    // endpoint's arguments only, and the other endpoint's process never maps it.
    area_ = wire::HostArea::create(wire::kHostAreaBytes);
    int sock[2], out[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sock) != 0 || pipe2(out, O_CLOEXEC) != 0)
      throw std::runtime_error("cannot make the candidate process's channels");
    // Its environment: this one without the grader's own settings (seed, modes, channels).
    std::vector<std::string> env_strings;
    for (char** e = environ; *e != nullptr; ++e)
      if (std::strncmp(*e, "CUDALAB_", 8) != 0) env_strings.emplace_back(*e);
    std::vector<char*> env;
    for (std::string& s : env_strings) env.push_back(s.data());
    env.push_back(nullptr);
    // CUPTI's kernel records, but under compute-sanitizer (the two do not run together).
    const char* sanitize = std::getenv("CUDALAB_SANITIZE");
    const char* no_records = std::getenv("CUDALAB_NO_KERNEL_RECORDS");
    const bool profiled_here = profiled() == endpoint_;
    const bool records = (endpoint_ == Endpoint::candidate || profiled_here) &&
                         !(sanitize != nullptr && std::string(sanitize) == "1") &&
                         !(no_records != nullptr && std::string(no_records) == "1") &&
                         (endpoint_ != Endpoint::candidate || recording);
    records_ = records;
    std::vector<std::string> arg_strings{server, library,
                                         records ? "--kernel-records" : "--no-kernel-records"};
    counted_ = records && ((endpoint_ == Endpoint::candidate && counting) || profiled_here);
    if (counted_) arg_strings.emplace_back("--counters");
    std::vector<char*> argv;
    for (std::string& s : arg_strings) argv.push_back(s.data());
    argv.push_back(nullptr);
    std::fflush(nullptr);
    trace(std::string(endpoint_ == Endpoint::candidate ? "candidate" : "reference") +
          " process: start");
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("cannot start the candidate process (fork)");
    if (pid == 0) {
      // The channel is descriptor 3, the area 4; stdout and stderr go to the judge's reader;
      // nothing else. The area's descriptor is first moved above 4, where the dup2s below cannot
      // close it, and its copy on 4 is then without close-on-exec.
      const int area = fcntl(area_.descriptor(), F_DUPFD_CLOEXEC, wire::kHostAreaDescriptor + 1);
      const int devnull = open("/dev/null", O_RDONLY);
      if (area < 0 || devnull < 0 || dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 ||
          dup2(out[1], 2) < 0 || dup2(sock[1], 3) < 0 || dup2(area, wire::kHostAreaDescriptor) < 0)
        _exit(127);
      prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
      execve(server, argv.data(), env.data());
      _exit(127);
    }
    close(sock[1]);
    close(out[1]);
    // The child has its own descriptor; the judge needs only its mapping.
    area_.close_descriptor();
    pid_ = pid;
    fd_ = sock[0];
    const char* prefix = endpoint_ == Endpoint::candidate ? "candidate| " : "reference| ";
    output_ = std::thread([fd = out[0], prefix] { forward_output(fd, prefix); });
  }

  // Waits for the started process to say it is ready (its context made, confined, the library
  // loaded), or why it cannot serve; throws with the reason.
  void await_ready() {
    // The candidate process says it is ready (its context made, confined, the library loaded),
    // or why it cannot serve.
    std::string body;
    int got = 0;
    try {
      got = wire::receive_message(fd_, &body, std::max(call_timeout_ms(), 60000));
    } catch (const std::exception& e) {
      stop();
      throw std::runtime_error(std::string("the candidate process did not start: a message out "
                                           "of turn on the grader's channel (") +
                               e.what() + "): the code of the file wrote to it");
    }
    if (got != 1) {
      const std::string why = got == 0 ? ended() : "it did not start within the time allowed";
      stop();
      throw std::runtime_error("the candidate process did not start: " + why);
    }
    wire::Reader r(body);
    const auto status = static_cast<wire::Status>(r.u8());
    if (status == wire::Status::ok && body.size() == 1) {
      trace(std::string(endpoint_ == Endpoint::candidate ? "candidate" : "reference") +
            " process: ready");
      ready_ = true;
      return;
    }
    std::string why =
        "a message out of turn on the grader's channel: the code of the file wrote "
        "to it";
    if (status == wire::Status::not_serving) {
      try {
        why = "it cannot serve: " + r.text();
      } catch (const std::exception&) {
      }
    }
    stop();
    throw std::runtime_error("the candidate process did not start: " + why);
  }

  // Sends one request (its kind, a fresh nonce, `payload`) and returns the answer's body after
  // the nonce; on a time-out, the process's end or a message out of turn, stops it and throws
  // with what happened.
  std::string exchange(wire::Request kind, const std::string& payload, const char* what) {
    ensure_started();
    const std::uint64_t nonce = next_nonce();
    wire::Writer w;
    w.u8(static_cast<std::uint8_t>(kind)).u64(nonce).raw(payload.data(), payload.size());
    if (!wire::send_message(fd_, w.body())) {
      const std::string why = ended();
      stop();
      throw std::runtime_error(std::string("the candidate process ended before ") + what + ": " +
                               why);
    }
    std::string body;
    int got = 0;
    try {
      got = wire::receive_message(fd_, &body, call_timeout_ms());
    } catch (const std::exception& e) {
      stop();
      throw std::runtime_error(
          std::string("a message out of turn on the grader's channel during ") + what + " (" +
          e.what() + "): the code of the file wrote to it");
    }
    if (got == 1) {
      wire::Reader r(body);
      if (body.size() < 8 || r.u64() != nonce) {
        stop();
        throw std::runtime_error(
            std::string("a message out of turn on the grader's channel during ") + what +
            ": the code of the file wrote to it (the candidate process was stopped)");
      }
      return body.substr(8);
    }
    std::string why;
    if (got < 0) {
      why = std::string(what) + " did not return within " +
            std::to_string(call_timeout_ms() / 1000) +
            " s (a kernel that never ends, or a host loop); the candidate process was stopped";
      stop();
    } else {
      why = std::string("the candidate process ended during ") + what + ": " + ended();
      stop();
    }
    throw std::runtime_error(why);
  }

  // A call's answer and then a fence's: the answer to the fence comes after the process's whole
  // context is idle and cannot be forged (its nonce did not exist while the file's code ran).
  // Returns the call's answer; `fence_error` gets the fence's device error ("" when none).
  std::string exchange_fenced(wire::Request kind, const std::string& payload, const char* what,
                              std::string* fence_error) {
    std::string answer = exchange(kind, payload, what);
    const std::string fence = exchange(wire::Request::fence, "", what);
    wire::Reader r(fence);
    const bool failed = r.u8() != 0;
    const std::string error = r.text();
    if (fence_error != nullptr) *fence_error = failed ? error : "";
    return answer;
  }

  void stop() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      int status = 0;
      waitpid(pid_, &status, 0);
      pid_ = -1;
    }
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    ready_ = false;
    if (output_.joinable()) output_.join();
    // After the process is gone: nothing maps the area any more.
    area_.reset();
  }

  // The host-argument area of the running process (empty when none runs).
  const wire::HostArea& area() const { return area_; }

 private:
  // How the process ended (it has, or is about to: its socket closed).
  std::string ended() {
    if (pid_ <= 0) return "not running";
    int status = 0;
    pid_t done = 0;
    for (int i = 0; i < 200 && (done = waitpid(pid_, &status, WNOHANG)) == 0; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (done != pid_) return "it closed its channel";
    pid_ = -1;
    if (WIFSIGNALED(status)) return "killed by " + signal_name(WTERMSIG(status));
    if (WIFEXITED(status)) {
      const int code = WEXITSTATUS(status);
      return code == 127 ? "cudalab-serve could not be run"
                         : "it exited with code " + std::to_string(code) +
                               " (a call of exit() or abort() in the file?)";
    }
    return "it ended";
  }

  // Copies the candidate process's output to stdout, each line prefixed, up to kOutputLimit per
  // grader process; then counts what it drops and says so once the process ends.
  static void forward_output(int fd, const char* prefix) {
    static std::size_t kept = 0;  // over the grader process's candidate processes
    std::size_t dropped = 0;
    bool line_start = true;
    char buf[8192];
    for (;;) {
      const ssize_t n = read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::string text;
      for (ssize_t i = 0; i < n; ++i) {
        if (kept >= kOutputLimit) {
          dropped += static_cast<std::size_t>(n - i);
          break;
        }
        if (line_start) text += prefix;
        text += buf[i];
        line_start = buf[i] == '\n';
        ++kept;
      }
      if (!text.empty()) (void)!write(1, text.data(), text.size());
    }
    close(fd);
    if (!line_start) (void)!write(1, "\n", 1);
    if (dropped > 0) {
      const std::string note = "[the candidate's output beyond " +
                               std::to_string(kOutputLimit / 1024) +
                               " KiB was dropped: " + std::to_string(dropped) + " bytes]\n";
      (void)!write(1, note.data(), note.size());
    }
  }

  static std::uint64_t next_nonce() {
    static std::mt19937_64 draw{std::random_device{}()};
    return draw();
  }

  Endpoint endpoint_;
  pid_t pid_ = -1;
  int fd_ = -1;
  wire::HostArea area_;   // its host arguments (wire.h)
  bool ready_ = false;    // it said it is ready to serve
  bool counted_ = false;  // started with the performance counters
  bool records_ = false;  // started with CUPTI's kernel records
  std::thread output_;

 public:
  bool running() const { return pid_ > 0; }
  bool counted() const { return counted_; }
  bool records() const { return records_; }
  // Whether candidate processes started from now on read the counters (count_kernels()).
  static inline bool counting = false;
  // Whether candidate processes started from now on keep CUPTI's kernel records
  // (record_kernels()).
  static inline bool recording = true;
};

ServeProcess& process(Endpoint e) {
  static ServeProcess candidate(Endpoint::candidate), reference(Endpoint::reference);
  return e == Endpoint::candidate ? candidate : reference;
}

std::string& pending_error() {
  static std::string e;
  return e;
}

void keep_error(const std::string& e) {
  if (pending_error().empty()) pending_error() = e;
}

// A driver function through the runtime: a grader links no driver library, so that it starts
// (and skips its GPU checks) on a machine without one.
template <typename Fn>
Fn driver_function(const char* name) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
  const cudaError_t e =
      cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found);
#else
  const cudaError_t e = cudaGetDriverEntryPoint(name, &p, cudaEnableDefault, &found);
#endif
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || p == nullptr)
    throw std::runtime_error(std::string("the driver has no ") + name);
  return reinterpret_cast<Fn>(p);
}

using AddressRange = CUresult (*)(CUdeviceptr*, std::size_t*, CUdeviceptr);
using PointerAttribute = CUresult (*)(void*, CUpointer_attribute, CUdeviceptr);

// The IPC handles made so far, by the driver's id of their allocation (unique in the process, so
// an allocation freed and another made at the same address get different ones): a handle is made
// once per allocation, not once per call.
struct Exported {
  cudaIpcMemHandle_t handle;
  CUdeviceptr base;
  std::size_t size;
};
std::map<unsigned long long, Exported>& exported() {
  static std::map<unsigned long long, Exported> m;
  return m;
}

const Exported& export_allocation(const void* p) {
  static const AddressRange address_range = driver_function<AddressRange>("cuMemGetAddressRange");
  static const PointerAttribute attribute =
      driver_function<PointerAttribute>("cuPointerGetAttribute");
  unsigned long long id = 0;
  if (attribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, reinterpret_cast<CUdeviceptr>(p)) !=
      CUDA_SUCCESS)
    throw std::logic_error("a pointer handed to the candidate is not device memory");
  auto it = exported().find(id);
  if (it != exported().end()) return it->second;
  Exported x{};
  if (address_range(&x.base, &x.size, reinterpret_cast<CUdeviceptr>(p)) != CUDA_SUCCESS)
    throw std::logic_error("a device pointer handed to the candidate is not in an allocation");
  if (const cudaError_t e = cudaIpcGetMemHandle(&x.handle, reinterpret_cast<void*>(x.base));
      e != cudaSuccess)
    throw std::runtime_error(std::string("cudaIpcGetMemHandle: ") + cudaGetErrorString(e));
  if (exported().size() > 4096) exported().clear();  // old ids of freed buffers
  return exported().emplace(id, x).first->second;
}

// The judge's device pointer as its allocation's IPC handle and the offset into it.
void write_device_pointer(wire::Writer& w, const void* p) {
  if (p == nullptr) {
    w.u8(static_cast<std::uint8_t>(wire::Arg::null));
    return;
  }
  const Exported& x = export_allocation(p);
  const cudaIpcMemHandle_t& handle = x.handle;
  const CUdeviceptr base = x.base;
  const std::size_t size = x.size;
  static_assert(sizeof handle == wire::kIpcHandleBytes, "IPC handle size");
  w.u8(static_cast<std::uint8_t>(wire::Arg::device));
  w.raw(&handle, sizeof handle);
  w.u64(reinterpret_cast<CUdeviceptr>(p) - base);
  w.u64(size);
  if (tracing())  // inside the timed interval: no message built unless it is printed
    trace("device argument " + std::to_string(reinterpret_cast<CUdeviceptr>(p)) + ": allocation " +
          std::to_string(base) + " + " + std::to_string(reinterpret_cast<CUdeviceptr>(p) - base) +
          " of " + std::to_string(size) + " bytes");
}

}  // namespace

bool active() {
  return cudalab_candidate_server() != nullptr && cudalab_candidate_library() != nullptr &&
         cudalab_reference_library() != nullptr;
}

namespace {
std::function<void(bool)> candidate_window;  // set_candidate_window
}  // namespace

void set_candidate_window(std::function<void(bool open)> window) {
  candidate_window = std::move(window);
}

std::string call(Endpoint to, const char* name, std::uint32_t id,
                 std::initializer_list<Value> args) {
  // The judge's uploads and fills are done before the candidate reads them.
  if (const cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess)
    throw std::runtime_error(std::string("the grader's device failed before ") + name + ": " +
                             cudaGetErrorString(e));
  // Host arguments travel through the process's area (wire.h, HostArea), consecutive from offset
  // 0, not in the messages. Why a hostile file gains nothing by it:
  // - the area holds this endpoint's arguments only: each process has its own, made afresh when
  //   it starts, and the candidate's process never maps the reference's;
  // - the judge copies the arguments in before the request and out after the fence's answer, at
  //   the offsets it chose itself: nothing in an answer says where to copy from, or how much;
  // - no code of the file runs between calls (cudalab-serve has no thread after its seccomp
  //   filter, which forbids clone, and synchronises its context before answering), so what comes
  //   back is what the function left; a write at another time, could a file arrange one, would
  //   change only the candidate's own arguments, which the lab's checks then see as a changed
  //   const input;
  // - the file never holds the area's descriptor (cudalab-serve maps it and closes it before it
  //   loads the library) and its size is sealed, so it cannot shrink the area under the judge's
  //   mapping (a SIGBUS in the judge); a hole it punches in its own mapping reads back as zeros,
  //   a changed input again.
  struct Placed {
    void* pointer;
    std::size_t bytes;
    std::uint64_t offset;
  };
  std::vector<Placed> placed;
  std::uint64_t end = 0;  // of the host arguments placed so far
  wire::Writer w;
  w.u32(id).u32(static_cast<std::uint32_t>(args.size()));
  for (const Value& v : args) {
    switch (v.kind) {
      case 'i': w.u8(static_cast<std::uint8_t>(wire::Arg::integer)).i64(v.integer); break;
      case 'f': w.u8(static_cast<std::uint8_t>(wire::Arg::real)).f64(v.real); break;
      case 'p': write_device_pointer(w, v.pointer); break;
      case 'h': {
        constexpr std::uint64_t align = wire::kHostAreaAlignment;
        const std::uint64_t offset = (end + align - 1) / align * align;
        if (v.bytes > wire::kHostAreaBytes || offset > wire::kHostAreaBytes - v.bytes)
          throw std::logic_error(std::string("grader problem, not yours: ") + name +
                                 ": its host arguments need more than the " +
                                 std::to_string(wire::kHostAreaBytes >> 20) +
                                 " MiB of the host-argument area (wire::kHostAreaBytes)");
        placed.push_back({const_cast<void*>(v.pointer), v.bytes, offset});
        end = offset + v.bytes;
        w.u8(static_cast<std::uint8_t>(wire::Arg::host)).u64(offset).u64(v.bytes);
        break;
      }
      default: throw std::logic_error("remote::call: an argument of unknown kind");
    }
  }
  ServeProcess& server = process(to);
  std::string reply, fence_error;
  try {
    // Started before the copy: the arguments go into the area of the process that answers.
    server.ensure_started();
    for (const Placed& h : placed)
      if (h.pointer != nullptr && h.bytes > 0)
        std::memcpy(server.area().data() + h.offset, h.pointer, h.bytes);
    if (to == Endpoint::candidate && candidate_window) {
      candidate_window(true);
      try {
        reply = server.exchange_fenced(wire::Request::call, w.body(), name, &fence_error);
      } catch (...) {
        candidate_window(false);
        throw;
      }
      candidate_window(false);
    } else {
      reply = server.exchange_fenced(wire::Request::call, w.body(), name, &fence_error);
    }
  } catch (const std::logic_error&) {
    throw;
  } catch (const std::exception& e) {
    if (to == Endpoint::reference)
      throw std::runtime_error(std::string("grader problem, not yours: the reference: ") +
                               e.what());
    keep_error(e.what());
    return {};
  }
  // What the function left in its host arguments, over the caller's buffers (the process still
  // runs: it is stopped below, if at all).
  for (const Placed& h : placed)
    if (h.pointer != nullptr && h.bytes > 0)
      std::memcpy(h.pointer, server.area().data() + h.offset, h.bytes);
  wire::Status status = wire::Status::ok;
  std::string error, result;
  bool context_lost = false;
  try {
    wire::Reader r(reply);
    status = static_cast<wire::Status>(r.u8());
    error = r.text();
    context_lost = r.u8() != 0;
    result = r.text();
  } catch (const std::exception& e) {
    server.stop();
    keep_error(std::string(name) + ": a malformed answer on the grader's channel (" + e.what() +
               "): the code of the file wrote to it");
    return {};
  }
  // The fence's word on the device counts, whatever the call's answer said.
  if (!fence_error.empty()) {
    context_lost = true;
    if (status == wire::Status::ok) {
      status = wire::Status::cuda_error;
      error = fence_error;
    }
  }
  if (status == wire::Status::bad_request)
    throw std::logic_error(std::string("grader problem, not yours: ") + name + ": " + error);
  if (status == wire::Status::threw_invalid_argument) {
    if (context_lost) server.stop();
    throw std::invalid_argument(error);
  }
  if (status == wire::Status::threw) {
    if (context_lost) server.stop();
    throw std::runtime_error(error);
  }
  if (status != wire::Status::ok && to == Endpoint::reference)
    throw std::runtime_error(std::string("grader problem, not yours: the reference's ") + name +
                             ": " + error);
  if (status != wire::Status::ok) keep_error(std::string(name) + ": " + error);
  // A kernel fault leaves the candidate's context unusable: the next call gets a new process
  // (the judge's own context is untouched).
  if (context_lost) server.stop();
  return result;
}

std::string take_error() {
  std::string e;
  e.swap(pending_error());
  return e;
}

double ping_ms(Endpoint to, int n, const std::function<void()>& before) {
  std::vector<double> ms;
  for (int i = 0; i < n; ++i) {
    if (before) before();
    const auto start = std::chrono::steady_clock::now();
    process(to).exchange_fenced(wire::Request::ping, "", "an empty call", nullptr);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  return ms.empty() ? 0.0 : ms[ms.size() / 2];
}

void count_kernels() {
  ServeProcess::counting = true;
  ServeProcess& candidate = process(Endpoint::candidate);
  if (candidate.running() && !candidate.counted()) candidate.stop();
}

void record_kernels(bool on) {
  ServeProcess::recording = on;
  ServeProcess& candidate = process(Endpoint::candidate);
  if (candidate.running() && candidate.records() != on) candidate.stop();
}

std::optional<Endpoint> profiled() {
  static const std::optional<Endpoint> side = []() -> std::optional<Endpoint> {
    const char* v = std::getenv("CUDALAB_PROFILE");
    if (v == nullptr) return std::nullopt;
    if (std::string(v) == "candidate") return Endpoint::candidate;
    if (std::string(v) == "reference") return Endpoint::reference;
    return std::nullopt;
  }();
  return side;
}

std::vector<Kernel> collect_kernels(std::string* error, std::string* counters_error) {
  return collect_kernels(Endpoint::candidate, error, counters_error);
}

std::vector<Kernel> collect_kernels(Endpoint from, std::string* error,
                                    std::string* counters_error) {
  std::vector<Kernel> kernels;
  std::string reply;
  try {
    reply = process(from).exchange(wire::Request::collect, "", "collecting the kernels that ran");
  } catch (const std::exception& e) {
    *error = e.what();
    return kernels;
  }
  wire::Reader r(reply);
  *error = r.text();
  const std::uint32_t count = r.u32();
  for (std::uint32_t i = 0; i < count; ++i) {
    Kernel k;
    k.name = r.text();
    k.launches = r.i64();
    k.static_shared = r.i64();
    k.dynamic_shared = r.i64();
    k.threads = r.i64();
    kernels.push_back(std::move(k));
  }
  std::string counted_problem = r.text();
  const std::uint32_t ranges = r.u32();
  for (std::uint32_t i = 0; i < ranges; ++i) {
    const std::string range = r.text();
    std::map<std::string, double> values;
    const std::uint32_t n = r.u32();
    for (std::uint32_t j = 0; j < n; ++j) {
      std::string key = r.text();
      values[key] = r.f64();
    }
    // cudalab-serve names each count by the kernel record of its launch.
    auto found = std::find_if(kernels.begin(), kernels.end(),
                              [&](const Kernel& kernel) { return kernel.name == range; });
    if (found == kernels.end()) {
      if (counted_problem.empty())
        counted_problem = "counters of a kernel that was not recorded: " + range;
      continue;
    }
    for (const auto& [key, value] : values) found->counters[key] += value;
  }
  if (counters_error != nullptr) *counters_error = counted_problem;
  return kernels;
}

void prestart(Endpoint e) {
  if (!active()) return;
  try {
    process(e).launch();
  } catch (const std::exception&) {
    // The first call starts it again and reports why it cannot start.
  }
}

void stop() {
  process(Endpoint::candidate).stop();
  process(Endpoint::reference).stop();
}

void stop(Endpoint e) {
  process(e).stop();
}

}  // namespace cudalab::remote
