// Graded checks: a Catch2 test case with points.
//
//   GRADED_CHECK("worked example", "[lab01][correctness]", 10, Needs::gpu) {
//     ... REQUIRE / FAIL as usual ...
//   }
//
// The first thing a graded check does is begin_check(): without a CUDA device a GPU check prints
// "SKIPPED: no CUDA device" (CTest's SKIP_REGULAR_EXPRESSION turns that into "Skipped") and its
// body does not run, so it can never count as passed. A listener (grader_main.cpp) writes one
// record per check to the file named by CUDALAB_RESULTS, which the grade command reads.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cudalab/catch.h"

namespace cudalab::grade {

enum class Needs { host, gpu };

// Seed of every generated input unless CUDALAB_SEED is set (an instructor's secret seed).
inline constexpr std::uint64_t kDefaultSeed = 20180914;  // the convolution lecture's date
std::uint64_t base_seed();

// True under compute-sanitizer: the grade command and the sanitize tests set CUDALAB_SANITIZE=1.
// A correctness check may then use the smallest of its inputs that still run every code path
// (a sanitizer proves the absence of hazards on the paths it executes, not at large sizes, and
// racecheck slows a kernel that uses shared memory by 100x and more): lab 08's searches of
// hundreds of levels, lab 06's largest tiles.
bool under_sanitizer();

// Whether this grader run takes the GPU's own counts in its own process, for the technique checks
// and the performance checks' counted rounds (device_counts.h; CUDALAB_DEVICE_COUNTS=1, which the
// grade command sets where the candidate's calls have the GPU to themselves).
bool device_counts_wanted();

// False when the body must not run (skipped for lack of a device, or the grade command only
// listing the checks with CUDALAB_LIST_CHECKS=1).
bool begin_check(int points, Needs needs, const char* tags = "");

// Ends the check as SKIPPED (not passed) for a reason other than a missing device, e.g. input
// data that is not installed: prints "SKIPPED: <reason>" (CTest shows the test as Skipped) and
// the grade command reports the check as skipped, with no points. Return right after calling it.
void skip_check(const std::string& reason);

// Partial credit in [0, 1] (performance); the default for a passing check is 1.
void set_credit(double fraction);

// Named figures attached to the check's record (ratio, GB/s, ...), and free-form notes.
void measure(const std::string& key, double value);
void note(const std::string& text);

// The message of a check over many cases, problems[i] being case i's problem ("" when it
// passed): the first `max_reported` problems, one per line, then "(N more of M <noun> failed)"
// when there are more; "" when every case passed.
std::string failure_summary(const std::vector<std::string>& problems, const std::string& noun,
                            std::size_t max_reported = 3);

// FAILs the current check when there are `problems` (those of the cases that failed, of `total`):
// "<n> of <total> case(s) failed", then the first three problems, one per line.
// (Inline, like FAIL's other users here: the runners link this library without Catch2.)
inline void require_no_failed_cases(const std::vector<std::string>& problems, std::size_t total) {
  if (problems.empty()) return;
  std::string message =
      std::to_string(problems.size()) + " of " + std::to_string(total) + " case(s) failed";
  for (std::size_t i = 0; i < problems.size() && i < 3; ++i) message += "\n" + problems[i];
  FAIL(message);
}

// Runs `run` (a case -> its problem, "" when it passed) on every case, then
// require_no_failed_cases.
template <typename Case, typename Run>
void require_cases_pass(const std::vector<Case>& cases, Run run) {
  std::vector<std::string> problems;
  for (const Case& c : cases)
    if (std::string p = run(c); !p.empty()) problems.push_back(p);
  require_no_failed_cases(problems, cases.size());
}

// Runs `check` (a case -> its problem, "" when it passed) on every case, then FAILs the current
// check with failure_summary when any failed.
template <typename Case, typename Check>
void require_all_cases(const std::vector<Case>& cases, Check check,
                       const std::string& noun = "cases") {
  std::vector<std::string> problems;
  problems.reserve(cases.size());
  for (const Case& c : cases) problems.push_back(check(c));
  if (const std::string message = failure_summary(problems, noun); !message.empty()) FAIL(message);
}

}  // namespace cudalab::grade

#define CUDALAB_CONCAT_(a, b) a##b
#define CUDALAB_CONCAT(a, b) CUDALAB_CONCAT_(a, b)

// __LINE__ is the same everywhere in one macro expansion, so the three uses name one function.
#define GRADED_CHECK(name, tags, points, needs)                               \
  static void CUDALAB_CONCAT(graded_check_body_, __LINE__)();                 \
  TEST_CASE(name, tags) {                                                     \
    if (::cudalab::grade::begin_check(points, ::cudalab::grade::needs, tags)) \
      CUDALAB_CONCAT(graded_check_body_, __LINE__)();                         \
  }                                                                           \
  static void CUDALAB_CONCAT(graded_check_body_, __LINE__)()
