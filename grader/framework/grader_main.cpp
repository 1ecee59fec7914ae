// main() of every lab grader: Catch2's session plus a listener that turns each test case into a
// graded-check record (see grading.h and record.h). Works with Catch2 v2 and v3.
//
// The records go to the grade command over the channel it hands down (CUDALAB_CHANNEL=K,R: read a
// key from descriptor K, write records to descriptor R), taken by a constructor that runs before
// any code of the student's file: a lab file may not have constructors with a priority (the
// grade command's audit), and the variable is scrubbed from the environment, even from the
// process's original environment block (/proc/self/environ). The same pipe brings the grader's
// settings after the key (take_settings). Each record starts with the key, so
// a record written by anything but this listener does not count. Without the variable (ctest
// runs the grader directly) no record is written and Catch2's exit code tells.
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(CUDALAB_CATCH2_MAJOR) && CUDALAB_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#include <catch2/catch_test_case_info.hpp>
#include <catch2/reporters/catch_reporter_event_listener.hpp>
#include <catch2/reporters/catch_reporter_registrars.hpp>
using ListenerBase = Catch::EventListenerBase;
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
using ListenerBase = Catch::TestEventListenerBase;
#endif

#include "cudalab/cli.h"
#include "cudalab/timing.h"
#include "grading_state.h"
#include "record.h"

namespace {

// The key lives in a page of its own that is readable only while a record is being written
// (PROT_NONE otherwise), never copied to the stack or the heap: code of the student's file that
// searches the process's memory for it finds an unreadable page, and the audit of the student's
// object (grader/grade/audit.h) bans the calls that would change that (mprotect, mmap, file access
// such as /proc/self/mem, raw system calls, threads that could wait for the window).
constexpr std::size_t kKeyBytes = 32;

struct Channel {
  unsigned char* key = nullptr;
  std::size_t page = 0;
  int fd = -1;
};

Channel& channel() {
  static Channel c;
  return c;
}

// After the key, the grader's settings (the seed, the modes): NAME=VALUE lines to the end of the
// pipe, each CUDALAB_* name set in this process's environment (not in its original block, which
// /proc shows). The grade command keeps them out of every process's environment in the sandbox
// (run_with_channel): the sandbox's first process and compute-sanitizer's would show them.
void take_settings(int fd) {
  static char text[65536];
  std::size_t size = 0;
  while (size < sizeof text - 1) {
    const ssize_t n = read(fd, text + size, sizeof text - 1 - size);
    if (n <= 0) break;
    size += static_cast<std::size_t>(n);
  }
  text[size] = '\0';
  for (char* line = text; *line != '\0';) {
    char* end = std::strchr(line, '\n');
    if (end != nullptr) *end = '\0';
    char* equals = std::strchr(line, '=');
    if (equals != nullptr && std::strncmp(line, "CUDALAB_", 8) == 0) {
      *equals = '\0';
      if (std::strcmp(line, "CUDALAB_CHANNEL") != 0) setenv(line, equals + 1, 1);
    }
    if (end == nullptr) break;
    line = end + 1;
  }
  std::memset(text, 0, size);
}

__attribute__((constructor(101))) void take_channel() {
  char* value = std::getenv("CUDALAB_CHANNEL");
  if (value == nullptr) return;
  int key_fd = -1, record_fd = -1;
  if (std::sscanf(value, "%d,%d", &key_fd, &record_fd) == 2 && key_fd >= 0 && record_fd >= 0) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    void* mapped = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mapped != MAP_FAILED) {
      auto* key = static_cast<unsigned char*>(mapped);
      madvise(key, page, MADV_WIPEONFORK);  // a forked child gets zeros (best effort)
      std::size_t got = 0;
      while (got < kKeyBytes) {
        const ssize_t n = read(key_fd, key + got, kKeyBytes - got);
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
      }
      if (got == kKeyBytes && mprotect(key, page, PROT_NONE) == 0)
        channel() = Channel{key, page, record_fd};
      else
        munmap(key, page);
    }
    take_settings(key_fd);
    close(key_fd);
  }
  std::memset(value, 'x', std::strlen(value));  // the original block, which /proc shows
  unsetenv("CUDALAB_CHANNEL");
}

// Key, tab, record, newline: the key written straight from its page, which is readable only for
// the length of this call.
void send_record(const std::string& line) {
  const Channel& c = channel();
  if (c.fd < 0) return;
  const std::string rest = "\t" + line + "\n";
  if (mprotect(c.key, c.page, PROT_READ) != 0) return;
  iovec parts[2] = {{c.key, kKeyBytes}, {const_cast<char*>(rest.data()), rest.size()}};
  int first = 0;
  while (first < 2) {
    const ssize_t n = writev(c.fd, parts + first, 2 - first);
    if (n <= 0) break;
    std::size_t left = static_cast<std::size_t>(n);
    while (first < 2 && left >= parts[first].iov_len) left -= parts[first++].iov_len;
    if (first < 2) {
      parts[first].iov_base = static_cast<char*>(parts[first].iov_base) + left;
      parts[first].iov_len -= left;
    }
  }
  mprotect(c.key, c.page, PROT_NONE);
}

