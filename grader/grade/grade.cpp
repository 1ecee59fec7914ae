// cudalab-grade: grades the labs (the student files, or the reference solutions with
// --solutions), prints a table per lab and a summary, and writes a JSON report and optionally a
// Gradescope results.json and JUnit XML (through CTest).
//
// Each check runs in its own grader process with a time limit, so a crash or a hang costs that
// check only. Labs come from the manifest the build writes (cudalab-labs.tsv).
//
// The verdict is made here, never in a process that runs the student's code (docs/grading.md,
// "What the grader guarantees"): the checks and their points come from the solution's grader,
// which has no student code; each check's record comes back over a pipe with a per-run key the
// student's code cannot read (grader_main.cpp), exactly one per check; earned points are clamped
// to the check's; each grader process runs in a sandbox (bubblewrap) and nothing it starts
// outlives it; the report files are written here, last, by rename. Before a student's file (or a
// variant) is graded, the object the compiler made of it is audited (audit.h): a file that defines
// what is not its own, loads libraries, opens files, starts processes, makes system calls, runs
// before the grader's constructor or includes the reference fails every check of its lab.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "audit.h"
#include "cudalab/cli.h"
#include "cudalab/cli_options.h"
#include "cudalab/device_info.h"
#include "gpu_lock.h"
#include "grading.h"
#include "policy.h"
#include "process.h"
#include "profile.h"
#include "profile_cache.h"
#include "record.h"
#include "report.h"
#include "sanitizer_output.h"
#include "variant.h"

namespace {

using namespace cudalab::grade;

struct LabEntry {
  std::string id, name, student_grader, solution_grader;
  std::vector<std::string> sanitizers;
  std::string link_check;  // built only if the student's file links on its own
  // What the audit of the candidate needs (audit.h): the build's ninja ("" when the build is not
  // made by Ninja), the folders a lab file may include, the candidate's source and object(s).
  std::string ninja;
  std::vector<std::string> include_dirs;
  std::string source;
  std::vector<std::string> objects;
};

struct Options {
  std::vector<std::string> labs;  // empty: all
  bool solutions = false;
  std::string variant;                  // grade this variant of the lab (the grader's own tests)
  std::string checks;                   // Catch2 test spec: run only these checks ("" for all)
  std::vector<std::string> sanitizers;  // run only these tools (empty: every tool of the lab)
  bool sanitize_anyway = false;         // run the sanitizers even when a correctness check failed
  std::string records;                  // also write the check records here
  std::string sandbox = "auto";         // auto | on | off
  long long memory_gib = 32;            // RLIMIT_DATA of each grader process
  Sandbox box;                          // made once per run
  std::uint64_t seed = kDefaultSeed;
  double timeout_s = 300;
  int jobs = 0;               // processes at once for the untimed checks (0: auto)
  int sanitizer_checks = -1;  // correctness checks per sanitizer process (0: all of the lab's;
                              // -1: auto, sanitizer_group_size)
  bool sanitize = true;
  bool profile = true;  // on a GPU, the profile of each [profile] performance check
  // Where the reference's profiles are kept between grades, and what they depend on besides the
  // lab (the GPU, its driver, the seed, cudalab-serve): profile_cache.h. Set once a GPU is found.
  std::string profile_cache, profile_key;
  bool isolate = false;  // every check in a process of its own (run_checks)
  GpuLock gpu_lock;      // shared with the other grades on this GPU (gpu_lock.h); none by default
  bool list = false;
  std::string json, gradescope, junit;
  bool color = false;
  std::string manifest = CUDALAB_MANIFEST;
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

// The lab manifest the build writes (cudalab_finish_labs): one line per lab, id <tab> name <tab>
// student grader <tab> solution grader <tab> sanitizer tools <tab> link check <tab> ninja <tab>
// lab folder <tab> common/include <tab> student source <tab> student object(s), ';'-separated.
std::vector<LabEntry> read_manifest(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("no lab manifest at " + path + " (build the project first)");
  std::vector<LabEntry> labs;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto f = split(line, '\t');
    if (f.size() != 11)
      throw std::runtime_error("malformed line in " + path + " (re-run cmake): " + line);
    LabEntry e{f[0], f[1], f[2], f[3], {}, f[5], f[6], {f[7], f[8]}, f[9], split(f[10], ';')};
    if (!f[4].empty()) e.sanitizers = split(f[4], ',');
    labs.push_back(e);
  }
  return labs;
}

// A file in the build folder, where the lab manifest is.
std::string beside_manifest(const Options& o, const std::string& name) {
  return o.manifest.substr(0, o.manifest.find_last_of('/') + 1) + name;
}

// The variants manifest the build writes beside the lab manifest: one line per variant,
// lab id <tab> variant <tab> grader <tab> link check (or nothing) <tab> source <tab> object(s).
LabEntry variant_entry(const LabEntry& lab, const Options& o) {
  const std::string path = beside_manifest(o, "cudalab-variants.tsv");
  std::ifstream in(path);
  if (!in)
    throw std::runtime_error("no variants manifest at " + path + " (build the project first)");
  std::string line, known;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const auto f = split(line, '\t');
    if (f.size() != 6)
      throw std::runtime_error("malformed line in " + path + " (re-run cmake): " + line);
    if (f[0] != lab.id) continue;
    if (f[1] == o.variant) {
      LabEntry e = lab;
      e.student_grader = f[2];
      e.link_check = f[3];
      e.source = f[4];
      e.objects = split(f[5], ';');
      return e;
    }
    known += (known.empty() ? "" : ", ") + f[1];
  }
  throw cudalab::UsageError("lab " + lab.id + " has no variant '" + o.variant +
                            "' (variants: " + known + ")");
}

