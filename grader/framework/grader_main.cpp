// main() of every lab grader: Catch2's session plus a listener that turns each test case into a
// graded-check record (see grading.h and record.h). Works with Catch2 v2 and v3.
#include <cstdlib>
#include <fstream>
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
    if (const char* path = std::getenv("CUDALAB_RESULTS")) {
      std::ofstream out(path, std::ios::app);
      out << cudalab::grade::format_record(r) << "\n";
    }
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
