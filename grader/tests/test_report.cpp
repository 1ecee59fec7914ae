// The grade command's results (totals, JSON report, Gradescope file, console tables) and the child
// process each lab's grader runs in.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>

#include "cudalab/catch.h"
#include "process.h"
#include "report.h"

using cudalab::grade::CheckRecord;
using cudalab::grade::GradeReport;
using cudalab::grade::LabResult;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The line of `text` that contains `part`, or "" when none does.
std::string line_with(const std::string& text, const std::string& part) {
  const auto at = text.find(part);
  if (at == std::string::npos) return "";
  const auto begin = text.rfind('\n', at);
  const auto start = begin == std::string::npos ? 0 : begin + 1;
  return text.substr(start, text.find('\n', at) - start);
}

// The JSON object (up to its closing brace) whose "name" is `name`; the fixture's messages hold no
// braces, so the first '}' ends it.
std::string json_object_named(const std::string& json, const std::string& name) {
  const auto at = json.find("\"name\": \"" + name + "\"");
  if (at == std::string::npos) return "";
  return json.substr(at, json.find('}', at) - at);
}

CheckRecord check(const std::string& name, int points, double earned, const std::string& status,
                  const std::string& message) {
  CheckRecord c;
  c.name = name;
  c.tags = "[lab01]";
  c.points = points;
  c.earned = earned;
  c.status = status;
  c.message = message;
  return c;
}

const std::string kFailMessage =
    "case 'random' (seed 7, width=1000): output y is wrong\n"
    "  3 mismatches, first: y[5] expected \"1\", got 2";

// Lab 01 has one check of each status; lab 02's only failure is worth no points.
GradeReport sample_report() {
  LabResult lab1{"01", "conv1d-basic", {}};
  lab1.checks.push_back(check("worked example", 10, 10, "passed", ""));
  CheckRecord perf = check("performance", 20, 13.5, "partial", "slower than the reference");
  perf.tags = "[lab01][perf]";
  perf.measurements = {{"ratio", 1.8}, {"candidate_gbs", 850.0}, {"candidate_pct_copy", 42.4}};
  lab1.checks.push_back(perf);
  lab1.checks.push_back(check("random cases", 10, 0, "failed", kFailMessage));
  lab1.checks.push_back(check("sanitizer memcheck", 10, 0, "skipped", "no CUDA device"));

  LabResult lab2{"02", "conv1d-tiled", {}};
  lab2.checks.push_back(check("worked example", 10, 10, "passed", ""));
  lab2.checks.push_back(check("informational", 0, 0, "failed", "note only"));

  GradeReport r;
  r.target = "student";
  r.seed = 20180914;
  r.generated_at = "2024-01-01T00:00:00Z";
  r.has_device = false;
  r.no_device_reason = "no CUDA device";
  r.labs = {lab1, lab2};
  return r;
}

}  // namespace

TEST_CASE("report totals add up earned and maximum points and count statuses", "[grader][report]") {
  const GradeReport r = sample_report();
  CHECK(r.labs[0].points() == Approx(23.5));
  CHECK(r.labs[0].max_points() == 50);
  CHECK(r.labs[1].points() == Approx(10));
  CHECK(r.labs[1].max_points() == 10);
  CHECK(r.points() == Approx(33.5));
  CHECK(r.max_points() == 60);
  CHECK(r.count("passed") == 2);
  CHECK(r.count("partial") == 1);
  CHECK(r.count("failed") == 2);
  CHECK(r.count("skipped") == 1);
  CHECK(r.count("listed") == 0);
}

TEST_CASE("a report fails only when a check worth points failed", "[grader][report]") {
  GradeReport r = sample_report();
  CHECK(r.labs[0].failed());
  CHECK(r.failed());

  SECTION("a failed check worth 0 points does not fail its lab") {
    CHECK_FALSE(r.labs[1].failed());
    r.labs.erase(r.labs.begin());
    CHECK_FALSE(r.failed());
  }
  SECTION("skipped and partial checks do not fail a lab") {
    r.labs[0].checks.erase(r.labs[0].checks.begin() + 2);  // the failed one
    CHECK_FALSE(r.labs[0].failed());
    CHECK_FALSE(r.failed());
  }
}

