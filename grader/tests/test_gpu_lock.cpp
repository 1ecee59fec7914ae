// The lock that lets several grades share a GPU (grader/grade/gpu_lock.h), without a GPU: each
// holder is a child process that writes a byte into a pipe once it holds its lock and keeps it
// until it is killed; the parent watches which holders get in, and when.
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "cudalab/catch.h"
#include "gpu_lock.h"

namespace {

using cudalab::grade::GpuLock;

enum class Kind { shared, counted, exclusive };

struct Holder {
  pid_t pid = -1;
  int fd = -1;
};

Holder start(const GpuLock& lock, Kind kind) {
  int p[2];
  REQUIRE(pipe(p) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(p[0]);
    try {
      const GpuLock::Hold hold =
          kind == Kind::exclusive ? lock.exclusive() : lock.shared(kind == Kind::counted);
      const char held = 'h';
      if (write(p[1], &held, 1) != 1) _exit(2);
      pause();
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  close(p[1]);
  return {pid, p[0]};
}

// Whether the holder got its lock within `ms` milliseconds (from the start, or from the last
// look: the byte stays until it is read).
bool holds(const Holder& h, int ms) {
  pollfd pfd{h.fd, POLLIN, 0};
  return poll(&pfd, 1, ms) > 0 && (pfd.revents & POLLIN) != 0;
}

void stop(Holder& h) {
  kill(h.pid, SIGKILL);
  waitpid(h.pid, nullptr, 0);
  close(h.fd);
  h = {};
}

std::string lock_path() {
  char dir[] = "/tmp/cudalab-gpu-lock-XXXXXX";
  REQUIRE(mkdtemp(dir) != nullptr);
  return std::string(dir) + "/gpu-0.lock";
}

}  // namespace

TEST_CASE("GPU lock: untimed holders share it, a timed one waits for them all",
          "[grader][gpu-lock]") {
  const GpuLock lock(lock_path());
  Holder a = start(lock, Kind::shared);
  REQUIRE(holds(a, 2000));
  Holder b = start(lock, Kind::shared);
  CHECK(holds(b, 2000));
  Holder timed = start(lock, Kind::exclusive);
  CHECK_FALSE(holds(timed, 300));
  stop(a);
  CHECK_FALSE(holds(timed, 300));
  stop(b);
  CHECK(holds(timed, 2000));
  stop(timed);
}

TEST_CASE("GPU lock: a waiting timed holder goes before untimed ones that ask after it",
          "[grader][gpu-lock]") {
  const GpuLock lock(lock_path());
  Holder a = start(lock, Kind::shared);
  REQUIRE(holds(a, 2000));
  Holder timed = start(lock, Kind::exclusive);
  CHECK_FALSE(holds(timed, 300));
  Holder late = start(lock, Kind::shared);  // behind the turnstile the timed holder keeps
  CHECK_FALSE(holds(late, 300));
  stop(a);
  CHECK(holds(timed, 2000));
  CHECK_FALSE(holds(late, 300));  // nothing beside a timed holder
  stop(timed);
  CHECK(holds(late, 2000));
  stop(late);
}

TEST_CASE("GPU lock: counted holders one at a time, beside untimed ones", "[grader][gpu-lock]") {
  const GpuLock lock(lock_path());
  Holder counted = start(lock, Kind::counted);
  REQUIRE(holds(counted, 2000));
  Holder plain = start(lock, Kind::shared);
  CHECK(holds(plain, 2000));
  Holder second = start(lock, Kind::counted);
  CHECK_FALSE(holds(second, 300));
  stop(counted);
  CHECK(holds(second, 2000));
  stop(second);
  stop(plain);
}

TEST_CASE("GPU lock: within one grade, a confirming run waits for the others and goes first",
          "[grader][gpu-lock]") {
  // The threads of one process, without a file: shared holds together, an exclusive one alone,
  // and one that waits goes before shared ones that ask after it.
  const GpuLock none;
  CHECK_FALSE(none.enabled());
  std::atomic<int> step{0};
  auto first = std::make_unique<GpuLock::Hold>(none.shared());
  auto second = std::make_unique<GpuLock::Hold>(none.shared());  // beside the first
  std::thread alone([&] {
    const GpuLock::Hold hold = none.exclusive();
    step = 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    step = 2;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  CHECK(step == 0);  // the shared holds are still there
  std::atomic<bool> late_in{false};
  int seen_by_late = -1;
  std::thread late([&] {
    const GpuLock::Hold hold = none.shared();
    seen_by_late = step;
    late_in = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  CHECK_FALSE(late_in);  // behind the exclusive one that waits
  first.reset();
  second.reset();
  alone.join();
  late.join();
  CHECK(seen_by_late == 2);  // the late shared hold came after the exclusive one ended
}

TEST_CASE("GPU lock: a path where its files cannot be made is named", "[grader][gpu-lock]") {
  const GpuLock lock("/nonexistent-cudalab-folder/gpu-0.lock");
  CHECK_THROWS_WITH(lock.check_usable(), Catch::Contains("/nonexistent-cudalab-folder/gpu-0.lock"));
}
