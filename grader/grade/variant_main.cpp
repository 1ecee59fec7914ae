// cudalab-variant: proves the grader on the submissions it must judge right.
//
//   cudalab-variant check --grade PATH --lab NN --variant NAME [--file VARIANT.patch]
//                         [--link-check PATH --build-dir DIR --link-target TARGET] [--timeout S]
//                         [--cpu-judged]
//     Runs the grade command on the variant exactly as a student's file is graded, then holds the
//     grade against the verdict in the variant's header (variant.h). Without --file, the variant is
//     the lab's plain correct answer, which must earn every point. Exit code 0 when the verdict is
//     the expected one, 1 when it differs (each difference names the check, the expected and the
//     seen status and the grader's message); "SKIPPED: ..." and 0 when part of it could not be
//     seen (no GPU, no compute-sanitizer), having checked everything else.
//     --cpu-judged (a build without a GPU that makes only the variants it can judge): a verdict
//     of which nothing decisive could be seen (no expected failure, no bound on the points) fails,
//     saying to mark the variant "Judged: gpu".
//
//   cudalab-variant mistakes DIR [--page PAGE [--write]]
//     The "Common mistakes" section made from the variants in DIR: printed, compared with the
//     section of PAGE between "<!-- common-mistakes:begin -->" and "<!-- common-mistakes:end -->"
//     (exit code 1 when it differs), or written there with --write.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "cudalab/cli.h"
#include "cudalab/cli_options.h"
#include "process.h"
#include "record.h"
#include "variant.h"

