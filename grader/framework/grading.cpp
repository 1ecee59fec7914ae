#include "grading.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "cudalab/device_info.h"
#include "cudalab/random.h"
#include "grading_state.h"
#include "remote.h"

namespace cudalab::grade {

CheckState& current_check() {
  static CheckState state;
  return state;
}

bool listing_only() {
  const char* v = std::getenv("CUDALAB_LIST_CHECKS");
  return v != nullptr && std::string(v) == "1";
}

bool under_sanitizer() {
  const char* v = std::getenv("CUDALAB_SANITIZE");
  return v != nullptr && std::string(v) == "1";
}

bool device_counts_wanted() {
  static const bool wanted = [] {
    const char* v = std::getenv("CUDALAB_DEVICE_COUNTS");
    return v != nullptr && std::string(v) == "1";
  }();
  return wanted;
}

std::uint64_t base_seed() {
  return seed_from_env(kDefaultSeed);
}

bool begin_check(int points, Needs needs, const char* tags) {
  CheckState& s = current_check();
  s.points = points;
  if (listing_only()) {
    s.listed = true;
    return false;
  }
  if (needs == Needs::gpu) {
    static std::string reason;
    static const bool device = has_cuda_device(&reason);
    if (!device) {
      s.skipped = true;
      s.skip_reason = reason;
      std::cout << "SKIPPED: " << reason << std::endl;
      return false;
    }
    // The processes the check calls start now, their contexts made while the judge makes its
    // inputs: a performance check times the candidate against the reference, the self-check the
    // reference against itself, and every other GPU check calls the candidate (a process the
    // check does not start here starts at its first call).
    const std::string t = tags;
    const bool perf = t.find("[perf]") != std::string::npos;
    const bool selfcheck = t.find("[selfcheck]") != std::string::npos;
    // A timed check's candidate process is its own: one that a check before it in this grader
    // process used (the grade command runs a lab's timed checks in one) is stopped, so that
    // nothing the file computed or kept in one timed check is there in the next. A profile run
    // keeps its process, counted from its start.
    if ((perf || selfcheck) && remote::active() && !remote::profiled()) {
      remote::stop(remote::Endpoint::candidate);
      // Where the GPU's own count reads some of the timed rounds (perf.h, TimedRunChecks::
      // executed), nothing of CUPTI's runs in the candidate's process beside its calls.
      if (perf && device_counts_wanted()) remote::record_kernels(false);
    }
    if (!selfcheck) remote::prestart(remote::Endpoint::candidate);
    if (perf || selfcheck) remote::prestart(remote::Endpoint::reference);
  }
  return true;
}

void skip_check(const std::string& reason) {
  CheckState& s = current_check();
  s.skipped = true;
  s.skip_reason = reason;
  std::cout << "SKIPPED: " << reason << std::endl;
}

void set_credit(double fraction) {
  current_check().credit = std::clamp(fraction, 0.0, 1.0);
}

void measure(const std::string& key, double value) {
  current_check().measurements[key] = value;
}

void note(const std::string& text) {
  auto& notes = current_check().notes;
  if (!notes.empty()) notes += "\n";
  notes += text;
}

std::string failure_summary(const std::vector<std::string>& problems, const std::string& noun,
                            std::size_t max_reported) {
  std::string message;
  std::size_t failed = 0;
  for (const std::string& problem : problems) {
    if (problem.empty()) continue;
    if (++failed <= max_reported) message += (message.empty() ? "" : "\n") + problem;
  }
  if (failed > max_reported)
    message += "\n(" + std::to_string(failed - max_reported) + " more of " +
               std::to_string(problems.size()) + " " + noun + " failed)";
  return message;
}

}  // namespace cudalab::grade
