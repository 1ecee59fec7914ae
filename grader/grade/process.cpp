#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <stdexcept>

namespace cudalab::grade {

ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          double timeout_s) {
  if (argv.empty()) throw std::invalid_argument("run_process: empty command");
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  // A pipe the child writes to report a failed exec (closed unread on success: O_CLOEXEC).
  int exec_fds[2];
  if (pipe2(exec_fds, O_CLOEXEC) != 0)
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));

  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);  // own process group: a timeout kills the grader and anything it started
    dup2(pipe_fds[1], STDOUT_FILENO);
    dup2(pipe_fds[1], STDERR_FILENO);
    close(pipe_fds[0]);
    close(pipe_fds[1]);
    close(exec_fds[0]);
    for (const auto& kv : env) putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    const int err = errno;
    if (write(exec_fds[1], &err, sizeof err) < 0) _exit(127);
    _exit(127);
  }
  setpgid(pid, pid);
  close(pipe_fds[1]);
  close(exec_fds[1]);
  int exec_errno = 0;
  const bool exec_failed = read(exec_fds[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  close(exec_fds[0]);

  ProcessResult r;
  char buf[4096];
  bool open = true;
  while (open) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed >= timeout_s) {
      r.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    pollfd pfd{pipe_fds[0], POLLIN, 0};
    const int wait_ms = static_cast<int>(std::min(200.0, (timeout_s - elapsed) * 1000.0)) + 1;
    if (poll(&pfd, 1, wait_ms) > 0) {
      const ssize_t n = read(pipe_fds[0], buf, sizeof buf);
      if (n > 0)
        r.output.append(buf, static_cast<std::size_t>(n));
      else
        open = false;  // EOF: every writer closed (the grader and its children)
    }
  }
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (exec_failed)
    throw std::runtime_error("cannot run " + argv[0] + ": " + std::strerror(exec_errno));
  if (!r.timed_out) {
    if (WIFEXITED(status))
      r.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
      r.signal = WTERMSIG(status);
  }
  return r;
}

std::string last_lines(const std::string& text, int n) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) lines.push_back(line);
  std::string out;
  const std::size_t first = lines.size() > static_cast<std::size_t>(n) ? lines.size() - n : 0;
  for (std::size_t i = first; i < lines.size(); ++i) out += (out.empty() ? "" : "\n") + lines[i];
  return out;
}

std::string describe_ending(const ProcessResult& r, double timeout_s) {
  std::ostringstream out;
  if (r.timed_out)
    out << "timed out after " << timeout_s << " s";
  else if (r.signal != 0)
    out << "killed by signal " << r.signal << " (" << strsignal(r.signal) << ")";
  else
    out << "exit code " << r.exit_code;
  return out.str();
}

}  // namespace cudalab::grade