Options parse(int argc, char** argv) {
  cxxopts::Options spec("cudalab-grade", "Grade the CUDA labs");
  using cxxopts::value;
  // clang-format off
  spec.add_options()
      ("lab", "lab(s) to grade, e.g. --lab 01 or --lab 01,02 (default: all)",
       value<std::vector<std::string>>())
      ("solutions", "grade the reference solutions instead of the student files")
      ("variant", "grade a variant of one lab (grader/labs/NN-name/variants/NAME.patch, or "
       "'answer') instead of the student's file", value<std::string>())
      ("checks", "run only the checks this Catch2 test spec selects (the others: skipped)",
       value<std::string>())
      ("sanitizers", "run only these compute-sanitizer tools, e.g. memcheck,racecheck",
       value<std::string>())
      ("sanitize-anyway", "run the sanitizers even when a correctness check failed")
      ("records", "also write the check records (one line per check) here", value<std::string>())
      ("seed", "seed of the generated inputs (an instructor's secret seed)", value<std::string>())
      ("timeout", "seconds allowed per check", value<std::string>()->default_value("300"))
      ("jobs", "untimed checks (correctness, technique, sanitizers) run this many at once; "
       "timed checks always run alone (default: auto, from the CPUs and the GPU's memory)",
       value<std::string>()->default_value("auto"))
      ("sanitizer-checks", "correctness checks per compute-sanitizer process; 0: all of a lab's "
       "in one (fewer tool start-ups), 1: one each (more in parallel); default: all of a lab's "
       "when several labs are graded, spread over the jobs when one is",
       value<std::string>()->default_value("auto"))
      ("memory-limit", "GiB of heap each grader process may use (RLIMIT_DATA)",
       value<std::string>()->default_value("32"))
      ("sandbox", "run each check in a bubblewrap sandbox: auto (when bwrap works here), on "
       "(required) or off", value<std::string>()->default_value("auto"))
      ("no-sanitize", "skip the compute-sanitizer checks")
      ("isolate", "run every check in a grader process of its own (slower: by default a lab's "
       "untimed checks share a few processes and its timed checks one more, and a check that "
       "fails there is run again alone)")
      ("gpu-lock", "a lock file that every grade on this GPU names: their untimed checks run "
       "side by side, each grade's timed checks with nothing else on the GPU (the batch's and "
       "the service's workers, several on a GPU)", value<std::string>())
      ("no-profile", "leave out the profile of the performance case (the student's kernel beside "
       "the reference's, read from the GPU's counters)")
      ("json", "write the JSON report here (default: grade-report.json in the build folder)",
       value<std::string>())
      ("gradescope", "also write a Gradescope results.json here", value<std::string>())
      ("junit", "also write JUnit XML here (runs the same checks through CTest)",
       value<std::string>())
      ("color", "auto, always or never", value<std::string>()->default_value("auto"))
      ("list", "list the labs and exit")
      ("manifest", "lab manifest written by the build", value<std::string>())
      ("h,help", "show this help");
  // clang-format on
  const cxxopts::ParseResult r = cudalab::parse_command_line(spec, argc, argv);
  Options o;
  if (r.count("lab"))
    for (const auto& l : r["lab"].as<std::vector<std::string>>())
      if (!l.empty()) o.labs.push_back(l);
  o.solutions = r.count("solutions") > 0;
  if (r.count("variant")) o.variant = r["variant"].as<std::string>();
  if (!o.variant.empty() && (o.solutions || o.labs.size() != 1))
    throw cudalab::UsageError("--variant needs exactly one --lab, and no --solutions");
  if (r.count("checks")) o.checks = r["checks"].as<std::string>();
  if (r.count("checks") && o.checks.empty()) throw cudalab::UsageError("--checks: empty test spec");
  if (r.count("sanitizers")) {
    o.sanitizers = split(r["sanitizers"].as<std::string>(), ',');
    for (const auto& t : o.sanitizers)
      cudalab::parse_choice(t, "--sanitizers", {"memcheck", "racecheck", "synccheck", "initcheck"});
    if (o.sanitizers.empty()) throw cudalab::UsageError("--sanitizers: no tool named");
  }
  o.sanitize_anyway = r.count("sanitize-anyway") > 0;
  if (r.count("records")) o.records = r["records"].as<std::string>();
  if (r.count("seed"))
    o.seed = cudalab::parse_seed(r);
  else if (const char* env = std::getenv("CUDALAB_SEED"))
    o.seed =
        static_cast<std::uint64_t>(cudalab::parse_int_in_range(env, "CUDALAB_SEED", 0, LLONG_MAX));
  o.timeout_s = static_cast<double>(
      cudalab::parse_int_in_range(r["timeout"].as<std::string>(), "--timeout", 1, 86400));
  if (const std::string jobs = r["jobs"].as<std::string>(); jobs != "auto")
    o.jobs = static_cast<int>(cudalab::parse_int_in_range(jobs, "--jobs", 1, 64));
  if (const std::string per = r["sanitizer-checks"].as<std::string>(); per != "auto")
    o.sanitizer_checks =
        static_cast<int>(cudalab::parse_int_in_range(per, "--sanitizer-checks", 0, 1000));
  o.sanitize = r.count("no-sanitize") == 0;
  o.profile = r.count("no-profile") == 0;
  o.isolate = r.count("isolate") > 0;
  if (r.count("gpu-lock")) {
    const std::string path = r["gpu-lock"].as<std::string>();
    if (path.empty()) throw cudalab::UsageError("--gpu-lock: empty path");
    o.gpu_lock = GpuLock(path);
    try {
      o.gpu_lock.check_usable();
    } catch (const std::exception& e) {
      throw cudalab::UsageError(std::string("--gpu-lock: ") + e.what());
    }
  }
  o.memory_gib =
      cudalab::parse_int_in_range(r["memory-limit"].as<std::string>(), "--memory-limit", 1, 4096);
  o.sandbox =
      cudalab::parse_choice(r["sandbox"].as<std::string>(), "--sandbox", {"auto", "on", "off"});
  o.list = r.count("list") > 0;
  if (r.count("manifest")) o.manifest = r["manifest"].as<std::string>();
  o.json = r.count("json") ? r["json"].as<std::string>() : beside_manifest(o, "grade-report.json");
  if (r.count("gradescope")) o.gradescope = r["gradescope"].as<std::string>();
  if (r.count("junit")) o.junit = r["junit"].as<std::string>();
  const std::string color = r["color"].as<std::string>();
  if (color == "always")
    o.color = true;
  else if (color == "never")
    o.color = false;
  else if (color == "auto")
    o.color = isatty(STDOUT_FILENO) && std::getenv("NO_COLOR") == nullptr;
  else
    throw cudalab::UsageError("--color must be auto, always or never, got '" + color + "'");
  return o;
}

std::vector<LabEntry> select_labs(const std::vector<LabEntry>& all, const Options& o) {
  if (o.labs.empty()) return all;
  std::vector<LabEntry> chosen;
  std::set<std::string> seen;
  for (const auto& want : o.labs) {
    bool found = false;
    for (const auto& e : all) {
      if (want == e.id || want == e.id + "-" + e.name || want == e.name) {
        if (seen.insert(e.id).second) chosen.push_back(e);
        found = true;
      }
    }
    if (!found) {
      std::string known;
      for (const auto& e : all) known += (known.empty() ? "" : ", ") + e.id;
      throw cudalab::UsageError("unknown lab '" + want + "' (labs: " + known + ")");
    }
  }
  return chosen;
}

