// Running a grader in a child process with a time limit, so that a crashed or hung kernel fails
// one check instead of the whole grading run; and the grader's sandbox (bubblewrap).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace cudalab::grade {

struct ProcessResult {
  int exit_code = -1;  // valid when !timed_out && signal == 0
  int signal = 0;      // the signal that ended it, 0 if it exited
  bool timed_out = false;
  // stdout and stderr, interleaved: the first and the last 512 KiB, with a line saying how much
  // was dropped between them (the grade command's memory is bounded whatever a check prints)
  std::string output;
  std::string captured;  // what the child wrote to ProcessOptions::capture_fd
  double seconds = 0.0;
};

struct ProcessOptions {
  // Descriptors of this process the child inherits under the same numbers, closed here once it
  // has them (the other descriptors it inherits are stdin, stdout and stderr only: open the
  // rest with O_CLOEXEC).
  std::vector<int> inherit;
  // The read end of a pipe whose write end is in `inherit`: read while the child runs, into
  // ProcessResult::captured.
  int capture_fd = -1;
  // When set, the child's standard output goes to this descriptor of ours (e.g. the write end of
  // the capture pipe), its standard error still to ProcessResult::output.
  int stdout_fd = -1;
  // Run inside this sandbox: the program prefixed by sandbox_command() (empty: unsandboxed).
  std::vector<std::string> sandbox;
  // RLIMIT_DATA of the child, in bytes (0: none): its heap and private writable mappings. The
  // address space (RLIMIT_AS) is left alone: the CUDA driver reserves far more than it uses.
  std::size_t data_limit_bytes = 0;
  // When not empty, only the variables of this process's environment that start with one of
  // these ("PATH=", "CUDA_") are passed on (`env` is added after): the rest may be the caller's
  // secrets, or settings that travel another way (run_with_channel, kGraderEnvironment).
  std::vector<std::string> keep_env;
};

// What of the grade command's environment a grader's sandbox gets: finding programs and
// libraries, the locale, the CUDA driver's and toolkit's own settings, CTest's GPU. Nothing else:
// whatever the instructor's shell or the service's unit holds (tokens, passwords) stays out of
// the sandbox's first process, whose environment any process of the check can read in /proc.
extern const std::vector<std::string> kGraderEnvironment;

// Runs argv (argv[0] searched in PATH when it has no '/'), with `env` ("KEY=VALUE") added to this
// process's environment. The child gets its own process group; when it ends (or after
// `timeout_s`, when it is killed) whatever it started is killed too: its process group, and any
// process that left the group (this process is made a child subreaper, so orphans come back to
// it). Throws std::runtime_error when the program cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          double timeout_s, const ProcessOptions& options = {});

// The lines of `text` (a process's output, a tool's listing), without their '\n'.
std::vector<std::string> lines_of(const std::string& text);

// The last `n` non-empty lines of `text`, joined with '\n'.
std::string last_lines(const std::string& text, int n);

// "timed out after 60 s", "killed by signal 11 (Segmentation fault)", "exit code 3".
std::string describe_ending(const ProcessResult& r, double timeout_s);

// The sandbox a check runs in: bubblewrap (bwrap) with no network, its own PID, IPC and UTS
// namespaces (nothing outlives the check), no capabilities, the system folders and `read_only`
// read-only, a private /tmp of `tmp_mib` MiB, /dev with only the NVIDIA device nodes added.
struct Sandbox {
  std::vector<std::string> prefix;  // bwrap and its options; empty when unsandboxed
  std::string description;          // "bubblewrap 0.8.0: ..." or "none: <why>"
};

// `mode`: "auto" (bubblewrap when it is installed and works here, else none), "on" (bubblewrap
// or a std::runtime_error saying why not), "off". Each folder of `hidden` (inside one of
// `read_only`) is covered by an empty read-only one: what a check must not read (answer_key()).
Sandbox make_sandbox(const std::string& mode, const std::vector<std::string>& read_only,
                     int tmp_mib = 1024, const std::vector<std::string>& hidden = {});

// The folders of the repository at `root` that hold the course's answers, those there: the
// globs of grader/answer-key.txt (compiled in), i.e. the solutions, the variants (with each lab's
// plain answer), the pages before the release takes their answers out (docs/), and the history
// (.git). What the student release leaves out; no check needs them (the references are compiled
// into the build), so the checks, which run the student's code, do not see them (nor does the
// build of a student's file in a batch or the grading service, from the same list:
// grader/classroom/workers.py).
std::vector<std::string> answer_key(const std::string& root);

}  // namespace cudalab::grade