using cudalab::grade::CheckRecord;
using cudalab::grade::CheckState;
using cudalab::grade::current_check;

#if defined(CUDALAB_CATCH2_MAJOR) && CUDALAB_CATCH2_MAJOR >= 3
const Catch::TestCaseInfo& info_of(const Catch::TestCaseStats& s) {
  return *s.testInfo;
}
std::string tags_of(const Catch::TestCaseInfo& info) {
  std::string tags;
  for (const auto& t : info.tags) tags += "[" + std::string(t.original) + "]";
  return tags;
}
#else
const Catch::TestCaseInfo& info_of(const Catch::TestCaseStats& s) {
  return s.testInfo;
}
std::string tags_of(const Catch::TestCaseInfo& info) {
  std::string tags;
  for (const auto& t : info.tags) tags += "[" + t + "]";
  return tags;
}
#endif

class GradeListener : public ListenerBase {
 public:
  using ListenerBase::ListenerBase;

  void testCaseStarting(const Catch::TestCaseInfo& info) override {
    current_check() = CheckState{};
    cudalab::trace("check start: " + std::string(info.name));
    ListenerBase::testCaseStarting(info);
  }

#if defined(CUDALAB_CATCH2_MAJOR) && CUDALAB_CATCH2_MAJOR >= 3
  void assertionEnded(const Catch::AssertionStats& stats) override {
    remember(stats);
  }
#else
  bool assertionEnded(const Catch::AssertionStats& stats) override {
    remember(stats);
    return true;
  }
#endif

  void testCaseEnded(const Catch::TestCaseStats& stats) override {
    const CheckState& s = current_check();
    cudalab::trace("check end");
    CheckRecord r;
    const auto& info = info_of(stats);
    r.name = std::string(info.name);
    r.tags = tags_of(info);
    r.points = s.points;
    r.measurements = s.measurements;
    if (s.listed) {
      r.status = "listed";
    } else if (s.skipped) {
      r.status = "skipped";
      r.message = s.skip_reason;
    } else if (stats.totals.assertions.failed > 0) {
      r.status = "failed";
      r.message = s.failures;
    } else {
      r.earned = s.points * s.credit;
      r.status = s.credit >= 1.0 ? "passed" : (s.credit > 0.0 ? "partial" : "failed");
    }
    if (!s.notes.empty()) r.message += (r.message.empty() ? "" : "\n") + s.notes;
    send_record(cudalab::grade::format_record(r));
    ListenerBase::testCaseEnded(stats);
  }

 private:
  static void remember(const Catch::AssertionStats& stats) {
    const auto& result = stats.assertionResult;
    if (result.isOk()) return;
    std::string text = std::string(result.getMessage());
    if (result.hasExpression()) {
      if (!text.empty()) text += ": ";
      text += result.getExpandedExpression();
    }
    auto& failures = current_check().failures;
    if (!failures.empty()) failures += "\n";
    failures += text;
  }
};

}  // namespace

CATCH_REGISTER_LISTENER(GradeListener)

int main(int argc, char* argv[]) {
  cudalab::trace("main");
  cudalab::use_ctest_gpu();  // ctest on several GPUs: the one it gave this test
  // From the grade command, the arguments (which checks) come in the channel (CUDALAB_ARGS,
  // separated by \x1f), so that no command line in the sandbox names the check.
  std::vector<std::string> channel_args;
  std::vector<char*> args(argv, argv + argc);
  if (const char* given = std::getenv("CUDALAB_ARGS")) {
    std::string rest = given;
    for (std::size_t at = 0;;) {
      const std::size_t end = rest.find('\x1f', at);
      channel_args.push_back(rest.substr(at, end == std::string::npos ? end : end - at));
      if (end == std::string::npos) break;
      at = end + 1;
    }
    unsetenv("CUDALAB_ARGS");
    args.resize(1);
    for (std::string& a : channel_args) args.push_back(a.data());
  }
  Catch::Session session;
  if (const int rc = session.applyCommandLine(static_cast<int>(args.size()), args.data()); rc != 0)
    return rc;
  // Parsed: the command line (the check's name) is no longer in /proc/PID/cmdline, which any
  // process can read, the candidate's too.
  for (int i = 1; i < argc; ++i) std::memset(argv[i], 0, std::strlen(argv[i]));
  return session.run();
}
