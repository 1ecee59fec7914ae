#include "process.h"

#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "answer_key_list.h"  // CUDALAB_ANSWER_KEY_GLOBS, from grader/answer-key.txt

namespace cudalab::grade {

namespace {

std::string errno_text(const std::string& what) {
  return what + ": " + std::strerror(errno);
}

// The processes whose parent is this one, from /proc/<pid>/stat (field 4).
std::vector<pid_t> children_of_this_process() {
  std::vector<pid_t> pids;
  const pid_t self = getpid();
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return pids;
  while (const dirent* e = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (end == e->d_name || *end != '\0') continue;
    std::ifstream stat("/proc/" + std::string(e->d_name) + "/stat");
    std::string text;
    std::getline(stat, text);
    // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'.
    const auto close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 1));
    char state = 0;
    long ppid = 0;
    if (rest >> state >> ppid && ppid == self) pids.push_back(static_cast<pid_t>(pid));
  }
  closedir(proc);
  return pids;
}

// The children run_process started and has not yet waited for: several may run at once (the
// grade command runs untimed checks in parallel), and those are not strays.
std::mutex& children_mutex() {
  static std::mutex m;
  return m;
}
std::set<pid_t>& running_children() {
  static std::set<pid_t> pids;
  return pids;
}

// Kills every child left but the running checks (orphans of a finished check come back here: we
// are a subreaper) and their process groups, and reaps them, until none is left. Only strays are
// waited for: a waitpid(-1) could take the exit status of another thread's check.
void kill_strays() {
  for (int round = 0; round < 200; ++round) {
    {
      std::lock_guard<std::mutex> lock(children_mutex());
      std::vector<pid_t> strays;
      for (const pid_t pid : children_of_this_process())
        if (!running_children().count(pid)) strays.push_back(pid);
      if (strays.empty()) return;
      for (const pid_t pid : strays) {
        kill(-pid, SIGKILL);
        kill(pid, SIGKILL);
        waitpid(pid, nullptr, WNOHANG);
      }
    }
    usleep(5000);
  }
}

// A child's output, kept within a bound whatever it prints: the first kHead bytes and the last
// kTail (where compute-sanitizer's summary is), what lies between counted and dropped.
class BoundedText {
 public:
  static constexpr std::size_t kHead = 512 * 1024, kTail = 512 * 1024;
  void append(const char* p, std::size_t n) {
    if (head_.size() < kHead) {
      const std::size_t take = std::min(n, kHead - head_.size());
      head_.append(p, take);
      p += take;
      n -= take;
    }
    if (n == 0) return;
    tail_.append(p, n);
    if (tail_.size() > 2 * kTail) {
      dropped_ += tail_.size() - kTail;
      tail_.erase(0, tail_.size() - kTail);
    }
  }
  std::string text() const {
    std::string t = head_;
    std::size_t dropped = dropped_;
    std::string tail = tail_;
    if (tail.size() > kTail) {
      dropped += tail.size() - kTail;
      tail.erase(0, tail.size() - kTail);
    }
    if (dropped > 0)
      t += "\n[" + std::to_string(dropped) + " bytes of output dropped here: a check keeps " +
           std::to_string((kHead + kTail) / 1024) + " KiB]\n";
    return t + tail;
  }

 private:
  std::string head_, tail_;
  std::size_t dropped_ = 0;
};

