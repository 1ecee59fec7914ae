// Running a grader in a child process with a time limit, so that a crashed or hung kernel fails
// one check instead of the whole grading run.
#pragma once

#include <string>
#include <vector>

namespace cudalab::grade {

struct ProcessResult {
  int exit_code = -1;  // valid when !timed_out && signal == 0
  int signal = 0;      // the signal that ended it, 0 if it exited
  bool timed_out = false;
  std::string output;  // stdout and stderr, interleaved
  double seconds = 0.0;
};

// Runs argv (argv[0] searched in PATH when it has no '/'), with `env` ("KEY=VALUE") added to this
// process's environment. After `timeout_s` the child's whole process group is killed.
// Throws std::runtime_error when the program cannot be started.
ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          double timeout_s);

// The last `n` non-empty lines of `text`, joined with '\n'.
std::string last_lines(const std::string& text, int n);

// "timed out after 60 s", "killed by signal 11 (Segmentation fault)", "exit code 3".
std::string describe_ending(const ProcessResult& r, double timeout_s);

}  // namespace cudalab::grade
