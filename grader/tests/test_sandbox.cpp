// The sandbox each check runs in (grader/grade/process.h, make_sandbox): what a process inside it
// can and cannot reach. Runs where bubblewrap works (CI installs it); elsewhere it says why not.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cudalab/catch.h"
#include "process.h"
#include "test_support.h"

namespace {

using cudalab::grade::make_sandbox;
using cudalab::grade::ProcessOptions;
using cudalab::grade::ProcessResult;
using cudalab::grade::run_process;
using cudalab::grade::Sandbox;

ProcessResult in_sandbox(const Sandbox& box, const std::string& script) {
  ProcessOptions options;
  options.sandbox = box.prefix;
  return run_process({"/bin/sh", "-c", script}, {}, 30, options);
}

}  // namespace

TEST_CASE("the sandbox: read-only repository, private /tmp, own PID namespace, no network",
          "[grader][sandbox]") {
  namespace fs = std::filesystem;
  const test_support::TempFolder folder("sandbox");
  const fs::path& shared = folder.path;
  std::ofstream(shared / "file") << "original\n";
  Sandbox box;
  try {
    box = make_sandbox("auto", {shared.string()});
  } catch (const std::exception& e) {
    FAIL(e.what());
  }
  if (box.prefix.empty()) {
    WARN("not tested here: " + box.description);
    return;
  }
  CHECK(box.description.rfind("bubblewrap: no network, own PID namespace", 0) == 0);

  // The shared folder is visible, and read-only.
  const ProcessResult read = in_sandbox(box, "cat '" + (shared / "file").string() + "'");
  CHECK(read.exit_code == 0);
  CHECK(read.output == "original\n");
  const ProcessResult write = in_sandbox(box, "echo forged > '" + (shared / "file").string() + "'");
  CHECK(write.exit_code != 0);
  CHECK(test_support::file_text(shared / "file") == "original\n");

  // /tmp is its own, writable, and gone afterwards.
  const std::string probe = "cudalab-sandbox-probe-" + std::to_string(getpid());
  CHECK(in_sandbox(box, "echo x > /tmp/" + probe + " && cat /tmp/" + probe).output == "x\n");
  CHECK(!fs::exists(fs::path("/tmp") / probe));

  // Its own PID namespace: bubblewrap is process 1, the command process 2.
  CHECK(in_sandbox(box, "echo $$").output == "2\n");

  // No network: the loopback interface only.
  const ProcessResult net = in_sandbox(box, "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '");
  CHECK(net.exit_code == 0);
  CHECK(net.output == "lo\n");
}

TEST_CASE("the sandbox: the course's answers are not there", "[grader][sandbox]") {
  // A repository's answers (answer_key): the solutions, the variants, the pages, the history.
  namespace fs = std::filesystem;
  const test_support::TempFolder folder("sandbox-answers");
  const fs::path repo = folder.path / "repo";
  for (const char* dir : {"solutions/09-nbody", "grader/labs/09-nbody/variants",
                          "grader/labs/01-conv1d-basic", "labs/09-nbody", "docs/labs", ".git"})
    fs::create_directories(repo / dir);
  std::ofstream(repo / "solutions/09-nbody/nbody.cu") << "the answer\n";
  std::ofstream(repo / "grader/labs/09-nbody/variants/answer.cu") << "the answer\n";
  std::ofstream(repo / "docs/labs/09-nbody.md") << "the answer\n";
  std::ofstream(repo / ".git/HEAD") << "the history\n";
  std::ofstream(repo / "labs/09-nbody/nbody.cu") << "the skeleton\n";
  std::ofstream(repo / "grader/labs/09-nbody/grade_nbody.cpp") << "the grader\n";
  const std::vector<std::string> key = cudalab::grade::answer_key(repo.string());
  CHECK(key == std::vector<std::string>{(repo / ".git").string(), (repo / "docs").string(),
                                        (repo / "grader/labs/09-nbody/variants").string(),
                                        (repo / "solutions").string()});
  Sandbox box;
  try {
    box = make_sandbox("auto", {repo.string()}, 1024, key);
  } catch (const std::exception& e) {
    FAIL(e.what());
  }
  if (box.prefix.empty()) {
    WARN("not tested here: " + box.description);
    return;
  }
  CHECK(box.description.find("the course's answers hidden") != std::string::npos);
  // Each answer folder is there, empty, and stays empty; the rest of the repository is as it is.
  const std::string r = repo.string();
  for (const char* dir : {"solutions", "grader/labs/09-nbody/variants", "docs", ".git"}) {
    const ProcessResult ls = in_sandbox(box, "ls -A '" + r + "/" + dir + "'");
    CHECK(ls.exit_code == 0);
    CHECK(ls.output.empty());
    CHECK(in_sandbox(box, "echo x > '" + r + "/" + dir + "/f'").exit_code != 0);
  }
  CHECK(in_sandbox(box, "cat '" + r + "/solutions/09-nbody/nbody.cu'").exit_code != 0);
  CHECK(in_sandbox(box, "cat '" + r + "/labs/09-nbody/nbody.cu'").output == "the skeleton\n");
  CHECK(in_sandbox(box, "cat '" + r + "/grader/labs/09-nbody/grade_nbody.cpp'").output ==
        "the grader\n");
  CHECK(test_support::file_text(repo / "solutions/09-nbody/nbody.cu") == "the answer\n");
}

TEST_CASE("the sandbox modes: off says so, on refuses to run without it", "[grader][sandbox]") {
  CHECK(make_sandbox("off", {}).description == "none: disabled by --sandbox off");
  CHECK(make_sandbox("off", {}).prefix.empty());
  const Sandbox automatic = make_sandbox("auto", {});
  if (automatic.prefix.empty()) {
    CHECK(automatic.description.rfind("none: ", 0) == 0);
    CHECK_THROWS_WITH(make_sandbox("on", {}), Catch::Contains("--sandbox on: "));
  } else {
    CHECK_NOTHROW(make_sandbox("on", {}));
  }
}

TEST_CASE("a grader process's heap is limited", "[grader][process]") {
  ProcessOptions options;
  options.data_limit_bytes = std::size_t{64} << 20;
  // 256 MiB of 'a' in a shell variable: more heap than the limit allows.
  const ProcessResult big = run_process(
      {"/bin/sh", "-c", "x=$(head -c 268435456 /dev/zero | tr '\\0' a); echo kept ${#x}"}, {}, 60,
      options);
  CHECK(big.output.find("kept 268435456") == std::string::npos);
  const ProcessResult small =
      run_process({"/bin/sh", "-c", "x=$(head -c 1048576 /dev/zero | tr '\\0' a); echo kept ${#x}"},
                  {}, 60, options);
  CHECK(small.output == "kept 1048576\n");
}

TEST_CASE("what a check prints is kept within a bound, its end included", "[grader][process]") {
  // 64 MiB of output, then a last line (where compute-sanitizer writes its summary).
  const ProcessResult r = run_process(
      {"/bin/sh", "-c", "head -c 67108864 /dev/zero | tr '\\0' x; echo; echo LAST LINE"}, {}, 60);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.size() < 1100 * 1024);
  CHECK(r.output.find("bytes of output dropped here") != std::string::npos);
  CHECK(r.output.find("LAST LINE") != std::string::npos);
  CHECK(r.output.substr(0, 1000) == std::string(1000, 'x'));
}