namespace {

using namespace cudalab::grade;
namespace fs = std::filesystem;

constexpr const char* kBegin = "<!-- common-mistakes:begin -->";
constexpr const char* kEnd = "<!-- common-mistakes:end -->";

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw cudalab::UsageError("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Variant load_variant(const std::string& path) {
  try {
    return parse_variant(read_file(path), fs::path(path).stem().string());
  } catch (const VariantError& e) {
    throw cudalab::UsageError(path + ": " + e.what());
  }
}

// No line of the grade's output may end this test as skipped by accident.
std::string defused(std::string s) {
  for (std::size_t at = 0; (at = s.find("SKIPPED:", at)) != std::string::npos;) s[at + 7] = ' ';
  return s;
}

int check(int argc, char** argv) {
  cxxopts::Options spec("cudalab-variant check", "Grade a variant and compare with its verdict");
  using cxxopts::value;
  // clang-format off
  spec.add_options()
      ("grade", "the grade command", value<std::string>())
      ("lab", "the lab, e.g. 04", value<std::string>())
      ("variant", "the variant's name", value<std::string>())
      ("file", "the variant (a .patch with its verdict); none: the plain answer", value<std::string>())
      ("link-check", "the variant's link check executable (Link: rejected)", value<std::string>())
      ("build-dir", "the build folder (Link: rejected)", value<std::string>())
      ("link-target", "the link check's target (Link: rejected)", value<std::string>())
      ("timeout", "seconds per check, unless the variant says (Timeout)", value<std::string>()->default_value("300"))
      ("cpu-judged", "built as a variant a machine without a GPU judges (CUDALAB_CPU_ONLY_VARIANTS): a verdict with nothing decisive seen fails")
      ("h,help", "show this help");
  // clang-format on
  const auto r = cudalab::parse_command_line(spec, argc, argv);
  for (const char* required : {"grade", "lab", "variant"})
    if (!r.count(required))
      throw cudalab::UsageError(std::string("--") + required + " is required");
  const std::string grade = r["grade"].as<std::string>();
  const std::string lab = r["lab"].as<std::string>();
  const std::string name = r["variant"].as<std::string>();
  const Variant v =
      r.count("file") ? load_variant(r["file"].as<std::string>()) : plain_answer_variant();
  // The header's Timeout (a variant that hangs need not wait out the default), else --timeout.
  const auto timeout = v.timeout_s > 0 ? v.timeout_s
                                       : cudalab::parse_int_in_range(r["timeout"].as<std::string>(),
                                                                     "--timeout", 1, 86400);

  if (v.link_rejected) {
    // The link check is left out of the build (it must fail to link); try it now, as a student's
    // build would, so the grade command sees what that build leaves.
    for (const char* required : {"link-check", "build-dir", "link-target"})
      if (!r.count(required))
        throw cudalab::UsageError(std::string("Link: rejected needs --") + required);
    std::remove(r["link-check"].as<std::string>().c_str());
    const ProcessResult b = run_process({"cmake", "--build", r["build-dir"].as<std::string>(),
                                         "--target", r["link-target"].as<std::string>()},
                                        {}, 600);
    std::cout << "link check " << (b.exit_code == 0 ? "linked" : "did not link") << ": "
              << last_lines(defused(b.output), 3) << "\n";
  }

  char records_path[] = "/tmp/cudalab-variant-XXXXXX";
  const int fd = mkstemp(records_path);
  if (fd < 0) throw std::runtime_error("cannot create a temporary file");
  close(fd);
  const std::string json = std::string(records_path) + ".json";
  std::vector<std::string> args = {grade,
                                   "--lab",
                                   lab,
                                   "--variant",
                                   name,
                                   "--records",
                                   records_path,
                                   "--json",
                                   json,
                                   "--color",
                                   "never",
                                   "--timeout",
                                   std::to_string(timeout)};
  if (!v.run.empty()) args.insert(args.end(), {"--checks", v.run});
  if (r.count("file")) {  // the plain answer runs every sanitizer of the lab
    const auto tools = sanitizers_named(v);
    // An expectation on every check ("*") covers the sanitizers too: run the full grade.
    const bool every_check = std::any_of(v.expectations.begin(), v.expectations.end(),
                                         [](const Expectation& e) { return e.check == "*"; });
    if (every_check) {
    } else if (tools.empty()) {
      args.push_back("--no-sanitize");
    } else {
      std::string list;
      for (const auto& t : tools) list += (list.empty() ? "" : ",") + t;
      // A variant can fail a correctness check and a sanitizer both: show the sanitizer's view.
      args.insert(args.end(), {"--sanitizers", list, "--sanitize-anyway"});
    }
  }
  std::string shown;
  for (const auto& a : args) shown += (shown.empty() ? "" : " ") + a;
  std::cout << "variant " << name << " of lab " << lab
            << (v.base == "skeleton" ? " (from the skeleton)" : "") << ": " << shown << "\n";
  const ProcessResult p = run_process(args, {}, static_cast<double>(timeout) * 100);
  std::vector<CheckRecord> records;
  try {
    records = read_records(records_path);
  } catch (const std::exception& e) {
    std::cout << "FAIL: malformed records from the grade command: " << e.what() << "\n";
    return cudalab::kExitFailure;
  }
  std::remove(records_path);
  std::remove(json.c_str());
  if (records.empty()) {
    std::cout << "FAIL: the grade command wrote no verdict (" << describe_ending(p, timeout * 100)
              << "):\n"
              << defused(last_lines(p.output, 20)) << "\n";
    return cudalab::kExitFailure;
  }

  const Judgement j = judge(v, records);
  for (const auto& s : j.verified) std::cout << "  as expected: " << s << "\n";
  for (const auto& s : j.unverifiable) std::cout << "  not seen:    " << defused(s) << "\n";
  for (const auto& s : j.violated) std::cout << "FAIL: " << defused(s) << "\n";
  if (!j.violated.empty()) {
    std::cout << "\nThe grade command's output:\n" << defused(p.output);
    return cudalab::kExitFailure;
  }
  if (j.decisive == 0 && !j.unverifiable.empty() && r.count("cpu-judged")) {
    // Built for nothing: a build without a GPU makes only the variants it can judge.
    std::cout << "FAIL: nothing of what " << name
              << " is about was seen without a GPU (no expected failure, no bound on its points), "
                 "in a build that makes only the variants a CPU can judge: give its header "
                 "'Judged: gpu' (docs/adding-a-lab.md)\n";
    return cudalab::kExitFailure;
  }
  if (!j.unverifiable.empty()) {
    std::cout << "SKIPPED: " << j.unverifiable.size() << " part(s) of the verdict not seen ("
              << j.unverifiable.front().substr(0, j.unverifiable.front().find('\n')) << "); "
              << j.verified.size() << " as expected\n";
    return cudalab::kExitOk;
  }
  std::cout << "verdict as expected (" << j.verified.size() << " part(s))\n";
  return cudalab::kExitOk;
}

int mistakes(int argc, char** argv) {
  cxxopts::Options spec("cudalab-variant mistakes", "The Common mistakes section of a lab page");
  using cxxopts::value;
  // clang-format off
  spec.add_options()
      ("dir", "the lab's variants folder", value<std::string>())
      ("page", "the lab page to compare with (or write, with --write)", value<std::string>())
      ("write", "write the section into the page")
      ("h,help", "show this help");
  // clang-format on
  spec.parse_positional({"dir"});
  const auto r = cudalab::parse_command_line(spec, argc, argv);
  if (!r.count("dir")) throw cudalab::UsageError("the variants folder is required");
  const std::string dir = r["dir"].as<std::string>();
  if (!fs::is_directory(dir)) throw cudalab::UsageError(dir + ": not a folder");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".patch") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  std::vector<Variant> variants;
  for (const auto& f : files) variants.push_back(load_variant(f));
  const std::string section = mistakes_markdown(variants);
  if (!r.count("page")) {
    std::cout << section;
    return cudalab::kExitOk;
  }
  const std::string page_path = r["page"].as<std::string>();
  const std::string page = read_file(page_path);
  const auto b = page.find(kBegin);
  const auto e = page.find(kEnd);
  if (b == std::string::npos || e == std::string::npos || e < b)
    throw cudalab::UsageError(page_path + ": no '" + kBegin + "' ... '" + kEnd + "' section");
  const std::size_t from = b + std::string(kBegin).size();
  const std::string current = page.substr(from, e - from);
  const std::string wanted = "\n" + section;
  if (current == wanted) {
    std::cout << page_path << ": Common mistakes match the " << variants.size() << " variants\n";
    return cudalab::kExitOk;
  }
  if (r.count("write")) {
    std::ofstream out(page_path);
    out << page.substr(0, from) << wanted << page.substr(e);
    if (!out) throw std::runtime_error("cannot write " + page_path);
    std::cout << page_path << ": Common mistakes written from " << variants.size() << " variants\n";
    return cudalab::kExitOk;
  }
  std::cout << page_path << ": the Common mistakes section differs from the variants in " << dir
            << "; run scripts/update-mistakes\n";
  return cudalab::kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  return cudalab::guarded_main("cudalab-variant", [&] {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "check") return check(argc - 1, argv + 1);
    if (command == "mistakes") return mistakes(argc - 1, argv + 1);
    throw cudalab::UsageError("the first argument must be 'check' or 'mistakes'");
  });
}