// Catch2 reads ',', '[', ']', '*', '"', '~' and '\' in a test spec; escape them for exact names.
std::string exact_spec(const std::string& name) {
  std::string out;
  for (const char c : name) {
    if (std::string(",[]*\"~\\").find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

class Progress {
 public:
  explicit Progress(bool tty) : tty_(tty) {}
  void show(const std::string& text) {
    if (!tty_) return;
    std::cerr << "\r\033[K" << text << std::flush;
  }
  void clear() {
    if (tty_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  bool tty_;
};

// Wall time since construction.
class Stopwatch {
 public:
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

// A grader's settings: the seed, then `extra` (a mode, e.g. CUDALAB_PROFILE=candidate).
std::vector<std::string> grader_env(const Options& o, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> env{"CUDALAB_SEED=" + std::to_string(o.seed)};
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

// 32 hex digits from the kernel's random source.
std::string random_key() {
  unsigned char bytes[16];
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  if (!urandom.read(reinterpret_cast<char*>(bytes), sizeof bytes))
    throw std::runtime_error("cannot read /dev/urandom");
  static const char* const hex = "0123456789abcdef";
  std::string key;
  for (const unsigned char b : bytes) key += {hex[b >> 4], hex[b & 15]};
  return key;
}

// Seconds since this grade command started (a steady clock).
double since_start() {
  static const auto start = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// For the maintainers' measurements of where a grade's time goes: with CUDALAB_TIMELINE=FILE in
// the grade command's environment, one line per grader process it ran (start and end in seconds
// since it started, its program, its settings other than the seed, its checks) appended to FILE.
void note_timeline(double started, const std::vector<std::string>& argv,
                   const std::vector<std::string>& grader_args,
                   const std::map<std::string, std::string>& settings) {
  static const char* const path = std::getenv("CUDALAB_TIMELINE");
  if (path == nullptr || *path == '\0') return;
  std::ostringstream line;
  line << std::fixed << std::setprecision(2) << started << '\t' << since_start() << '\t';
  for (const std::string& a : argv) line << a.substr(a.find_last_of('/') + 1) << ' ';
  line << '\t';
  for (const auto& [name, kv] : settings)
    if (name != "CUDALAB_SEED") line << kv << ' ';
  line << '\t';
  for (const std::string& a : grader_args) line << a << ' ';
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::ofstream(path, std::ios::app) << line.str() << '\n';
}

struct ChannelRun {
  ProcessResult process;
  std::vector<CheckRecord> records;  // those that came with the key, in order
  int foreign = 0;                   // lines on the channel without the key (or malformed)
};

// Runs a grader (or compute-sanitizer on one) in the sandbox with the record channel: a pipe
// holding a fresh key, which the grader reads before any student code runs, and a pipe for the
// records, each of which must start with that key. The grader's settings (CUDALAB_* of `env` and
// of this process's environment: the seed, the modes) and its arguments (`grader_args`: which
// checks) travel in the key's pipe after the key, one NAME=VALUE a line (the arguments as
// CUDALAB_ARGS, separated by \x1f), and are in no process's environment or command line:
// the sandbox's first process (bubblewrap's) and compute-sanitizer's keep the environment and
// command line they started with, which any process of the check can read in /proc, the
// student's among them. Of the rest of this process's environment only kGraderEnvironment goes.
ChannelRun run_with_channel(const std::vector<std::string>& argv,
                            const std::vector<std::string>& grader_args,
                            std::vector<std::string> env, double timeout_s, const Options& o) {
  std::map<std::string, std::string> settings;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "CUDALAB_", 8) == 0) {
      const std::string kv = *e;
      settings[kv.substr(0, kv.find('='))] = kv;
    }
  std::vector<std::string> plain;
  for (const std::string& kv : env)
    if (kv.rfind("CUDALAB_", 0) == 0)
      settings[kv.substr(0, kv.find('='))] = kv;
    else
      plain.push_back(kv);
  settings.erase("CUDALAB_CHANNEL");
  settings.erase("CUDALAB_ARGS");
  settings.erase("CUDALAB_TIMELINE");
  if (!grader_args.empty()) {
    std::string joined = "CUDALAB_ARGS=";
    for (std::size_t i = 0; i < grader_args.size(); ++i)
      joined += (i == 0 ? "" : "\x1f") + grader_args[i];
    settings["CUDALAB_ARGS"] = joined;
  }
  const std::string key = random_key();
  std::string message = key;
  for (const auto& [name, kv] : settings)
    if (kv.find('\n') == std::string::npos) message += kv + "\n";
  // Written whole before the grader starts: it must fit the pipe (64 KiB on Linux).
  if (message.size() > 60000)
    throw std::runtime_error("the CUDALAB_ settings are too long for the record channel");
  int key_fds[2], record_fds[2];
  if (pipe2(key_fds, O_CLOEXEC) != 0 || pipe2(record_fds, O_CLOEXEC) != 0)
    throw std::runtime_error("cannot create the record channel");
  const bool sent =
      write(key_fds[1], message.data(), message.size()) == static_cast<ssize_t>(message.size());
  close(key_fds[1]);
  if (!sent) throw std::runtime_error("cannot write the record channel's key");
  env = plain;
  env.push_back("CUDALAB_CHANNEL=" + std::to_string(key_fds[0]) + "," +
                std::to_string(record_fds[1]));
  ProcessOptions options;
  options.keep_env = kGraderEnvironment;  // no CUDALAB_* (above), nothing of the caller's own
  options.inherit = {key_fds[0], record_fds[1]};  // closed here by run_process
  options.capture_fd = record_fds[0];
  options.sandbox = o.box.prefix;
  options.data_limit_bytes = static_cast<std::size_t>(o.memory_gib) << 30;
  ChannelRun run;
  const double started = since_start();
  try {
    run.process = run_process(argv, env, timeout_s, options);
  } catch (...) {
    close(record_fds[0]);
    throw;
  }
  close(record_fds[0]);
  note_timeline(started, argv, grader_args, settings);
  std::istringstream lines(run.process.captured);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.size() <= key.size() || line.compare(0, key.size(), key) != 0 ||
        line[key.size()] != '\t') {
      ++run.foreign;
      continue;
    }
    try {
      run.records.push_back(parse_record(line.substr(key.size() + 1)));
    } catch (const std::exception&) {
      ++run.foreign;
    }
  }
  return run;
}

// The checks `spec` selects, in declaration order, without running them; throws when there are
// none unless `allow_none`. Call it on the solution's grader only: the list (and the points) must
// not come from a process that runs the student's code.
std::vector<CheckRecord> list_checks(const std::string& exe, const std::string& spec,
                                     const Options& o, bool allow_none = false) {
  auto env = grader_env(o);
  env.push_back("CUDALAB_LIST_CHECKS=1");
  // Declaration order: the grade command relies on correctness checks coming before the timed
  // ones (Catch2 3.9 and later shuffle by default).
  const ChannelRun run = run_with_channel({exe}, {spec, "--order", "decl"}, env, 120, o);
  if (run.records.empty() && !allow_none)
    throw std::runtime_error("could not list the checks of " + exe + " (" +
                             describe_ending(run.process, 120) +
                             "): " + last_lines(run.process.output, 3));
  return run.records;
}

CheckRecord failed_check(const CheckRecord& listed, const std::string& message) {
  CheckRecord r = listed;
  r.status = "failed";
  r.earned = 0.0;
  r.message = message;
  return r;
}

// `r` as the list has its check: its name, tags and points; earned points clamped to them and
// agreeing with the status (none unless passed or partial).
CheckRecord as_listed(CheckRecord r, const CheckRecord& listed) {
  r.name = listed.name;
  r.tags = listed.tags;
  r.points = listed.points;
  r.earned = r.status == "passed"    ? r.points
             : r.status == "partial" ? std::clamp(r.earned, 0.0, static_cast<double>(r.points))
                                     : 0.0;
  return r;
}

CheckRecord grading_error(const CheckRecord& listed, const std::exception& e) {
  return failed_check(listed, std::string("grading error: ") + e.what());
}

// The verdict of one check from what came back: exactly one keyed record, for this check, from a
// grader that then exited normally. Its name, tags and points are the list's; earned points are
// clamped to them and agree with the status.
CheckRecord run_check(const std::string& exe, const CheckRecord& listed, const Options& o,
                      const std::vector<std::string>& extra_env = {}) {
  const ChannelRun run =
      run_with_channel({exe}, {exact_spec(listed.name)}, grader_env(o, extra_env), o.timeout_s, o);
  const ProcessResult& p = run.process;
  const std::string ending = describe_ending(p, o.timeout_s);
  const std::string tail = last_lines(p.output, 5);
  const std::string output = tail.empty() ? "" : ":\n" + tail;
  if (run.foreign > 0)
    return failed_check(listed, "the grader's record channel carried " +
                                    std::to_string(run.foreign) +
                                    " line(s) not written by the grader (forged records?)");
  if (run.records.empty())
    return failed_check(
        listed, "the grader process ended before the check finished (" + ending + ")" + output);
  if (run.records.size() > 1 || run.records.front().name != listed.name)
    return failed_check(listed, "the grader sent " + std::to_string(run.records.size()) +
                                    " record(s) for this check, not exactly one");
  if (run.records.front().status == "listed")
    return failed_check(listed, "the grader listed the check instead of running it");
  const CheckRecord r = as_listed(run.records.front(), listed);
  const bool counted = r.status == "passed" || r.status == "partial";
  if (counted && (p.timed_out || p.signal != 0 || p.exit_code != 0))
    return failed_check(listed, "the grader process did not end normally after the check (" +
                                    ending + ")" + output);
  return r;
}

// Several untimed checks of a lab in one grader process: the grader, its CUDA context and the
// candidate's and reference's processes start once for all of them rather than once each (on an
// H200, starting them took most of a correctness check's 0.6 s, and the starts of parallel
// checks wait for each other in the driver). Nothing the verdict depends on moves: the judge
// still owns every check's inputs, expected values and comparison. A record of the group is kept
// only when the process ended as a grader does, with exactly one keyed record per check (no
// crash, time-out, signal or foreign line); and only if the check passed (or earned partial
// credit, or was skipped): a check that failed, and every check of a group that did not end so,
// gets its verdict from a process of its own (run_check), so that what an earlier check of the
// group left behind (memory the file did not free, its state) never costs a check its points.
// With `confirm_alone` (several labs graded at once) that run has the GPU to itself (the
// lock held exclusive: no other process of this grade, nor of a grade sharing the GPU, runs
// meanwhile), so that what another lab's checks hold (its GPU memory, its turns on the GPU) never
// fails a check either. `counted`: the check reads the GPU's counters (gpu_lock.h).
// `seconds` gets each check's share of the group's time plus its own run's. `extra_env`: settings
// of every run, the group's and each check's alone (CUDALAB_PROFILE=candidate for a counted group
// that also profiles the candidate).
std::vector<CheckRecord> run_checks(const std::string& exe, const std::vector<CheckRecord>& checks,
                                    const Options& o, std::vector<double>* seconds, bool counted,
                                    bool confirm_alone,
                                    const std::vector<std::string>& extra_env = {},
                                    bool take_lock = true) {
  std::vector<CheckRecord> results(checks.size());
  seconds->assign(checks.size(), 0.0);
  std::vector<bool> decided(checks.size(), false);
  const auto alone = [&](std::size_t i) {  // check i in a process of its own
    const Stopwatch time;
    try {
      results[i] = run_check(exe, checks[i], o, extra_env);
    } catch (const std::exception& e) {
      results[i] = grading_error(checks[i], e);
    }
    (*seconds)[i] += time.seconds();
  };
  {
    const GpuLock::Hold hold = take_lock ? o.gpu_lock.shared(counted) : GpuLock::Hold();
    if (checks.size() > 1 && !o.isolate) {
      const Stopwatch time;
      std::string spec;  // Catch2: a comma between test specs means "or"
      for (const auto& c : checks) spec += (spec.empty() ? "" : ",") + exact_spec(c.name);
      ChannelRun run;
      bool clean = true;
      try {
        run = run_with_channel({exe}, {spec, "--order", "decl"}, grader_env(o, extra_env),
                               o.timeout_s * static_cast<double>(checks.size()), o);
      } catch (const std::exception&) {
        clean = false;  // each check alone says what went wrong
      }
      const ProcessResult& p = run.process;
      std::map<std::string, std::vector<const CheckRecord*>> by_name;
      for (const CheckRecord& r : run.records) by_name[r.name].push_back(&r);
      clean = clean && !p.timed_out && p.signal == 0 && run.foreign == 0 &&
              run.records.size() == checks.size();
      std::size_t failed = 0;
      for (const CheckRecord& c : checks) {
        const auto it = by_name.find(c.name);
        if (it == by_name.end() || it->second.size() != 1) {
          clean = false;
          continue;
        }
        const std::string& status = it->second.front()->status;
        if (status != "passed" && status != "partial" && status != "failed" && status != "skipped")
          clean = false;
        failed += status == "failed";
      }
      // A grader exits non-zero when a check failed; with none failed, a non-zero exit is a
      // process that did not end as a grader does.
      if (failed == 0 && p.exit_code != 0) clean = false;
      const double share = time.seconds() / static_cast<double>(checks.size());
      for (std::size_t i = 0; i < checks.size(); ++i) {
        (*seconds)[i] = share;
        if (!clean) continue;
        const CheckRecord& got = *by_name[checks[i].name].front();
        if (got.status == "failed") continue;
        results[i] = as_listed(got, checks[i]);
        decided[i] = true;
      }
    } else {
      for (std::size_t i = 0; i < checks.size(); ++i) {
        alone(i);
        decided[i] = !confirm_alone || results[i].status != "failed";
      }
    }
  }
  for (std::size_t i = 0; i < checks.size(); ++i) {
    if (decided[i]) continue;
    const GpuLock::Hold hold = !take_lock      ? GpuLock::Hold()
                               : confirm_alone ? o.gpu_lock.exclusive()
                                               : o.gpu_lock.shared(counted);
    alone(i);
  }
  return results;
}

// Whether compute-sanitizer <tool> runs on this lab: a record that says why not (skipped, or
// failed when the correctness checks failed), or one with an empty status when it runs.
// `selected`: whether any selected correctness check is there to run under it.
CheckRecord sanitizer_precondition(const LabEntry& lab, const std::string& tool, bool selected,
                                   bool correctness_passed, const GradeReport& report,
                                   const Options& o) {
  CheckRecord r;
  r.name = "compute-sanitizer " + tool;
  r.tags = "[lab" + lab.id + "][sanitize]";
  r.points = lab_policy(lab.id).sanitizer_points;
  r.status = "skipped";
  const std::string sanitizer = CUDALAB_SANITIZER;
  if (!report.has_device) {
    r.message = report.no_device_reason;
  } else if (selected && !correctness_passed && !o.sanitize_anyway) {
    // Its verdict is known without the tool, even where the tool would not run.
    r.status = "failed";
    r.message = "not run: the correctness checks must pass first";
  } else if (!o.sanitize) {
    r.message = "disabled by --no-sanitize";
  } else if (!o.sanitizers.empty() &&
             std::find(o.sanitizers.begin(), o.sanitizers.end(), tool) == o.sanitizers.end()) {
    r.message = "not run: not selected by --sanitizers";
  } else if (!selected) {
    r.message = std::string(kNotSelected) + " (no selected correctness check to run under it)";
  } else if (sanitizer.empty() || access(sanitizer.c_str(), X_OK) != 0) {
    r.message = "compute-sanitizer not found";
  } else {
    r.status = "";
  }
  return r;
}

// Some correctness checks under the tool, in a process of their own (--sanitizer-checks per
// process; the parts of one tool run in parallel). Starting the tool costs about a second, so
// when several labs are graded a lab's checks share one process per tool (a lab graded alone
// spreads them over the jobs: schedule_sanitizers). The grader knows it is under a sanitizer
// (CUDALAB_SANITIZE=1: its smallest inputs that still run every path) and allocates exact sizes
// (CUDALAB_GUARD_BYTES=0: no guard zone absorbs an out-of-bounds access before memcheck sees it).
// The report needs the first hazards and the device frames only (the message shows 12 lines):
// no host backtraces (an unwinding of the stripped grader for each hazard) and 16 hazards
// printed at most (the exit code still counts them all).
struct SanitizerPart {
  std::vector<std::string> checks;  // the correctness checks' names
  ChannelRun run;
};

// A sanitizer process's time limit: 4 times the per-check limit for each check it runs.
double sanitizer_limit_s(const Options& o, std::size_t checks) {
  return o.timeout_s * 4 * static_cast<double>(checks);
}

SanitizerPart run_sanitizer_part(const std::string& exe, const std::string& tool,
                                 const std::vector<std::string>& checks, const Options& o) {
  auto env = grader_env(o);
  env.push_back("CUDALAB_GUARD_BYTES=0");
  env.push_back("CUDALAB_SANITIZE=1");
  std::string spec;  // Catch2: a comma between test specs means "or"
  for (const auto& c : checks) spec += (spec.empty() ? "" : ",") + exact_spec(c);
  return {checks, run_with_channel({CUDALAB_SANITIZER, "--tool", tool, "--error-exitcode", "86",
                                    "--show-backtrace", "device", "--print-limit", "16", exe},
                                   {spec}, env, sanitizer_limit_s(o, checks.size()), o)};
}

std::string quoted_list(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i == 0 ? "'" : i + 1 == names.size() ? " or '" : ", '") + names[i] + "'";
  return out;
}

// The tool's verdict from its parts: every part must come back with exactly one passing record
// for its check (skipped only where the plain run skipped it too: a grader that exits early, or
// skips its checks, under the tool does not pass) and no hazard reported.
CheckRecord combine_sanitizer_parts(CheckRecord r, const std::string& tool,
                                    const std::vector<SanitizerPart>& parts,
                                    const std::set<std::string>& skipped_plain, const Options& o) {
  for (const SanitizerPart& part : parts) {
    const ProcessResult& p = part.run.process;
    // racecheck reports a missing barrier as a "Warning: Race reported", which leaves the exit
    // code at 0: any reported hazard fails the check.
    const bool hazards = p.exit_code != 0 || sanitizer_reported_hazards(p.output);
    std::string incomplete =
        sanitizer_records_problem(part.checks, part.run.records, skipped_plain);
    if (incomplete.empty() && part.run.foreign > 0)
      incomplete =
          std::to_string(part.run.foreign) + " line(s) on the record channel not from the grader";
    if (!hazards && incomplete.empty()) continue;
    r.status = "failed";
    r.earned = 0.0;
    if (!hazards) {
      r.message = "under compute-sanitizer " + tool + ": " + incomplete + " (" +
                  describe_ending(p, sanitizer_limit_s(o, part.checks.size())) + ")";
      if (const std::string tail = last_lines(p.output, 4); !tail.empty())
        r.message += ":\n" + tail;
      return r;
    }
    std::string lines;
    std::istringstream in(p.output);
    std::string line;
    int shown = 0;
    while (std::getline(in, line))
      if (line.rfind("========= ", 0) == 0 && line.find("Host Frame") == std::string::npos &&
          shown++ < 12)
        lines += line + "\n";
    const bool reported = p.exit_code == 86 || p.exit_code == 0;
    r.message = (reported ? "compute-sanitizer " + tool + " reported hazards"
                          : "under compute-sanitizer: " +
                                describe_ending(p, sanitizer_limit_s(o, part.checks.size()))) +
                (part.checks.size() == 1 ? " in check " : " in one of the checks ") +
                quoted_list(part.checks) + ":\n" +
                (lines.empty() ? last_lines(p.output, 8) : lines);
    return r;
  }
  r.status = "passed";
  r.earned = r.points;
  std::size_t checks = 0;
  for (const SanitizerPart& part : parts) checks += part.checks.size();
  r.message = "no hazards reported (" + std::to_string(checks) + " check(s) under the tool)";
  return r;
}

// Runs jobs on a fixed number of threads, and jobs of the serial lane one at a time on a thread of
// their own (so that waiting for the lane holds none of the others); a job may add more. wait()
// returns when every job added so far, and every job they added, has finished.
class JobPool {
 public:
  enum class Lane { any, serial };
  explicit JobPool(int workers) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this] { work(Lane::any); });
    threads_.emplace_back([this] { work(Lane::serial); });
  }
  JobPool(const JobPool&) = delete;
  JobPool& operator=(const JobPool&) = delete;
  ~JobPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_) t.join();
  }
  void add(std::function<void()> job, Lane lane = Lane::any) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue(lane).push_back(std::move(job));
      ++pending_;
    }
    ready_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    idle_.wait(lock, [this] { return pending_ == 0; });
  }

 private:
  std::deque<std::function<void()>>& queue(Lane lane) {
    return lane == Lane::serial ? serial_ : any_;
  }
  void work(Lane lane) {
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [&] { return stopping_ || !queue(lane).empty(); });
        if (queue(lane).empty()) return;
        job = std::move(queue(lane).front());
        queue(lane).pop_front();
      }
      job();  // jobs catch their own exceptions
      std::lock_guard<std::mutex> lock(mutex_);
      if (--pending_ == 0) idle_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_, idle_;
  std::deque<std::function<void()>> any_, serial_;
  std::size_t pending_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