TEST_CASE("the JSON report holds the schema, labs, checks and device", "[grader][report]") {
  GradeReport r = sample_report();

  SECTION("without a device") {
    const std::string json = cudalab::grade::report_json(r);
    CAPTURE(json);
    CHECK(contains(json, "\"schema\": \"cudalab-grade-report/1\""));
    CHECK(contains(json, "\"seed\": 20180914"));
    CHECK(contains(json, "\"lab\": \"01\""));
    CHECK(contains(json, "\"lab\": \"02\""));
    CHECK(contains(json, "\"check\": \"worked example\""));
    CHECK(contains(json, "\"check\": \"random cases\""));
    CHECK(contains(json, "\"status\": \"skipped\""));
    CHECK(contains(json, "\"ratio\": 1.8"));
    CHECK(contains(json, "\"candidate_gbs\": 850"));
    CHECK(contains(json, "\"points\": 33.5"));
    CHECK(contains(json, "\"max_points\": 60"));
    CHECK(contains(json, "\"failed\": true"));
    CHECK(contains(json, "\"device\": null"));
    CHECK(contains(json, "\"no_device_reason\": \"no CUDA device\""));
  }
  SECTION("with the wall times of the run, each lab and each check") {
    r.seconds = 12.5;
    r.labs[0].seconds = 7.25;
    r.labs[0].checks[0].seconds = 1.5;
    const std::string json = cudalab::grade::report_json(r);
    CAPTURE(json);
    CHECK(contains(json, "\"seconds\": 12.5"));
    CHECK(contains(json, "\"seconds\": 7.25"));
    CHECK(contains(json, "\"seconds\": 1.5"));
    const std::string summary = cudalab::grade::summary_table(r, false);
    CAPTURE(summary);
    CHECK(contains(line_with(summary, "conv1d-basic"), " 7.2"));
    CHECK(contains(line_with(summary, "total"), " 12.5"));
  }
  SECTION("with a device") {
    r.has_device = true;
    r.device_name = "NVIDIA H100 80GB HBM3";
    const std::string json = cudalab::grade::report_json(r);
    CAPTURE(json);
    CHECK(contains(json, "\"name\": \"NVIDIA H100 80GB HBM3\""));
    CHECK_FALSE(contains(json, "\"device\": null"));
    CHECK_FALSE(contains(json, "no_device_reason"));
  }
}

TEST_CASE("the JSON report escapes quotes and newlines in messages", "[grader][report]") {
  const std::string json = cudalab::grade::report_json(sample_report());
  CAPTURE(json);
  CHECK(contains(json, "output y is wrong\\n  3 mismatches"));
  CHECK(contains(json, "expected \\\"1\\\", got 2"));
  CHECK_FALSE(contains(json, kFailMessage));  // never raw
}

TEST_CASE("the Gradescope file scores each check and marks skipped ones failed",
          "[grader][report]") {
  const std::string json = cudalab::grade::gradescope_json(sample_report());
  CAPTURE(json);
  CHECK(contains(json, "\"score\": 33.5"));
  CHECK(contains(json, "\"max_score\": 60"));
  CHECK(contains(json, "No GPU here: no CUDA device"));
  CHECK(contains(json, "cloud notebook"));  // and what to do next

  const std::string passed = json_object_named(json, "Lab 01 conv1d-basic: worked example");
  const std::string partial = json_object_named(json, "Lab 01 conv1d-basic: performance");
  const std::string failed = json_object_named(json, "Lab 01 conv1d-basic: random cases");
  const std::string skipped = json_object_named(json, "Lab 01 conv1d-basic: sanitizer memcheck");
  const std::string other_lab = json_object_named(json, "Lab 02 conv1d-tiled: worked example");
  REQUIRE_FALSE(passed.empty());
  REQUIRE_FALSE(partial.empty());
  REQUIRE_FALSE(failed.empty());
  REQUIRE_FALSE(skipped.empty());
  REQUIRE_FALSE(other_lab.empty());

  CHECK(contains(passed, "\"status\": \"passed\""));
  CHECK(contains(partial, "\"status\": \"passed\""));
  CHECK(contains(partial, "\"score\": 13.5"));
  CHECK(contains(partial, "\"max_score\": 20"));
  CHECK(contains(failed, "\"status\": \"failed\""));
  CHECK(contains(failed, "expected \\\"1\\\""));
  CHECK(contains(skipped, "\"status\": \"failed\""));
  // The reason is said once, at the top; the row points there.
  CHECK(contains(skipped, "\"output\": \"SKIPPED: no GPU (see the top)\""));
}