void read_available(int fd, BoundedText& into, bool& open) {
  char buf[16384];
  const ssize_t n = read(fd, buf, sizeof buf);
  if (n > 0)
    into.append(buf, static_cast<std::size_t>(n));
  else if (n == 0 || (errno != EAGAIN && errno != EINTR))
    open = false;
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::vector<std::string>& env,
                          double timeout_s, const ProcessOptions& options) {
  if (argv.empty()) throw std::invalid_argument("run_process: empty command");
  // Orphans of the child (a process it started and left running) are re-parented to us rather
  // than to init, so that kill_strays() can end them.
  static const bool subreaper = prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
  (void)subreaper;
  int out_fds[2];
  if (pipe2(out_fds, O_CLOEXEC) != 0) throw std::runtime_error(errno_text("pipe"));
  // A pipe the child writes to report a failed exec (closed unread on success: O_CLOEXEC).
  int exec_fds[2];
  if (pipe2(exec_fds, O_CLOEXEC) != 0) throw std::runtime_error(errno_text("pipe"));
  std::vector<std::string> command = options.sandbox;
  command.insert(command.end(), argv.begin(), argv.end());

  const auto start = std::chrono::steady_clock::now();
  pid_t pid = -1;
  {
    // Registered before another thread's kill_strays() can see it.
    std::lock_guard<std::mutex> lock(children_mutex());
    pid = fork();
    if (pid > 0) running_children().insert(pid);
  }
  if (pid < 0) throw std::runtime_error(errno_text("fork"));
  if (pid == 0) {
    setpgid(0, 0);  // own process group: a timeout kills the grader and anything it started
    dup2(out_fds[1], STDOUT_FILENO);
    dup2(out_fds[1], STDERR_FILENO);
    if (options.stdout_fd >= 0) dup2(options.stdout_fd, STDOUT_FILENO);
    for (const int fd : options.inherit) fcntl(fd, F_SETFD, 0);
    // No core files, and no file larger than 1 GiB.
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);
    const rlimit fsize{rlim_t{1} << 30, rlim_t{1} << 30};
    setrlimit(RLIMIT_FSIZE, &fsize);
    if (options.data_limit_bytes > 0) {
      const rlimit data{options.data_limit_bytes, options.data_limit_bytes};
      setrlimit(RLIMIT_DATA, &data);
    }
    if (!options.keep_env.empty()) {  // compacted in place: no allocation after fork
      char** kept = environ;
      for (char** e = environ; *e != nullptr; ++e)
        for (const std::string& prefix : options.keep_env)
          if (std::strncmp(*e, prefix.c_str(), prefix.size()) == 0) {
            *kept++ = *e;
            break;
          }
      *kept = nullptr;
    }
    for (const auto& kv : env) putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> args;
    for (const auto& a : command) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    const int err = errno;
    if (write(exec_fds[1], &err, sizeof err) < 0) _exit(127);
    _exit(127);
  }
  setpgid(pid, pid);
  close(out_fds[1]);
  for (const int fd : options.inherit) close(fd);  // the child's now: its EOF must be seen here
  close(exec_fds[1]);
  int exec_errno = 0;
  const bool exec_failed = read(exec_fds[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno;
  close(exec_fds[0]);

  ProcessResult r;
  struct Source {
    int fd;
    BoundedText* into;
    bool open;
  };
  BoundedText output, captured;
  std::vector<Source> sources{{out_fds[0], &output, true}};
  if (options.capture_fd >= 0) sources.push_back({options.capture_fd, &captured, true});
  int status = 0;
  bool exited = false;
  while (!exited) {
    const double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (elapsed >= timeout_s) {
      r.timed_out = true;
      kill(-pid, SIGKILL);
      break;
    }
    std::vector<pollfd> pfds;
    for (const Source& s : sources)
      if (s.open) pfds.push_back({s.fd, POLLIN, 0});
    const int wait_ms = static_cast<int>(std::min(100.0, (timeout_s - elapsed) * 1000.0)) + 1;
    if (poll(pfds.data(), pfds.size(), wait_ms) > 0)
      for (Source& s : sources)
        for (const pollfd& p : pfds)
          if (p.fd == s.fd && p.revents != 0) read_available(s.fd, *s.into, s.open);
    exited = waitpid(pid, &status, WNOHANG) == pid;
  }
  if (!exited) waitpid(pid, &status, 0);
  {
    std::lock_guard<std::mutex> lock(children_mutex());
    running_children().erase(pid);
  }
  // The check is over: nothing it started may outlive it (or write after it).
  kill(-pid, SIGKILL);
  kill_strays();
  // What is still in the pipes; every writer is gone, so each ends in EOF soon.
  const auto drain_until = std::chrono::steady_clock::now() + std::chrono::seconds(2);
  for (Source& s : sources) {
    fcntl(s.fd, F_SETFL, O_NONBLOCK);
    while (s.open && std::chrono::steady_clock::now() < drain_until) {
      pollfd p{s.fd, POLLIN, 0};
      if (poll(&p, 1, 50) > 0) read_available(s.fd, *s.into, s.open);
    }
  }
  close(out_fds[0]);
  r.output = output.text();
  r.captured = captured.text();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (exec_failed)
    throw std::runtime_error("cannot run " + command[0] + ": " + std::strerror(exec_errno));
  if (!r.timed_out) {
    if (WIFEXITED(status))
      r.exit_code = WEXITSTATUS(status);
    else if (WIFSIGNALED(status))
      r.signal = WTERMSIG(status);
  }
  return r;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
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

namespace {

std::string find_in_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::istringstream dirs(path != nullptr ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    const std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return "";
}

bool is_symlink(const std::string& path, std::string* target) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return false;
  char buf[4096];
  const ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return false;
  *target = std::string(buf, static_cast<std::size_t>(n));
  return true;
}

}  // namespace

const std::vector<std::string> kGraderEnvironment{
    "PATH=", "LD_LIBRARY_PATH=",    "HOME=", "LANG=", "LC_", "TZ=", "TMPDIR=", "CUDA_", "NVIDIA_",
    "__NV",  "CTEST_RESOURCE_GROUP"};

std::vector<std::string> answer_key(const std::string& root) {
  namespace fs = std::filesystem;
  std::vector<std::string> found;
  std::error_code e;
  for (const char* pattern : {CUDALAB_ANSWER_KEY_GLOBS}) {
    glob_t matches{};
    if (glob((fs::path(root) / pattern).c_str(), GLOB_ONLYDIR, nullptr, &matches) == 0)
      for (std::size_t i = 0; i < matches.gl_pathc; ++i)
        if (fs::is_directory(matches.gl_pathv[i], e)) found.emplace_back(matches.gl_pathv[i]);
    globfree(&matches);
  }
  std::sort(found.begin(), found.end());
  return found;
}

Sandbox make_sandbox(const std::string& mode, const std::vector<std::string>& read_only,
                     int tmp_mib, const std::vector<std::string>& hidden) {
  Sandbox none;
  if (mode == "off") {
    none.description = "none: disabled by --sandbox off";
    return none;
  }
  const std::string bwrap = find_in_path("bwrap");
  const auto unavailable = [&](const std::string& why) {
    if (mode == "on") throw std::runtime_error("--sandbox on: " + why);
    none.description = "none: " + why;
    return none;
  };
  if (bwrap.empty())
    return unavailable("bubblewrap (bwrap) is not installed (Debian package bubblewrap)");

  std::vector<std::string> p{bwrap,           "--die-with-parent", "--new-session",
                             "--unshare-all", "--cap-drop",        "ALL"};
  // The system, read-only; merged-/usr links stay links.
  for (const std::string dir :
       {"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc", "/opt", "/sys"}) {
    std::string target;
    if (is_symlink(dir, &target))
      p.insert(p.end(), {"--symlink", target, dir});
    else
      p.insert(p.end(), {"--ro-bind-try", dir, dir});
  }
  // A private /tmp first, so that a repository or build folder under /tmp is bound on top of it.
  p.insert(p.end(),
           {"--size", std::to_string(static_cast<long long>(tmp_mib) << 20), "--tmpfs", "/tmp"});
  // The repository, the build, the data and the libraries the graders load.
  std::vector<std::string> shared = read_only;
  if (const char* ld = std::getenv("LD_LIBRARY_PATH")) {
    std::istringstream dirs(ld);
    std::string dir;
    while (std::getline(dirs, dir, ':'))
      if (!dir.empty()) shared.push_back(dir);
  }
  for (const std::string& dir : shared) p.insert(p.end(), {"--ro-bind-try", dir, dir});
  // The answers: an empty folder, read-only, over each.
  for (const std::string& dir : hidden)
    p.insert(p.end(), {"--size", "4096", "--tmpfs", dir, "--remount-ro", dir});
  p.insert(p.end(), {"--proc", "/proc", "--dev", "/dev"});
  // The GPU: the NVIDIA device nodes only.
  int gpu_nodes = 0;
  if (DIR* dev = opendir("/dev")) {
    while (const dirent* e = readdir(dev)) {
      const std::string name = e->d_name;
      if (name.rfind("nvidia", 0) != 0) continue;
      p.insert(p.end(), {"--dev-bind", "/dev/" + name, "/dev/" + name});
      ++gpu_nodes;
    }
    closedir(dev);
  }
  p.insert(p.end(), {"--chdir", "/tmp", "--"});

  // It must work here: user namespaces may be disabled, or the tool too old for an option.
  std::vector<std::string> probe = p;
  probe.push_back("true");
  ProcessResult r;
  try {
    r = run_process(probe, {}, 30);
  } catch (const std::exception& e) {
    return unavailable(std::string("bubblewrap does not start: ") + e.what());
  }
  if (r.exit_code != 0)
    return unavailable("bubblewrap does not work here (" + describe_ending(r, 30) +
                       "): " + last_lines(r.output, 1));
  Sandbox s;
  s.prefix = p;
  s.description = "bubblewrap: no network, own PID namespace, read-only files, private /tmp (" +
                  std::to_string(tmp_mib) + " MiB), " + std::to_string(gpu_nodes) +
                  " NVIDIA device node(s)" +
                  (hidden.empty() ? "" : ", the course's answers hidden");
  return s;
}

}  // namespace cudalab::grade
