// main() of every lab grader: Catch2's session plus a listener that turns each test case into a
// graded-check record (see grading.h and record.h). Works with Catch2 v2 and v3.
//
// The records go to the grade command over the channel it hands down (CUDALAB_CHANNEL=K,R: read a
// key from descriptor K, write records to descriptor R), taken by a constructor that runs before
// any code of the student's file: a lab file may not have constructors with a priority (the
// grade command's audit), and the variable is scrubbed from the environment, even from the
// process's original environment block (/proc/self/environ). Each record starts with the key, so
// a record written by anything but this listener does not count. Without the variable (ctest
// runs the grader directly) no record is written and Catch2's exit code tells.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

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

#include "grading_state.h"
#include "record.h"

namespace {

struct Channel {
  std::string key;
  int fd = -1;
};

Channel& channel() {
  static Channel c;
  return c;
}

__attribute__((constructor(101))) void take_channel() {
  char* value = std::getenv("CUDALAB_CHANNEL");
  if (value == nullptr) return;
  int key_fd = -1, record_fd = -1;
  if (std::sscanf(value, "%d,%d", &key_fd, &record_fd) == 2 && key_fd >= 0 && record_fd >= 0) {
    char key[64];
    std::size_t got = 0;
    while (got < 32) {
      const ssize_t n = read(key_fd, key + got, 32 - got);
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    close(key_fd);
    if (got == 32) channel() = Channel{std::string(key, 32), record_fd};
  }
  std::memset(value, 'x', std::strlen(value));  // the original block, which /proc shows
  unsetenv("CUDALAB_CHANNEL");
}

void send_record(const std::string& line) {
  const Channel& c = channel();
  if (c.fd < 0) return;
  const std::string text = c.key + "\t" + line + "\n";
  std::size_t sent = 0;
  while (sent < text.size()) {
    const ssize_t n = write(c.fd, text.data() + sent, text.size() - sent);
    if (n <= 0) return;
    sent += static_cast<std::size_t>(n);
  }
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
  return Catch::Session().run(argc, argv);
}