TEST_CASE("the plain lab table shows every status, the total and failure details",
          "[grader][report]") {
  const GradeReport r = sample_report();
  const std::string table = cudalab::grade::lab_table(r.labs[0], false);
  CAPTURE(table);
  CHECK(contains(table, "Lab 01 conv1d-basic"));
  CHECK_FALSE(contains(table, "\033"));

  CHECK(contains(line_with(table, "worked example"), "PASS"));
  CHECK(contains(line_with(table, "worked example"), "10/10"));
  const std::string perf_row = line_with(table, "performance");
  CHECK(contains(perf_row, "PARTIAL"));
  CHECK(contains(perf_row, "13.5/20"));
  CHECK(contains(perf_row, "r = 1.800, 850 GB/s (42% of copy)"));
  // A compute-bound check shows its GFLOP/s instead: the larger share of its roofline.
  LabResult compute = r.labs[0];
  for (auto& c : compute.checks)
    if (c.measurements.count("ratio"))
      c.measurements = {{"ratio", 1.2},
                        {"candidate_gbs", 0.4},
                        {"candidate_pct_copy", 0.01},
                        {"candidate_gflops", 40670.0},
                        {"candidate_pct_fp32_peak", 60.8}};
  CHECK(contains(line_with(cudalab::grade::lab_table(compute, false), "performance"),
                 "r = 1.200, 40670 GFLOP/s (61% of FP32 peak)"));
  const std::string fail_row = line_with(table, "random cases");
  CHECK(contains(fail_row, "FAIL"));
  CHECK(contains(fail_row, "0/10"));
  CHECK(contains(fail_row, "output y is wrong"));
  CHECK_FALSE(contains(fail_row, "mismatches"));  // the row shows the first line only
  CHECK(contains(line_with(table, "sanitizer memcheck"), "SKIP"));
  CHECK(contains(line_with(table, "sanitizer memcheck"), "-/10"));

  const auto total = table.find("total");
  REQUIRE(total != std::string::npos);
  CHECK(contains(line_with(table, "total"), "23.5/50"));
  // The failed check's whole message, line by line, after the table.
  const auto details = table.find("\n  random cases:\n", total);
  REQUIRE(details != std::string::npos);
  CHECK(table.find("    case 'random' (seed 7, width=1000): output y is wrong\n", details) !=
        std::string::npos);
  CHECK(table.find("      3 mismatches, first: y[5] expected \"1\", got 2\n", details) !=
        std::string::npos);
}

TEST_CASE("the coloured lab table uses ANSI colours", "[grader][report]") {
  const std::string table = cudalab::grade::lab_table(sample_report().labs[0], true);
  CHECK(contains(table, "\033["));
  CHECK(contains(line_with(table, "random cases"), "\033[31m"));
  CHECK(contains(table, "\033[0m"));
}

TEST_CASE("the summary says plainly when there was no GPU", "[grader][report]") {
  GradeReport r = sample_report();

  SECTION("without a device") {
    const std::string summary = cudalab::grade::summary_table(r, false);
    CAPTURE(summary);
    CHECK(contains(summary, "seed 20180914, no GPU)"));
    CHECK(contains(summary, "No GPU: 1 GPU check(s) SKIPPED, not passed"));
    CHECK(contains(line_with(summary, "conv1d-basic"), "23.5/50"));
    CHECK(contains(line_with(summary, "total"), "33.5/60"));
    CHECK_FALSE(contains(summary, "\033"));
  }
  SECTION("with a device") {
    r.has_device = true;
    r.device_name = "NVIDIA H100 80GB HBM3";
    const std::string summary = cudalab::grade::summary_table(r, false);
    CAPTURE(summary);
    CHECK(contains(summary, "NVIDIA H100 80GB HBM3"));
    CHECK_FALSE(contains(summary, "no GPU"));
    CHECK_FALSE(contains(summary, "SKIPPED"));
  }
}