// How many untimed checks run at once: --jobs, or the CPUs (at most 8), fewer on a GPU with
// little memory (a grader process may use a few GiB of it).
int untimed_jobs(const Options& o, const GradeReport& report) {
  if (o.jobs > 0) return o.jobs;
  int jobs = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
  if (report.has_device) {
    const double gib = static_cast<double>(report.device_memory_bytes) / (1ull << 30);
    jobs = std::clamp(static_cast<int>(gib / 6.0), 1, jobs);
  }
  return jobs;
}

std::string utc_now() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// Written whole or not at all: into a temporary file beside it, then renamed over it.
void write_file(const std::string& path, const std::string& text) {
  const std::string temp = path + ".partial-" + std::to_string(getpid());
  {
    std::ofstream out(temp, std::ios::trunc);
    if (!(out << text).flush()) throw std::runtime_error("cannot write " + temp);
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    std::remove(temp.c_str());
    throw std::runtime_error("cannot write " + path);
  }
}

void write_junit(const Options& o, const std::vector<LabEntry>& labs) {
  std::string ids;
  for (const auto& l : labs) ids += (ids.empty() ? "" : "|") + std::string("lab") + l.id;
  const std::string build_dir = beside_manifest(o, ".");
  const ProcessResult p = run_process(
      {"ctest", "--test-dir", build_dir, "-L",
       "^(" + ids + ")/" + (o.solutions ? "solution/" : "student/"), "--output-junit", o.junit},
      {"CUDALAB_SEED=" + std::to_string(o.seed)}, 3600);
  if (p.timed_out || p.signal != 0)
    throw std::runtime_error("ctest for JUnit failed: " + describe_ending(p, 3600));
  std::cout << "JUnit XML (via CTest): " << o.junit << "\n";
}

