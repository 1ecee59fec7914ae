// Variants: the header parser (with malformed headers), the matching of checks, and the judgement
// of a grade against the expected verdict, with the checks a machine without a GPU skips.
#include <string>
#include <vector>

#include "cudalab/catch.h"
#include "variant.h"

using namespace cudalab::grade;  // the whole of variant.h is under test

namespace {

const std::string kDiff =
    "--- answer.cu\n"
    "+++ no-bounds-check.cu\n"
    "@@ -3,3 +3,3 @@\n"
    "   const int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "-  if (i < n) y[i] = x[i];\n"
    "+  y[i] = x[i];\n"
    " }\n";

const std::string kHeader =
    "# a comment\n"
    "Cause: the store has no bounds test,\n"
    "  so the last block writes past the end.\n"
    "Symptom: \"edge cases\" fails: past the end of y\n"
    "Fix: guard the store with if (i < n).\n"
    "Run: edge cases\n"
    "Expect: fail \"edge cases\" /past the end of y/\n"
    "Expect: fail \"compute-sanitizer memcheck\" /Invalid __global__ write/\n"
    "Points: <= 75\n";

CheckRecord rec(const std::string& name, const std::string& tags, int points, double earned,
                const std::string& status, const std::string& message = "") {
  CheckRecord r;
  r.name = name;
  r.tags = tags;
  r.points = points;
  r.earned = earned;
  r.status = status;
  r.message = message;
  return r;
}

std::string parse_error(const std::string& text) {
  try {
    parse_variant(text, "v");
  } catch (const VariantError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a variant's header is parsed", "[variant]") {
  const Variant v = parse_variant(kHeader + kDiff, "no-bounds-check");
  CHECK(v.name == "no-bounds-check");
  CHECK(v.base == "answer");
  CHECK_FALSE(v.link_rejected);
  CHECK(v.cause == "the store has no bounds test, so the last block writes past the end.");
  CHECK(v.symptom == "\"edge cases\" fails: past the end of y");
  CHECK(v.run == "edge cases");
  REQUIRE(v.expectations.size() == 2);
  CHECK(v.expectations[0].status == Expectation::Status::fail);
  CHECK(v.expectations[0].check == "edge cases");
  CHECK(v.expectations[0].pattern == "past the end of y");
  CHECK(v.expectations[0].line == 7);
  REQUIRE(v.points.size() == 1);
  CHECK(v.points[0].op == "<=");
  CHECK(v.points[0].value == 75.0);
  CHECK(v.diff == kDiff);
  CHECK(sanitizers_named(v) == std::vector<std::string>{"memcheck"});
}

TEST_CASE("Base, Link and the statuses are read", "[variant]") {
  const Variant v = parse_variant(
      "Cause: calls the reference\nSymptom: not graded\nFix: write the kernel\nBase: skeleton\n"
      "Link: rejected\nTimeout: 20\nJudged: gpu\nExpect: lose \"*\"\nExpect: partial \"[perf]\"\n"
      "Expect: pass "
      "\"x\" /y/\n"
      "Points: = 0\n" +
          kDiff,
      "calls-reference");
  CHECK(v.base == "skeleton");
  CHECK(v.link_rejected);
  CHECK(v.timeout_s == 20);
  CHECK(v.gpu_only);
  CHECK_FALSE(plain_answer_variant().gpu_only);
  CHECK(v.expectations[0].status == Expectation::Status::lose);
  CHECK(v.expectations[0].pattern.empty());
  CHECK(v.expectations[1].status == Expectation::Status::partial);
  CHECK(v.expectations[2].status == Expectation::Status::pass);
  CHECK(v.points[0].op == "=");
}

TEST_CASE("a variant that only passes needs no Symptom or Fix", "[variant]") {
  const Variant v =
      parse_variant("Cause: another correct answer\nExpect: pass \"*\"\n" + kDiff, "alt");
  CHECK(v.symptom.empty());
}

TEST_CASE("malformed headers name the line and the problem", "[variant]") {
  const std::string c = "Cause: c\nSymptom: s\nFix: f\n";
  CHECK(parse_error(c + "Expect: fail \"x\"\n") ==
        "line 5: no diff: the variant's change starts at a line '--- <file>'");
  CHECK(parse_error(c + "Expect: broken \"x\"\n" + kDiff) ==
        "line 4: Expect: unknown status 'broken' (pass, fail, partial or lose)");
  CHECK(parse_error(c + "Expect: fail x\n" + kDiff) ==
        "line 4: Expect: the check's name must follow the status, in double quotes");
  CHECK(parse_error(c + "Expect: fail \"x\n" + kDiff) ==
        "line 4: Expect: the check's name has no closing quote");
  CHECK(parse_error(c + "Expect: fail \"\"\n" + kDiff) == "line 4: Expect: empty check name");
  CHECK(parse_error(c + "Expect: fail \"x\" past\n" + kDiff) ==
        "line 4: Expect: after the check's name, only a /regular expression/");
  CHECK(parse_error(c + "Expect: fail \"x\" /(/\n" + kDiff)
            .rfind("line 4: Expect: bad regular expression /(/", 0) == 0);
  CHECK(parse_error(c + "Points: 90\n" + kDiff) ==
        "line 4: Points: needs <=, <, >=, > or = and a number, e.g. 'Points: <= 90'");
  CHECK(parse_error(c + "Points: <= ninety\n" + kDiff) ==
        "line 4: Points: 'ninety' is not a number of points");
  CHECK(parse_error(c + "Points: <= -1\n" + kDiff) ==
        "line 4: Points: '-1' is not a number of points");
  CHECK(parse_error(c + "Base: solution\nPoints: = 0\n" + kDiff) ==
        "line 4: Base: 'solution' (answer or skeleton)");
  CHECK(parse_error(c + "Link: maybe\nPoints: = 0\n" + kDiff) ==
        "line 4: Link: 'maybe' (ok or rejected)");
  CHECK(parse_error(c + "Run: a\nRun: b\nPoints: = 0\n" + kDiff) == "line 5: Run: given twice");
  CHECK(parse_error(c + "Timeout: 0\nPoints: = 0\n" + kDiff) ==
        "line 4: Timeout: '0' (seconds per check, 1 to 3600)");
  CHECK(parse_error(c + "Timeout: 20s\nPoints: = 0\n" + kDiff) ==
        "line 4: Timeout: '20s' (seconds per check, 1 to 3600)");
  CHECK(parse_error(c + "Cause: again\n" + kDiff) == "line 4: Cause: given twice");
  CHECK(parse_error(c + "Expected: fail \"x\"\n" + kDiff) ==
        "line 4: unknown key 'Expected' (Cause, Symptom, Fix, Base, Run, Link, Timeout, Judged, "
        "Expect, Points)");
  CHECK(parse_error(c + "Judged: cpu\nPoints: = 0\n" + kDiff) ==
        "line 4: Judged: 'cpu' (gpu or anywhere)");
  CHECK(parse_error(c + "Judged: gpu\nJudged: gpu\nPoints: = 0\n" + kDiff) ==
        "line 5: Judged: given twice");
  CHECK(parse_error(c + "just words\n" + kDiff).rfind("line 4: expected 'Key: value'", 0) == 0);
  CHECK(parse_error(c + "Run:\n" + kDiff) == "line 4: Run: no value");
  CHECK(parse_error("  continued\n" + c + kDiff).rfind("line 1: a continuation line", 0) == 0);
  CHECK(parse_error(c + kDiff) == "line 4: no Expect or Points: say what the grade must conclude");
  CHECK(parse_error("Symptom: s\nFix: f\nPoints: = 0\n" + kDiff) ==
        "line 4: no Cause: say what this variant does wrong (or differently)");
  CHECK(parse_error("Cause: c\nExpect: fail \"x\"\n" + kDiff) ==
        "line 3: a variant that must lose points needs a Symptom and a Fix (the lab page's table)");
  CHECK(parse_error(c + "Points: = 0\n--- a\n+++ b\n") ==
        "line 5: the diff must change one file ('--- ', '+++ ' and at least one '@@' hunk)");
  CHECK(parse_error(c + "Points: = 0\n" + kDiff + "--- c\n+++ d\n@@ -1 +1 @@\n") ==
        "line 5: the diff must change one file ('--- ', '+++ ' and at least one '@@' hunk)");
  CHECK(parse_error("") == "line 1: no diff: the variant's change starts at a line '--- <file>'");
}

TEST_CASE("checks are matched by name with '*', or by tag", "[variant]") {
  CHECK(check_matches("edge cases", "edge cases", "[lab01][correctness]"));
  CHECK_FALSE(check_matches("edge cases", "edge cases!", ""));
  CHECK(check_matches("every course filter*", "every course filter, grayscale and RGB", ""));
  CHECK(check_matches("*", "anything", ""));
  CHECK(check_matches("*: generated graphs", "frontier: generated graphs", ""));
  CHECK_FALSE(check_matches("*: generated graphs", "frontier: real graphs", ""));
  CHECK(check_matches("[perf]", "performance vs reference", "[lab01][perf]"));
  CHECK_FALSE(check_matches("[perf]", "edge cases", "[lab01][correctness]"));
}

TEST_CASE("a grade with the expected verdict passes", "[variant]") {
  const Variant v = parse_variant(kHeader + kDiff, "no-bounds-check");
  const std::vector<CheckRecord> grade = {
      rec("course worked example", "[correctness]", 10, 0, "skipped", cudalab::grade::kNotSelected),
      rec("edge cases", "[correctness]", 15, 0, "failed",
          "case 'n = 1'\npast the end of y: 3 guard bytes"),
      rec("performance vs reference", "[perf]", 25, 0, "skipped", cudalab::grade::kNotSelected),
      rec("compute-sanitizer memcheck", "[sanitize]", 10, 0, "failed",
          "compute-sanitizer memcheck reported hazards:\n========= Invalid __global__ write of "
          "size 4")};
  const auto j = judge(v, grade);
  CHECK(j.passed());
  CHECK(j.verified.size() == 3);  // two checks and the points: at most 0 + 35 (skipped) <= 75
}

TEST_CASE("a different verdict names the check, the expected and seen status, the message",
          "[variant]") {
  const Variant v = parse_variant(kHeader + kDiff, "no-bounds-check");
  const std::vector<CheckRecord> grade = {
      rec("edge cases", "[correctness]", 15, 15, "passed"),
      rec("compute-sanitizer memcheck", "[sanitize]", 10, 0, "failed", "timed out after 300 s"),
      rec("performance vs reference", "[perf]", 75, 75, "passed")};
  const auto j = judge(v, grade);
  REQUIRE(j.violated.size() == 3);
  CHECK(j.violated[0] ==
        "check 'edge cases': expected fail /past the end of y/, seen passed (15/15): (no message)");
  CHECK(j.violated[1] ==
        "check 'compute-sanitizer memcheck': expected fail /Invalid __global__ write/, seen failed "
        "(0/10): timed out after 300 s");
  CHECK(j.violated[2] == "the lab's points: expected Points <= 75, seen 90");
}

TEST_CASE("an expectation no check matches, or one Run does not select, is a violation",
          "[variant]") {
  const Variant v = parse_variant(kHeader + kDiff, "v");
  const std::vector<CheckRecord> grade = {
      rec("edge cases", "[correctness]", 15, 0, "skipped", cudalab::grade::kNotSelected)};
  const auto j = judge(v, grade);
  REQUIRE(j.violated.size() == 2);
  CHECK(j.violated[0] == "Expect (line 7) check 'edge cases' was not run: Run does not select it");
  CHECK(j.violated[1].rfind("Expect (line 8) no check matches \"compute-sanitizer memcheck\"", 0) ==
        0);
}

TEST_CASE("without a GPU, what depends on skipped checks is not seen, never passed", "[variant]") {
  const std::string no_gpu = "no CUDA device (cudaGetDeviceCount: no CUDA-capable device)";
  const Variant v = parse_variant(kHeader + kDiff, "v");
  const std::vector<CheckRecord> grade = {
      rec("edge cases", "[correctness]", 15, 0, "skipped", no_gpu),
      rec("compute-sanitizer memcheck", "[sanitize]", 10, 0, "skipped", no_gpu),
      rec("technique", "[technique]", 10, 10, "passed"),
      rec("performance vs reference", "[perf]", 65, 0, "skipped", no_gpu)};
  const auto j = judge(v, grade);
  CHECK(j.violated.empty());
  CHECK(j.unverifiable.size() == 3);  // both checks, and the points (10 to 100)
  CHECK_FALSE(j.passed());
}

TEST_CASE("points bounds hold only when every skipped check's outcome keeps them", "[variant]") {
  auto bound = [](const std::string& points) {
    return parse_variant("Cause: c\nPoints: " + points + "\n" + kDiff, "v");
  };
  // Known 10 of a technique check; 90 skipped: the lab ends between 10 and 100.
  const std::vector<CheckRecord> grade = {
      rec("t", "[technique]", 10, 10, "passed"),
      rec("g", "[correctness]", 90, 0, "skipped", "no CUDA device")};
  auto outcome = [&](const std::string& points) {
    const auto j = judge(bound(points), grade);
    return !j.violated.empty() ? "violated" : !j.unverifiable.empty() ? "not seen" : "verified";
  };
  CHECK(std::string(outcome("<= 100")) == "verified");
  CHECK(std::string(outcome("<= 90")) == "not seen");
  CHECK(std::string(outcome("<= 5")) == "violated");
  CHECK(std::string(outcome("< 10")) == "violated");
  CHECK(std::string(outcome(">= 10")) == "verified");
  CHECK(std::string(outcome("> 10")) == "not seen");
  CHECK(std::string(outcome(">= 101")) == "violated");
  CHECK(std::string(outcome("= 10")) == "not seen");
  CHECK(std::string(outcome("= 0")) == "violated");
}

TEST_CASE("the plain answer must pass every check", "[variant]") {
  const Variant v = plain_answer_variant();
  CHECK(judge(v, {rec("a", "", 10, 10, "passed"), rec("b", "", 5, 5, "passed")}).passed());
  const auto partial =
      judge(v, {rec("a", "", 10, 10, "passed"), rec("perf", "", 5, 2.5, "partial", "r = 4.1")});
  REQUIRE(partial.violated.size() == 1);
  CHECK(partial.violated[0] == "check 'perf': expected pass, seen partial (2.5/5): r = 4.1");
}

TEST_CASE("a long grader message is cut after six lines, and says so", "[variant]") {
  const Variant v = plain_answer_variant();
  const auto seven = judge(v, {rec("a", "", 10, 0, "failed", "1\n2\n3\n4\n5\n6\n7")});
  REQUIRE(seven.violated.size() == 1);
  CHECK(seven.violated[0] ==
        "check 'a': expected pass, seen failed (0/10): 1\n    2\n    3\n    4\n    5\n    6\n    "
        "...");
  const auto six = judge(v, {rec("a", "", 10, 0, "failed", "1\n2\n3\n4\n5\n6")});
  REQUIRE(six.violated.size() == 1);
  CHECK(six.violated[0].find("...") == std::string::npos);
}

TEST_CASE("a grading error is never the expected verdict unless named", "[variant]") {
  const Variant v =
      parse_variant("Cause: c\nSymptom: s\nFix: f\nExpect: fail \"x\"\n" + kDiff, "v");
  const auto j = judge(v, {rec("x", "", 10, 0, "failed"),
                           rec("grading", "", 1, 0, "failed", "grading error: boom")});
  REQUIRE(j.violated.size() == 1);
  CHECK(j.violated[0] == "the grade command could not grade the lab: grading error: boom");
}

TEST_CASE("the Common mistakes section lists each variant with a Symptom, and its hunks",
          "[variant]") {
  Variant a = parse_variant(kHeader + kDiff, "no-bounds-check");
  a.fix = "guard it | really";
  const Variant b = parse_variant("Cause: alt\nExpect: pass \"*\"\n" + kDiff, "alt");
  const std::string md = mistakes_markdown({a, b});
  CHECK(md.find("| \"edge cases\" fails: past the end of y | the store has no bounds test, so the "
                "last block writes past the end. | guard it \\| really |\n") != std::string::npos);
  CHECK(md.find("`no-bounds-check`:\n\n```diff\n@@ -3,3 +3,3 @@\n") != std::string::npos);
  CHECK(md.find("+++ ") == std::string::npos);
  CHECK(md.find("alt") == std::string::npos);
}

TEST_CASE("what a variant is about is seen only in an expected failure or a bound that can fail",
          "[variant]") {
  const std::string no_gpu = "no CUDA device";
  // Without a GPU, a CPU-only check passes and the rest is skipped: nothing decisive seen.
  const std::vector<CheckRecord> cpu_only = {
      rec("CPU reference", "[correctness]", 0, 0, "passed"),
      rec("edge cases", "[correctness]", 60, 0, "skipped", no_gpu),
      rec("technique", "[technique]", 40, 0, "skipped", no_gpu)};
  const Variant floods =
      parse_variant("Cause: c\nExpect: pass \"*\"\nPoints: = 100\n" + kDiff, "v");
  auto j = judge(floods, cpu_only);
  CHECK(j.verified.size() == 1);  // the CPU reference's pass
  CHECK(j.decisive == 0);
  // A bound any grade keeps is not decisive; one the grade could break is.
  j = judge(parse_variant("Cause: c\nPoints: <= 100\n" + kDiff, "v"), cpu_only);
  CHECK(j.verified.size() == 1);
  CHECK(j.decisive == 0);
  const std::vector<CheckRecord> ptx_fails = {
      rec("edge cases", "[correctness]", 60, 0, "skipped", no_gpu),
      rec("technique", "[technique]", 40, 0, "failed", "no ld.shared in its PTX")};
  j = judge(parse_variant("Cause: c\nSymptom: s\nFix: f\nExpect: fail \"technique\" /ld.shared/\n"
                          "Points: <= 60\n" +
                              kDiff,
                          "v"),
            ptx_fails);
  CHECK(j.violated.empty());
  CHECK(j.decisive == 2);  // the failure, and the points (0 to 60 of 100)
}