TEST_CASE("without a GPU, the reason and what to do come once, at the top", "[grader][report]") {
  const GradeReport r = sample_report();
  const std::string notice = cudalab::grade::no_device_notice(r, false);
  CAPTURE(notice);
  CHECK(contains(notice, "No GPU here: no CUDA device."));
  CHECK(contains(notice, "grading service"));
  CHECK(contains(notice, "cloud notebook"));
  CHECK(contains(notice, "a machine with an NVIDIA GPU"));
  // The rows say "no GPU", not the reason again.
  const std::string table = cudalab::grade::lab_table(r.labs[0], false);
  CHECK(contains(line_with(table, "sanitizer memcheck"), "no GPU (see the top)"));
}

// A lab whose file does not compile: every check fails with the same message.
LabResult not_compiling_lab(const std::string& message) {
  LabResult lab{"01", "conv1d-basic", {}};
  for (const char* name : {"worked example", "edge cases", "random sizes"})
    lab.checks.push_back(check(name, 10, 0, "failed", message));
  return lab;
}

const std::string kCompilerSaid =
    "/home/ta/grades/work/vm-0/tree/labs/01-conv1d-basic/conv1d_basic.cu(30): error: identifier "
    "\"blok\" is undefined\n"
    "    const dim3 grid(blok);\n"
    "                    ^\n"
    "\n"
    "1 error detected in the compilation of "
    "\"/home/ta/grades/work/vm-0/tree/labs/01-conv1d-basic/conv1d_basic.cu\".\n\n";

TEST_CASE("a file that does not compile: the compiler's words, without the machine's paths",
          "[grader][report]") {
  const std::string dir = "/home/ta/grades/work/vm-0/tree";
  const std::string message = cudalab::grade::not_compiled_message(
      dir + "/labs/01-conv1d-basic/conv1d_basic.cu", kCompilerSaid, dir);
  CAPTURE(message);
  CHECK(message.rfind("not graded: labs/01-conv1d-basic/conv1d_basic.cu does not compile:\n", 0) ==
        0);
  CHECK(contains(message, "labs/01-conv1d-basic/conv1d_basic.cu(30): error: identifier"));
  CHECK_FALSE(contains(message, "/home/ta"));
  CHECK(message.back() == '.');  // trailing blank lines dropped
  // Nothing from the compiler (or only warnings): the grader was not built all the same.
  CHECK(cudalab::grade::not_compiled_message("labs/x.cu", "", dir) ==
        "not graded: labs/x.cu does not compile or link (its grader was not built)");
  // At most 40 lines of it.
  std::string many;
  for (int i = 0; i < 100; ++i) many += "x.cu(" + std::to_string(i) + "): error: bad\n";
  const std::string cut = cudalab::grade::not_compiled_message("x.cu", many, dir);
  CHECK(contains(cut, "x.cu(39): error"));
  CHECK_FALSE(contains(cut, "x.cu(40): error"));
  CHECK(contains(cut, "... (60 more lines)"));
}

TEST_CASE("a failure shared by several checks is detailed once", "[grader][report]") {
  const std::string message = cudalab::grade::not_compiled_message(
      "/r/labs/01-conv1d-basic/conv1d_basic.cu", kCompilerSaid, "/home/ta/grades/work/vm-0/tree");
  const std::string table = cudalab::grade::lab_table(not_compiling_lab(message), false);
  CAPTURE(table);
  const auto first = table.find("error: identifier");
  REQUIRE(first != std::string::npos);
  CHECK(table.find("error: identifier", first + 1) == std::string::npos);
  CHECK(contains(table, "\n  every check (3):\n"));
}

