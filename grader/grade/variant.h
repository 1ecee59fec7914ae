// A variant of a lab's answer (a submission the grader must judge right) and the verdict the grade
// command must reach on it. A variant is a unified diff against the lab's plain correct answer
// (grader/labs/NN-name/variants/answer.cu) or its skeleton, led by a header (docs/adding-a-lab.md):
//
//   Cause: the tile loop stops at the output tile, so the halo is never loaded.
//   Symptom: outputs next to a tile's edge are 0
//   Fix: size the input tile with its halo: O_TILE_WIDTH + 2 * r rows.
//   Run: every course filter*
//   Timeout: 20
//   Expect: fail "every course filter*" /expected [0-9]+, got 0/
//   Points: <= 88
//   --- answer.cu
//   +++ halo-not-loaded.cu
//   @@ ...
//
// The header ends at the first line that starts with "--- "; lines starting with '#' are comments;
// a line starting with spaces continues the value above it.
#pragma once

#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "record.h"

namespace cudalab::grade {

// A malformed header: the message names the line ("line 4: ...").
class VariantError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Expectation {
  enum class Status { pass, fail, partial, lose };  // lose: fail or partial
  Status status = Status::fail;
  std::string check;    // a check's name, '*' matching any text, or a tag such as "[technique]"
  std::string pattern;  // ECMAScript regular expression the message must contain; "" for any
  std::regex regex;     // `pattern`, compiled once when the header is read
  int line = 0;         // in the header
};

// A bound on the lab's points in the full grade (every check of the lab, whatever Run selects).
struct PointsBound {
  std::string op;  // "<=", "<", ">=", ">" or "="
  double value = 0.0;
  int line = 0;
};

struct Variant {
  std::string name;             // from the file name: "halo-not-loaded"
  std::string base = "answer";  // "answer" or "skeleton"
  std::string run;              // Catch2 test spec of the checks to run; "" for all
  bool link_rejected = false;   // "Link: rejected": the student link check must fail
  int timeout_s = 0;            // "Timeout: 20": seconds per check (0: the grade's default)
  bool gpu_only = false;        // "Judged: gpu": only a GPU reaches its verdict (what a kernel
                          // executed, a timing), so builds for a machine without one leave it out
  std::string symptom, cause, fix;  // for the lab page's "Common mistakes" table
  std::vector<Expectation> expectations;
  std::vector<PointsBound> points;
  std::string diff;  // from the first "--- " line on
};

// Parses a variant file; throws VariantError naming the line of the first problem.
Variant parse_variant(const std::string& text, const std::string& name);

// The verdict the lab's plain correct answer must get: every check passed (full credit).
Variant plain_answer_variant();

// The sanitizer tools a variant's expectations name ("compute-sanitizer memcheck" -> memcheck).
std::vector<std::string> sanitizers_named(const Variant& v);

// Does `name` (with tags `tags`) match a check pattern of an Expect line?
bool check_matches(const std::string& pattern, const std::string& name, const std::string& tags);

// The result of holding a grade (the lab's check records) against a variant's expectations.
struct Judgement {
  std::vector<std::string> violated;      // each names the check, expected, seen, the message
  std::vector<std::string> unverifiable;  // depend on checks that were skipped (no GPU, ...)
  std::vector<std::string> verified;
  // Of `verified`, the parts that show what the variant is about: an expected failure (fail,
  // partial, lose) seen, or a points bound that holds where some grade of the lab would break it.
  // A pass of some check alone does not (a CPU-only check passes whatever the kernels do).
  int decisive = 0;
  bool passed() const { return violated.empty() && unverifiable.empty(); }
};

// The message of a check that was not run because Run (--checks) did not select it.
inline constexpr const char* kNotSelected = "not run: not selected by --checks";

Judgement judge(const Variant& v, const std::vector<CheckRecord>& checks);

// The "Common mistakes" section of a lab page, from its variants (those with a Symptom).
std::string mistakes_markdown(const std::vector<Variant>& variants);

}  // namespace cudalab::grade