bool executable(const std::string& path) {
  return access(path.c_str(), X_OK) == 0;
}

// The audit of the candidate's object (audit.h): "" when it passes, else why no check passes;
// its notes are added to `notes`.
std::string audit(const LabEntry& lab, const Options& o, std::string* notes) {
  AuditSubject subject{lab.id, lab.objects, lab.source, lab.include_dirs};
  AuditTools tools;
  tools.readelf = CUDALAB_READELF;
  tools.objdump = CUDALAB_OBJDUMP;
  tools.ninja = lab.ninja;
  tools.build_dir = std::filesystem::absolute(beside_manifest(o, "")).string();
  tools.source_dir = CUDALAB_SOURCE_DIR;
  tools.system_include_prefixes = split(CUDALAB_SYSTEM_INCLUDE_DIRS, ':');
  const AuditResult result = audit_candidate(subject, tools);
  for (const auto& note : result.notes) *notes += "Audit of lab " + lab.id + ": " + note + "\n";
  return result.verdict;
}

// One lab's grading: what the audit and the listing decided, then every check's result.
struct LabRun {
  explicit LabRun(const LabEntry& e) : lab(e) {}
  LabEntry lab;
  std::string exe;                          // the grader that runs the candidate's code
  std::vector<CheckRecord> listed;          // from the solution's grader
  std::vector<CheckRecord> results;         // one per listed check, then one per sanitizer tool
  std::vector<double> seconds;              // of each result's process(es)
  std::vector<std::size_t> untimed, timed;  // the selected checks, indices into listed
  std::vector<std::string> sanitized;       // the correctness checks the sanitizers run
  std::set<std::string> skipped_plain;      // checks whose plain run was skipped
  bool correctness_passed = true;
  bool finished = false;  // nothing more to run (not built, banned, a grading error)
  std::size_t untimed_left = 0;
  std::vector<std::vector<SanitizerPart>> parts;  // per sanitizer tool
  // The two runs of each [profile] check's profile (the candidate's, the reference's), by index in
  // listed.
  std::map<std::size_t, std::vector<CheckRecord>> profiles;
  std::string audit_notes;
  double prepare_seconds = 0.0;
  std::mutex mutex;  // results, parts and the counters above, while jobs run
};

// The progress line, shared by the jobs.
class SharedProgress {
 public:
  explicit SharedProgress(bool tty) : line_(tty) {}
  void planned(std::size_t n) {
    std::lock_guard<std::mutex> lock(mutex_);
    total_ += n;
    show_locked();
  }
  void started(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    last_ = what;
    show_locked();
  }
  void finished() {
    std::lock_guard<std::mutex> lock(mutex_);
    ++done_;
    show_locked();
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    line_.clear();
  }

 private:
  void show_locked() {
    line_.show(std::to_string(done_) + " of " + std::to_string(total_) + " checks done; " + last_);
  }
  std::mutex mutex_;
  Progress line_;
  std::size_t done_ = 0, total_ = 0;
  std::string last_;
};