TEST_CASE("Gradescope: the compiler's errors once at the top, no path of the grading machine",
          "[grader][report]") {
  const std::string dir = "/home/ta/grades/work/vm-0/tree";
  GradeReport r = sample_report();
  r.source_dir = dir;
  r.labs = {not_compiling_lab(cudalab::grade::not_compiled_message(
      dir + "/labs/01-conv1d-basic/conv1d_basic.cu", kCompilerSaid, dir))};
  r.labs[0].checks.push_back(check("informational", 0, 0, "failed", "see " + dir + "/x.log"));
  const std::string json = cudalab::grade::gradescope_json(r);
  CAPTURE(json);
  CHECK_FALSE(contains(json, "/home/ta"));
  const auto first = json.find("error: identifier");
  REQUIRE(first != std::string::npos);
  CHECK(json.find("error: identifier", first + 1) == std::string::npos);
  CHECK(first < json.find("\"tests\""));  // in the top output
  CHECK(contains(json_object_named(json, "Lab 01 conv1d-basic: edge cases"),
                 "not graded: labs/01-conv1d-basic/conv1d_basic.cu does not compile (in full at "
                 "the top)"));
  CHECK(contains(json_object_named(json, "Lab 01 conv1d-basic: informational"), "see x.log"));
}

TEST_CASE("a block of lines said again right after itself is kept once", "[grader][report]") {
  using cudalab::grade::without_repeats;
  const std::string per_arch =
      "no warp shuffle in spmv_csr_vector_kernel:\nits PTX has no shfl.sync";
  CHECK(without_repeats(per_arch + "\n" + per_arch + "\n" + per_arch) == per_arch);
  CHECK(without_repeats("a\nb\na") == "a\nb\na");  // not next to each other: kept
  CHECK(without_repeats("") == "");
}

TEST_CASE("run_process captures the exit code and both output streams", "[grader][process]") {
  const auto r = cudalab::grade::run_process({"sh", "-c", "echo hi; echo err >&2; exit 3"}, {}, 10);
  CAPTURE(r.output);
  CHECK(r.exit_code == 3);
  CHECK(r.signal == 0);
  CHECK_FALSE(r.timed_out);
  CHECK(contains(r.output, "hi\n"));
  CHECK(contains(r.output, "err\n"));
  CHECK(cudalab::grade::describe_ending(r, 10) == "exit code 3");
}

TEST_CASE("run_process passes extra environment variables to the child", "[grader][process]") {
  const auto r = cudalab::grade::run_process({"sh", "-c", "echo \"$CUDALAB_TEST_FOO\""},
                                             {"CUDALAB_TEST_FOO=bar baz"}, 10);
  CHECK(r.exit_code == 0);
  CHECK(r.output == "bar baz\n");
}

TEST_CASE("run_process kills a child that runs past its time limit", "[grader][process]") {
  const auto start = std::chrono::steady_clock::now();
  // The shell starts sleep as a second process: the whole process group must be killed.
  const auto r = cudalab::grade::run_process({"sh", "-c", "sleep 5; echo never"}, {}, 0.5);
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CAPTURE(wall, r.seconds, r.output);
  CHECK(r.timed_out);
  CHECK(wall < 3.0);
  CHECK(r.seconds < 3.0);
  CHECK_FALSE(contains(r.output, "never"));
  CHECK(cudalab::grade::describe_ending(r, 0.5) == "timed out after 0.5 s");
}

TEST_CASE("run_process reports the signal that ended the child", "[grader][process]") {
  const auto r = cudalab::grade::run_process({"sh", "-c", "kill -SEGV $$"}, {}, 10);
  CHECK_FALSE(r.timed_out);
  CHECK(r.signal == SIGSEGV);
  CHECK(cudalab::grade::describe_ending(r, 10) == "killed by signal 11 (Segmentation fault)");
}

TEST_CASE("run_process throws when the program cannot be started", "[grader][process]") {
  REQUIRE_THROWS_AS(cudalab::grade::run_process({"cudalab-no-such-program"}, {}, 10),
                    std::runtime_error);
  REQUIRE_THROWS_AS(cudalab::grade::run_process({"/nonexistent/program"}, {}, 10),
                    std::runtime_error);
  REQUIRE_THROWS_AS(cudalab::grade::run_process({}, {}, 10), std::invalid_argument);
}

TEST_CASE("last_lines keeps the last non-empty lines", "[grader][process]") {
  using cudalab::grade::last_lines;
  CHECK(last_lines("a\n\nb\nc\n", 2) == "b\nc");
  CHECK(last_lines("a\n\nb\nc\n", 10) == "a\nb\nc");
  CHECK(last_lines("a\nb", 1) == "b");
  CHECK(last_lines("", 3).empty());
}

TEST_CASE("describe_ending names how the child ended", "[grader][process]") {
  using cudalab::grade::describe_ending;
  cudalab::grade::ProcessResult r;

  SECTION("exit code") {
    r.exit_code = 0;
    CHECK(describe_ending(r, 60) == "exit code 0");
  }
  SECTION("signal") {
    r.signal = SIGSEGV;
    CHECK(describe_ending(r, 60) == "killed by signal 11 (Segmentation fault)");
  }
  SECTION("time limit, which wins over everything else") {
    r.timed_out = true;
    r.signal = SIGKILL;
    CHECK(describe_ending(r, 60) == "timed out after 60 s");
  }
}

TEST_CASE("run_process ends what the child left running, even outside its process group",
          "[grader][process]") {
  char marker[] = "/tmp/cudalab-stray-XXXXXX";
  const int fd = mkstemp(marker);
  REQUIRE(fd >= 0);
  close(fd);
  std::remove(marker);
  // A detached process (its own session, so not in the child's group) that would write the
  // marker after the child has exited, as a student's forked process rewriting a report would.
  const std::string script = "setsid sh -c 'sleep 1; echo late > " + std::string(marker) +
                             "' </dev/null >/dev/null 2>&1 & echo started";
  const auto r = cudalab::grade::run_process({"sh", "-c", script}, {}, 10);
  CHECK(r.exit_code == 0);
  CHECK(contains(r.output, "started"));
  CHECK(r.seconds < 1.0);  // not held up by the stray's open descriptors
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  CHECK(access(marker, F_OK) != 0);
  std::remove(marker);
}

TEST_CASE("run_process hands descriptors down and reads a captured pipe", "[grader][process]") {
  int fds[2];
  REQUIRE(pipe2(fds, O_CLOEXEC) == 0);
  cudalab::grade::ProcessOptions options;
  options.inherit = {fds[1]};
  options.capture_fd = fds[0];
  const auto r = cudalab::grade::run_process(
      {"sh", "-c", "echo record >&" + std::to_string(fds[1]) + "; echo out"}, {}, 10, options);
  close(fds[0]);
  CHECK(r.exit_code == 0);
  CHECK(r.captured == "record\n");
  CHECK(r.output == "out\n");
}

TEST_CASE("the sandbox: off when asked, and when bubblewrap works, no network and read-only files",
          "[grader][process][sandbox]") {
  CHECK(cudalab::grade::make_sandbox("off", {}).prefix.empty());
  CHECK(contains(cudalab::grade::make_sandbox("off", {}).description, "none"));
  const auto box = cudalab::grade::make_sandbox("auto", {"/tmp"});
  if (box.prefix.empty()) {
    WARN("no sandbox here: " << box.description);
    return;
  }
  cudalab::grade::ProcessOptions options;
  options.sandbox = box.prefix;
  // Only the loopback device exists in the sandbox, and it is down.
  const auto net = cudalab::grade::run_process(
      {"sh", "-c", "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '"}, {}, 10, options);
  CHECK(net.output == "lo\n");
  const auto write = cudalab::grade::run_process(
      {"sh", "-c", "touch /usr/cudalab-sandbox-probe 2>/dev/null || echo read-only"}, {}, 10,
      options);
  CHECK(write.output == "read-only\n");
  // Its own PID namespace: the command is one of very few processes.
  const auto pids =
      cudalab::grade::run_process({"sh", "-c", "ls /proc | grep -c '^[0-9]'"}, {}, 10, options);
  CAPTURE(pids.output);
  CHECK(std::stoi(pids.output) <= 4);
}