// What the compiler said of the student's file when the build last compiled it
// (cmake/capture-compile.sh); "" for a variant, or when there is nothing.
std::string compiler_output(const LabEntry& lab, const Options& o) {
  if (!o.variant.empty()) return "";
  std::ifstream in(beside_manifest(o, "lab" + lab.id + "-student-compile.txt"));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The audit and the list: decides what runs. Whatever goes wrong fails this lab's checks only.
void prepare_lab(LabRun& run, const Options& o) {
  const Stopwatch time;
  const LabEntry& lab = run.lab;
  run.exe = o.solutions ? lab.solution_grader : lab.student_grader;
  const std::string spec = o.solutions ? "" : "~[selfcheck]";
  std::string why;
  if (!executable(run.exe))
    why = o.solutions
              ? "not graded: " + run.exe + " was not built"
              : not_compiled_message(lab.source, compiler_output(lab, o), CUDALAB_SOURCE_DIR);
  else if (!o.solutions && !lab.link_check.empty() && !executable(lab.link_check))
    why =
        "not graded: the lab's .cu file calls code it may not use (the reference solution "
        "or a vendor library): linked on its own, without them, it does not link";
  else if (!o.solutions)
    why = audit(lab, o, &run.audit_notes);  // "banned: ..." (or "not graded: ...")
  if (!why.empty()) {
    // The driver removes stale binaries before building, so a missing one means this build
    // failed. The solution's grader has the same checks: list them so the lab's maximum stays
    // right.
    if (!executable(lab.solution_grader)) throw std::runtime_error(why);
    for (const auto& c : list_checks(lab.solution_grader, "~[selfcheck]", o))
      run.results.push_back(failed_check(c, why));
    for (const auto& tool : lab.sanitizers) {
      CheckRecord c;
      c.name = "compute-sanitizer " + tool;
      c.tags = "[lab" + lab.id + "][sanitize]";
      c.points = lab_policy(lab.id).sanitizer_points;
      run.results.push_back(failed_check(c, why));
    }
    run.seconds.assign(run.results.size(), 0.0);
    run.finished = true;
    run.prepare_seconds = time.seconds();
    return;
  }
  // The list and the points come from the solution's grader: a student's grader could list fewer
  // checks (or none) when it is asked to list them.
  run.listed = list_checks(lab.solution_grader, spec, o);
  // --checks: the checks it selects run, the others are reported as skipped.
  std::set<std::string> selected;
  for (const auto& c :
       o.checks.empty() ? run.listed : list_checks(lab.solution_grader, o.checks, o, true))
    selected.insert(c.name);
  if (selected.empty())
    throw std::runtime_error("--checks '" + o.checks + "' selects none of the lab's checks");
  run.results.resize(run.listed.size() + lab.sanitizers.size());
  run.seconds.assign(run.results.size(), 0.0);
  run.parts.resize(lab.sanitizers.size());
  for (std::size_t ci = 0; ci < run.listed.size(); ++ci) {
    const CheckRecord& c = run.listed[ci];
    if (!selected.count(c.name)) {
      run.results[ci] = c;
      run.results[ci].status = "skipped";
      run.results[ci].message = kNotSelected;
      continue;
    }
    // The sanitizers run the selected correctness checks but the [large] ones (racecheck on 2^26
    // elements takes minutes) and the [host] ones (no GPU work: the tool refuses a process that
    // makes no CUDA call).
    if (c.tags.find("[correctness]") != std::string::npos &&
        c.tags.find("[large]") == std::string::npos && c.tags.find("[host]") == std::string::npos)
      run.sanitized.push_back(c.name);
    // Timed: the performance checks and the timing harness's self-check (--solutions).
    const bool timed = c.tags.find("[perf]") != std::string::npos ||
                       c.tags.find("[selfcheck]") != std::string::npos;
    (timed ? run.timed : run.untimed).push_back(ci);
  }
  run.untimed_left = run.untimed.size();
  run.prepare_seconds = time.seconds();
}

// Correctness checks per sanitizer process, for a lab of `checks` sanitized checks and `tools`
// tools: --sanitizer-checks N when N > 0, all of the lab's when 0. Auto: a lab graded alone
// (`alone_jobs`, the jobs it has to itself; 0 when several labs are graded) spreads its runs over
// the jobs; with several labs their runs fill the jobs anyway, and one process per tool and lab
// starts the tool least often.
std::size_t sanitizer_group_size(std::size_t checks, std::size_t tools, int option,
                                 int alone_jobs) {
  if (option > 0) return static_cast<std::size_t>(option);
  if (option < 0 && alone_jobs > 0) {
    const auto jobs = static_cast<std::size_t>(alone_jobs);
    return std::max<std::size_t>(1, (checks * tools + jobs - 1) / jobs);
  }
  return std::max<std::size_t>(1, checks);
}

// Once a lab's untimed checks are done: each sanitizer tool either runs (one job per
// sanitizer_group_size correctness checks) or gets its verdict now.
void schedule_sanitizers(LabRun& run, const GradeReport& report, const Options& o, int alone_jobs,
                         JobPool& pool, SharedProgress& progress) {
  const std::size_t first = run.listed.size();
  for (std::size_t t = 0; t < run.lab.sanitizers.size(); ++t) {
    const std::string& tool = run.lab.sanitizers[t];
    CheckRecord pre = sanitizer_precondition(run.lab, tool, !run.sanitized.empty(),
                                             run.correctness_passed, report, o);
    if (!pre.status.empty()) {
      std::lock_guard<std::mutex> lock(run.mutex);
      run.results[first + t] = pre;
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(run.mutex);
      run.results[first + t] = pre;  // combined with its parts once they are all done
    }
    // The checks in groups, in the list's order, whatever order they finish in.
    const std::size_t n = run.sanitized.size();
    const std::size_t per =
        sanitizer_group_size(n, run.lab.sanitizers.size(), o.sanitizer_checks, alone_jobs);
    std::vector<std::vector<std::string>> groups;
    for (std::size_t i = 0; i < n; i += per)
      groups.emplace_back(
          run.sanitized.begin() + static_cast<std::ptrdiff_t>(i),
          run.sanitized.begin() + static_cast<std::ptrdiff_t>(std::min(i + per, n)));
    progress.planned(groups.size());
    run.parts[t].resize(groups.size());
    for (std::size_t i = 0; i < groups.size(); ++i)
      pool.add([&run, &o, &progress, tool, t, i, first, alone_jobs, checks = groups[i]] {
        progress.started(
            "lab " + run.lab.id + ": " + tool + ": " +
            (checks.size() == 1 ? checks[0] : std::to_string(checks.size()) + " checks"));
        const Stopwatch time;
        const auto run_part = [&](bool alone) {
          SanitizerPart part;
          try {
            const GpuLock::Hold hold = alone ? o.gpu_lock.exclusive() : o.gpu_lock.shared();
            part = run_sanitizer_part(run.exe, tool, checks, o);
          } catch (const std::exception& e) {
            part.checks = checks;
            part.run.process.exit_code = 1;
            part.run.process.output = std::string("grading error: ") + e.what();
          }
          return part;
        };
        SanitizerPart part = run_part(false);
        // As a failed check is (run_checks): with several labs graded at once, a part that
        // failed runs again with nothing else on the GPU, and that run decides.
        if (alone_jobs == 0) {
          std::set<std::string> skipped;
          {
            std::lock_guard<std::mutex> lock(run.mutex);
            skipped = run.skipped_plain;
          }
          CheckRecord verdict;
          verdict.status = "";
          verdict = combine_sanitizer_parts(verdict, tool, {part}, skipped, o);
          if (verdict.status == "failed") part = run_part(true);
        }
        {
          std::lock_guard<std::mutex> lock(run.mutex);
          run.parts[t][i] = std::move(part);
          run.seconds[first + t] += time.seconds();
        }
        progress.finished();
      });
  }
}

// The message of a reference profile taken from the cache rather than run (schedule_profiles).
const char* const kProfileKept = "kept from an earlier grade on this GPU";

// The performance checks tagged [profile] whose profile is taken (on a GPU, unless --no-profile):
// each check's case run twice more, untimed, once with the candidate's process counted and once
// with the reference's; the student's kernel beside the reference's, added to the check's detail
// after the timing. The candidate's side runs in the lab's counted group (run_untimed), the
// reference's after the lab's untimed checks have passed (schedule_profiles).
std::vector<std::size_t> profiled_checks(const LabRun& run, const GradeReport& report,
                                         const Options& o) {
  std::vector<std::size_t> checks;
  if (!report.has_device || !o.profile) return checks;
  for (const std::size_t ci : run.timed)
    if (run.listed[ci].tags.find("[profile]") != std::string::npos) checks.push_back(ci);
  return checks;
}

// Once a lab's untimed checks have passed, on a GPU: the reference's side of each profile
// (profiled_checks), in the pool's serial lane (the counters serve one process at a time), unless
// an earlier grade on this GPU kept it.
void schedule_profiles(LabRun& run, const GradeReport& report, const Options& o, JobPool& pool,
                       SharedProgress& progress) {
  const std::vector<std::size_t> profiled = profiled_checks(run, report, o);
  if (profiled.empty() || !run.correctness_passed) return;
  // The reference's side depends on the reference and the case (the lab's solution grader has
  // the case; the reference's library is the solution built as a candidate, beside it:
  // cudalab_add_lab's lib<lab>-candidate-solution.so), the GPU and the seed: kept from an earlier
  // grade under that key, it is not run again.
  const std::string solution_dir =
      run.lab.solution_grader.substr(0, run.lab.solution_grader.find_last_of('/') + 1);
  const std::string key =
      o.profile_key.empty()
          ? std::string()
          : o.profile_key + "\nsolution grader " + file_identity(run.lab.solution_grader) +
                "\nreference " +
                file_identity(solution_dir + "liblab" + run.lab.id + "-candidate-solution.so");
  for (const std::size_t ci : profiled) {
    const CheckRecord& listed = run.listed[ci];
    if (!key.empty()) {
      if (auto kept = load_profile(o.profile_cache, run.lab.id, listed.name, key)) {
        CheckRecord r = listed;
        r.status = "passed";
        r.message = kProfileKept;
        r.measurements = std::move(*kept);
        std::lock_guard<std::mutex> lock(run.mutex);
        run.profiles[ci].push_back(std::move(r));
        continue;
      }
    }
    progress.planned(1);
    pool.add(
        [&run, &o, &progress, ci, key] {
          const CheckRecord& check = run.listed[ci];
          progress.started("lab " + run.lab.id + ": profile of the reference: " + check.name);
          const Stopwatch time;
          CheckRecord r;
          try {
            const GpuLock::Hold hold = o.gpu_lock.shared(/*counted=*/true);
            r = run_check(run.exe, check, o, {"CUDALAB_PROFILE=reference"});
          } catch (const std::exception& e) {
            r = grading_error(check, e);
          }
          if (!key.empty()) {
            ProfileFigures figures;
            for (const auto& [name, value] : r.measurements)
              if (name.rfind("profile_reference_", 0) == 0) figures[name] = value;
            store_profile(o.profile_cache, run.lab.id, check.name, key, figures);
          }
          {
            std::lock_guard<std::mutex> lock(run.mutex);
            r.seconds = time.seconds();
            run.profiles[ci].push_back(std::move(r));
          }
          progress.finished();
        },
        JobPool::Lane::serial);
  }
}

// What a profile adds to its performance check's result: its line (or why there is none) and its
// figures; the profile's time goes to the check's. A run that measured its side has its figures;
// one that did not says why in its message ("no profile ...").
void add_profile(CheckRecord& check, const std::vector<CheckRecord>& runs, double* seconds) {
  std::map<std::string, double> figures;
  std::string why;
  bool kept = false;
  for (const CheckRecord& run : runs) {
    *seconds += run.seconds;
    kept = kept || run.message == kProfileKept;
    bool measured = false;
    for (const auto& [key, value] : run.measurements) {
      if (key.rfind("profile_", 0) != 0) continue;
      figures[key] = value;
      measured = true;
    }
    if (why.empty() && !measured)
      why = run.message.empty() ? "the profile run said nothing" : last_lines(run.message, 1);
  }
  if (check.status == "skipped" || check.message.rfind("not run:", 0) == 0) return;
  std::string text = why.empty() ? cudalab::grade::profile_line(figures) : "";
  if (text.empty()) {
    if (why.empty()) why = "a side's figures are missing";
    text = why.rfind("no profile", 0) == 0 ? why : "no profile: " + why;
  } else {
    for (const auto& [key, value] : figures) check.measurements[key] = value;
    if (kept) text += " (the reference's figures from an earlier grade on this GPU)";
  }
  check.message += (check.message.empty() ? "" : "\n") + text;
}

// Every lab's untimed checks, and then its sanitizers, on `jobs` processes at once. No timed
// check runs meanwhile: those come after, one at a time, with the GPU to themselves.
void run_untimed(std::vector<std::unique_ptr<LabRun>>& runs, const GradeReport& report,
                 const Options& o, int jobs, SharedProgress& progress) {
  JobPool pool(jobs);
  const int alone_jobs = runs.size() == 1 ? jobs : 0;
  for (auto& owned : runs) {
    LabRun* run = owned.get();
    pool.add([run, alone_jobs, &report, &o, &pool, &progress] {
      try {
        prepare_lab(*run, o);
      } catch (const std::exception& e) {
        CheckRecord c;
        c.name = "grading";
        c.tags = "[lab" + run->lab.id + "]";
        c.points = 1;  // counts as a failure even though the lab's points are unknown
        run->results = {grading_error(c, e)};
        run->seconds = {0.0};
        run->finished = true;
        return;
      }
      if (run->finished) return;
      progress.planned(run->untimed.size() + run->timed.size());
      if (run->untimed.empty()) {
        schedule_sanitizers(*run, report, o, alone_jobs, pool, progress);
        schedule_profiles(*run, report, o, pool, progress);
      }
      // On a GPU a technique check reads the performance counters, which serve one process at
      // a time, and so does the candidate's side of a profile: a lab's technique checks and its
      // candidate profiles run in one process (its candidate's process counted from its start),
      // the lab's counted group, in the pool's serial lane beside the other checks; each counted
      // process pays about a second to set the counters up (docs/grading.md). A profile run is
      // untimed and never passes (its figures are shown only once the lab's correctness checks
      // have passed: add_profile). The other checks run in groups that share a process
      // (run_checks): all of a lab's in one when several labs are graded (their groups fill the
      // jobs), spread over the jobs when a lab is graded alone.
      std::vector<std::vector<std::size_t>> groups;
      std::vector<bool> serial;
      std::vector<std::size_t> counted_group, shared;
      for (const std::size_t ci : run->untimed) {
        if (report.has_device && run->listed[ci].tags.find("[technique]") != std::string::npos)
          counted_group.push_back(ci);
        else
          shared.push_back(ci);
      }
      const std::size_t counted_untimed = counted_group.size();
      const std::vector<std::size_t> profiled = profiled_checks(*run, report, o);
      counted_group.insert(counted_group.end(), profiled.begin(), profiled.end());
      progress.planned(profiled.size());
      if (!counted_group.empty()) {
        groups.push_back(counted_group);
        serial.push_back(true);
      }
      const std::size_t per = sanitizer_group_size(shared.size(), 1, -1, alone_jobs);
      for (std::size_t i = 0; i < shared.size(); i += per) {
        groups.emplace_back(
            shared.begin() + static_cast<std::ptrdiff_t>(i),
            shared.begin() + static_cast<std::ptrdiff_t>(std::min(i + per, shared.size())));
        serial.push_back(false);
      }
      for (std::size_t g = 0; g < groups.size(); ++g) {
        // Of the group's checks, the first `untimed` are untimed checks; the rest (a counted
        // group's) are profiles of the candidate.
        const std::size_t untimed = serial[g] ? counted_untimed : groups[g].size();
        pool.add(
            [run, group = groups[g], counted = serial[g], untimed, alone_jobs, &report, &o, &pool,
             &progress] {
              std::vector<CheckRecord> listed;
              for (const std::size_t ci : group) listed.push_back(run->listed[ci]);
              progress.started("lab " + run->lab.id + ": " +
                               (listed.size() == 1 ? listed.front().name
                                                   : std::to_string(listed.size()) + " checks"));
              std::vector<CheckRecord> results;
              std::vector<double> seconds;
              std::vector<std::string> env;
              if (untimed < group.size()) env.emplace_back("CUDALAB_PROFILE=candidate");
              try {
                results = run_checks(run->exe, listed, o, &seconds, counted,
                                     /*confirm_alone=*/alone_jobs == 0, env);
              } catch (const std::exception& e) {
                results.clear();
                for (const CheckRecord& c : listed) results.push_back(grading_error(c, e));
                seconds.assign(listed.size(), 0.0);
              }
              bool last = false;
              {
                std::lock_guard<std::mutex> lock(run->mutex);
                for (std::size_t i = 0; i < group.size(); ++i) {
                  CheckRecord& r = results[i];
                  if (i >= untimed) {
                    r.seconds = seconds[i];
                    run->profiles[group[i]].push_back(std::move(r));
                    continue;
                  }
                  if (r.tags.find("[correctness]") != std::string::npos && r.status == "failed")
                    run->correctness_passed = false;
                  if (r.status == "skipped") run->skipped_plain.insert(r.name);
                  run->seconds[group[i]] = seconds[i];
                  run->results[group[i]] = std::move(r);
                }
                run->untimed_left -= untimed;
                last = untimed > 0 && run->untimed_left == 0;
              }
              for (std::size_t i = 0; i < group.size(); ++i) progress.finished();
              if (last) {
                schedule_sanitizers(*run, report, o, alone_jobs, pool, progress);
                schedule_profiles(*run, report, o, pool, progress);
              }
            },
            serial[g] ? JobPool::Lane::serial : JobPool::Lane::any);
      }
    });
  }
  pool.wait();
  for (auto& run : runs) {
    if (run->finished) continue;
    const std::size_t first = run->listed.size();
    for (std::size_t t = 0; t < run->lab.sanitizers.size(); ++t) {
      if (!run->results[first + t].status.empty()) continue;
      run->results[first + t] = combine_sanitizer_parts(
          run->results[first + t], run->lab.sanitizers[t], run->parts[t], run->skipped_plain, o);
    }
  }
}

// The technique checks of `run` that passed, on a GPU (a technique check passes only on one).
std::vector<std::size_t> techniques_to_confirm(const LabRun& run) {
  std::vector<std::size_t> confirm;
  for (const std::size_t ci : run.untimed)
    if (run.listed[ci].tags.find("[technique]") != std::string::npos &&
        run.results[ci].status == "passed")
      confirm.push_back(ci);
  return confirm;
}

// The judge's own count (docs/grading.md, "The judge's own count"): the technique checks that
// passed run again, in one grader process, with the GPU to themselves (the caller holds the lock
// exclusive), their signatures reading what the GPU counted during the candidate's calls, sampled
// by the grader's process (grader/framework/device_counts.h), rather than the counts the
// candidate's process reported. The check's verdict is the confirming run's when that one fails
// or cannot count; a pass keeps the first run's message (the kernels' own figures) with the GPU's
// figures added.
void confirm_by_device_counts(LabRun& run, const Options& o, SharedProgress& progress) {
  const std::vector<std::size_t> confirm = techniques_to_confirm(run);
  if (confirm.empty()) return;
  progress.planned(1);
  progress.started("lab " + run.lab.id + ": the GPU's own count of its technique checks (alone)");
  std::string spec;  // Catch2: a comma between test specs means "or"
  for (const std::size_t ci : confirm)
    spec += (spec.empty() ? "" : ",") + exact_spec(run.listed[ci].name);
  const Stopwatch time;
  ChannelRun ch;
  std::string problem;
  try {
    ch = run_with_channel({run.exe}, {spec, "--order", "decl"},
                          grader_env(o, {"CUDALAB_DEVICE_COUNTS=1"}),
                          o.timeout_s * static_cast<double>(confirm.size()), o);
  } catch (const std::exception& e) {
    problem = e.what();
  }
  if (problem.empty() && (ch.process.timed_out || ch.process.signal != 0 || ch.foreign != 0))
    problem = describe_ending(ch.process, o.timeout_s * static_cast<double>(confirm.size()));
  std::map<std::string, std::vector<const CheckRecord*>> by_name;
  for (const CheckRecord& r : ch.records) by_name[r.name].push_back(&r);
  const double share = time.seconds() / static_cast<double>(confirm.size());
  for (const std::size_t ci : confirm) {
    const CheckRecord& listed = run.listed[ci];
    CheckRecord& result = run.results[ci];
    run.seconds[ci] += share;
    const auto it = by_name.find(listed.name);
    const CheckRecord* got = problem.empty() && it != by_name.end() && it->second.size() == 1
                                 ? it->second.front()
                                 : nullptr;
    ChannelRun single;  // a check the group did not answer for runs by itself
    if (got == nullptr) {
      // What crashed or hung the group (its own file's doing, or another check's) is run again
      // alone, so that one check's end never costs another its verdict.
      const Stopwatch again;
      try {
        single = run_with_channel({run.exe}, {exact_spec(listed.name)},
                                  grader_env(o, {"CUDALAB_DEVICE_COUNTS=1"}), o.timeout_s, o);
        problem.clear();
        if (single.process.timed_out || single.process.signal != 0 || single.foreign != 0)
          problem = describe_ending(single.process, o.timeout_s);
        else if (single.records.size() == 1 && single.records.front().name == listed.name)
          got = &single.records.front();
      } catch (const std::exception& e) {
        problem = e.what();
      }
      run.seconds[ci] += again.seconds();
    }
    if (got != nullptr && got->status == "passed") {
      result.message += (result.message.empty() ? "" : "\n") + got->message;
    } else if (got != nullptr && (got->status == "failed" || got->status == "skipped")) {
      result = as_listed(*got, listed);
    } else {
      result = as_listed(listed, listed);
      result.status = "skipped";
      result.message =
          "not verified: the grader's own count of what the GPU executed did not complete" +
          (problem.empty() ? std::string() : " (" + problem + ")");
      result = as_listed(result, listed);
    }
  }
  progress.finished();
}

// The timed checks, one at a time, nothing else running: performance is measured only once the
// lab's correctness checks pass (docs/grading.md); the harness's self-check runs regardless.
// First, with the GPU to themselves as well, each lab's technique checks are confirmed by the
// GPU's own count (confirm_by_device_counts).
void run_timed(std::vector<std::unique_ptr<LabRun>>& runs, const Options& o,
               SharedProgress& progress) {
  // A lab's timed checks share one grader process (run_checks: one that fails there, or that the
  // process did not answer for, runs again in a process of its own), and each performance check
  // in it has a candidate process of its own: the grader stops the candidate's process before
  // each timed check begins (grading.cpp, begin_check), so that none lives on from one timed
  // check to the next, where it could keep what it computed in the first and answer the second
  // from it (lab 07's formats read one matrix). Nothing else on the GPU, of any grade that
  // shares it, until the last timed check has run.
  bool timed = false;
  for (const auto& run : runs)
    timed =
        timed || (!run->finished && (!run->timed.empty() || !techniques_to_confirm(*run).empty()));
  const GpuLock::Hold hold = timed ? o.gpu_lock.exclusive() : GpuLock::Hold();
  for (auto& run : runs) {
    if (run->finished) continue;
    confirm_by_device_counts(*run, o, progress);
    std::vector<std::size_t> group;
    std::vector<CheckRecord> listed;
    for (const std::size_t ci : run->timed) {
      if (!run->correctness_passed && run->listed[ci].tags.find("[perf]") != std::string::npos) {
        run->results[ci] =
            failed_check(run->listed[ci], "not run: the correctness checks must pass first");
        continue;
      }
      group.push_back(ci);
      listed.push_back(run->listed[ci]);
    }
    if (!group.empty()) {
      progress.started("lab " + run->lab.id + ": " +
                       (listed.size() == 1 ? listed.front().name
                                           : std::to_string(listed.size()) + " timed checks") +
                       " (alone)");
      std::vector<CheckRecord> results;
      std::vector<double> seconds;
      try {
        // The GPU's own count of a few timed rounds, taken by the grader's process
        // (perf.h, TimedRunChecks::executed).
        results = run_checks(run->exe, listed, o, &seconds, /*counted=*/false,
                             /*confirm_alone=*/false, {"CUDALAB_DEVICE_COUNTS=1"},
                             /*take_lock=*/false);
      } catch (const std::exception& e) {
        results.clear();
        for (const CheckRecord& c : listed) results.push_back(grading_error(c, e));
        seconds.assign(listed.size(), 0.0);
      }
      for (std::size_t i = 0; i < group.size(); ++i) {
        run->results[group[i]] = std::move(results[i]);
        run->seconds[group[i]] = seconds[i];
      }
    }
    for (const std::size_t ci : run->timed) {
      if (const auto p = run->profiles.find(ci); p != run->profiles.end())
        add_profile(run->results[ci], p->second, &run->seconds[ci]);
      progress.finished();
    }
  }
}

// Output files: absolute (ctest runs elsewhere), with their folders created up front so a bad
// path fails before grading rather than after.
std::string prepare_output(const std::string& path, const std::string& option) {
  if (path.empty()) return path;
  namespace fs = std::filesystem;
  const fs::path p = fs::absolute(path);
  std::error_code ec;
  if (p.has_parent_path()) fs::create_directories(p.parent_path(), ec);
  std::ofstream probe(p, std::ios::app);
  if (!probe) throw cudalab::UsageError(option + " " + path + ": cannot write there");
  return p.string();
}

int grade(Options o) {
  const auto all = read_manifest(o.manifest);
  auto labs = select_labs(all, o);
  if (!o.variant.empty()) labs.front() = variant_entry(labs.front(), o);
  if (o.list) {
    for (const auto& l : all) std::cout << l.id << "  " << l.name << "\n";
    return cudalab::kExitOk;
  }
  o.json = prepare_output(o.json, "--json");
  o.gradescope = prepare_output(o.gradescope, "--gradescope");
  o.junit = prepare_output(o.junit, "--junit");
  o.records = prepare_output(o.records, "--records");

  GradeReport report;
  report.target = o.solutions         ? "solutions"
                  : o.variant.empty() ? "student"
                                      : "variant " + o.variant;
  report.seed = o.seed;
  report.generated_at = utc_now();
  report.has_device = cudalab::has_cuda_device(&report.no_device_reason);
  if (report.has_device) {
    const cudalab::DeviceInfo device = cudalab::query_device(0, false);
    report.device_name = device.name;
    report.device_memory_bytes = device.global_memory_bytes;
    // What the reference's profiles depend on besides the lab (profile_cache.h): the GPU itself,
    // its driver, the seed and the server that runs the reference, beside this program.
    o.profile_cache = beside_manifest(o, "profile-cache");
    o.profile_key = "device " + device.name + " " + device.uuid + "\ndriver " +
                    std::to_string(device.driver_version) + "\nseed " + std::to_string(o.seed) +
                    "\nserver " + file_identity(CUDALAB_SERVE);
  }
  report.source_dir = CUDALAB_SOURCE_DIR;
  if (!report.has_device) std::cout << no_device_notice(report, o.color) << "\n";
  // The sandbox sees the repository, the build and the data read-only, but not the course's
  // answers (the solutions, the variants, the pages with their answers, the history).
  std::vector<std::string> visible{CUDALAB_SOURCE_DIR, beside_manifest(o, "")};
  if (const char* data = std::getenv("CUDALAB_DATA_DIR"); data != nullptr && *data != '\0')
    visible.push_back(std::filesystem::absolute(data).string());
  o.box = make_sandbox(o.sandbox, visible, 1024, answer_key(CUDALAB_SOURCE_DIR));
  report.sandbox = o.box.description;
  std::cout << "Sandbox: " << o.box.description << "\n\n";

  const Stopwatch run_time;
  SharedProgress progress(isatty(STDERR_FILENO) != 0);
  std::vector<std::unique_ptr<LabRun>> runs;
  for (const auto& lab : labs) runs.push_back(std::make_unique<LabRun>(lab));
  const int jobs = untimed_jobs(o, report);
  run_untimed(runs, report, o, jobs, progress);
  report.untimed_seconds = run_time.seconds();
  run_timed(runs, o, progress);
  report.timed_seconds = run_time.seconds() - report.untimed_seconds;
  progress.clear();
  for (auto& run : runs) {
    if (!run->audit_notes.empty()) std::cout << run->audit_notes;
    LabResult result{run->lab.id, run->lab.name, {}};
    // A lab's seconds: its audit and listing plus its checks' processes (which ran in parallel
    // with other labs' untimed checks: the labs' seconds add up to more than the run's).
    result.seconds = run->prepare_seconds;
    for (std::size_t i = 0; i < run->results.size(); ++i) {
      run->results[i].seconds = run->seconds[i];
      result.seconds += run->seconds[i];
    }
    result.checks = std::move(run->results);
    std::cout << lab_table(result, o.color) << "\n";
    report.labs.push_back(std::move(result));
  }
  report.untimed_jobs = jobs;
  report.seconds = run_time.seconds();
  std::cout << summary_table(report, o.color);

  write_file(o.json, report_json(report));
  std::cout << "JSON report: " << o.json << "\n";
  if (!o.gradescope.empty()) {
    write_file(o.gradescope, gradescope_json(report));
    std::cout << "Gradescope results: " << o.gradescope << "\n";
  }
  if (!o.records.empty()) {
    std::string lines;
    for (const auto& lab : report.labs)
      for (const auto& c : lab.checks) lines += format_record(c) + "\n";
    write_file(o.records, lines);
  }
  if (!o.junit.empty()) write_junit(o, labs);
  return report.failed() ? cudalab::kExitFailure : cudalab::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  since_start();  // the timeline's zero
  return cudalab::guarded_main("cudalab-grade", [&] { return grade(parse(argc, argv)); });
}
