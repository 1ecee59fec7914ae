// The candidate process's confinement (grader/serve/confine.h), without a GPU: each case forks a
// child that sets PR_SET_NO_NEW_PRIVS (as cudalab-serve does), confines itself, tries what the
// filter is for and writes what happened into a pipe; the parent judges it. A child that did not
// run to its end (it crashed, exited early, or became another program) fails the case: its exit
// status and the last line it wrote are both checked.
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>

#include "confine.h"
#include "cudalab/catch.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using cudalab::serve::confine_after_loading;
using cudalab::serve::confine_before_loading;
using cudalab::serve::make_undumpable;
using cudalab::serve::writes_beneath_only;

constexpr int kFinished = 90;  // the child's exit code when it ran to its end

// What a child saw: named results (an errno, 0 for success), and what went wrong in it.
class Report {
 public:
  void set(const std::string& name, long value) {
    text_ += "v " + name + " " + std::to_string(value) + "\n";
  }
  void problem(const std::string& what) { text_ += "p " + what + "\n"; }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

class Results {
 public:
  explicit Results(std::map<std::string, long> values) : values_(std::move(values)) {}
  long operator[](const std::string& name) const {
    INFO("the child's result \"" << name << "\"");
    REQUIRE(values_.count(name) == 1);
    return values_.at(name);
  }

 private:
  std::map<std::string, long> values_;
};

// 0 when the call succeeded, else its errno.
long error_of(long rc) {
  return rc == -1 ? errno : 0;
}

// The same for a call that returns a descriptor, closed when there is one.
long open_error(int fd) {
  if (fd < 0) return errno;
  close(fd);
  return 0;
}

// fork(): 0 when it made a process (which exits at once), else its errno.
long fork_error() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  if (child < 0) return errno;
  waitpid(child, nullptr, 0);
  return 0;
}

std::string describe(int status) {
  if (WIFEXITED(status)) return "exited with " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by ") + strsignal(WTERMSIG(status));
  return "status " + std::to_string(status);
}

bool write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

// Runs `body` in a child (after PR_SET_NO_NEW_PRIVS) and requires that it ran to its end without
// a problem; its results.
Results in_child(const std::function<void(Report&)>& body) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    Report report;
    try {
      if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        report.problem(std::string("PR_SET_NO_NEW_PRIVS: ") + std::strerror(errno));
      else
        body(report);
    } catch (const std::exception& e) {
      report.problem(std::string("exception: ") + e.what());
    } catch (...) {
      report.problem("an exception");
    }
    // No exit handlers, no flush of the test runner's buffers: only what the pipe says.
    _exit(write_all(fds[1], report.text() + "end\n") ? kFinished : 1);
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  for (;;) {
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    text.append(buffer, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);

  INFO("the child " << describe(status) << ", and wrote:\n" << text);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == kFinished);
  REQUIRE(text.size() >= 4);
  REQUIRE(text.compare(text.size() - 4, 4, "end\n") == 0);
  std::map<std::string, long> values;
  std::string problems;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind("v ", 0) == 0) {
      const std::size_t space = line.rfind(' ');
      values[line.substr(2, space - 2)] = std::stol(line.substr(space + 1));
    } else if (line.rfind("p ", 0) == 0) {
      problems += line.substr(2) + "\n";
    }
  }
  REQUIRE(problems.empty());
  return Results(std::move(values));
}

using test_support::file_text;
using test_support::TempFolder;

void on_signal(int) {}
void* nothing(void*) {
  return nullptr;
}

}  // namespace

TEST_CASE("confine_before_loading(true): no file opened for writing, reading still allowed",
          "[grader][confine]") {
  // prepare: a file that exists (with its contents), and names that do not
  TempFolder folder("writes");
  const std::string existing = (folder.path / "existing").string();
  const std::string fresh = (folder.path / "fresh").string();
  const std::string created = (folder.path / "created").string();
  std::ofstream(existing) << "original\n";

  // run: the child tries each way to open a file for writing, after the filter
  const Results r = in_child([&](Report& report) {
    // Allowed before the filter: what fails after fails because of it.
    report.set("before: open(existing, O_WRONLY)", open_error(open(existing.c_str(), O_WRONLY)));
    if (const std::string e = confine_before_loading(true); !e.empty())
      return report.problem("confine_before_loading: " + e);
    report.set("open(/dev/null, O_RDWR)", open_error(open("/dev/null", O_RDWR)));
    report.set("open(existing, O_WRONLY)", open_error(open(existing.c_str(), O_WRONLY)));
    report.set("open(fresh, O_CREAT|O_RDONLY)",
               open_error(open(fresh.c_str(), O_CREAT | O_RDONLY, 0600)));
    report.set("openat(existing, O_RDONLY|O_TRUNC)",
               open_error(openat(AT_FDCWD, existing.c_str(), O_RDONLY | O_TRUNC)));
    report.set("creat(created)", open_error(creat(created.c_str(), 0600)));
#ifdef SYS_open
    // The open system call itself (the C library's open() uses openat).
    report.set("SYS_open(/dev/null, O_WRONLY)",
               open_error(static_cast<int>(syscall(SYS_open, "/dev/null", O_WRONLY))));
#endif
    open_how how{};
    how.flags = O_RDONLY;
    report.set("openat2(existing, O_RDONLY)",
               open_error(static_cast<int>(
                   syscall(SYS_openat2, AT_FDCWD, existing.c_str(), &how, sizeof how))));
    report.set("open(/proc/self/mem, O_RDWR)", open_error(open("/proc/self/mem", O_RDWR)));
    // Reading: a file of its own process, and the existing file.
    const int status = open("/proc/self/status", O_RDONLY);
    report.set("open(/proc/self/status, O_RDONLY)", status < 0 ? errno : 0);
    if (status >= 0) {
      char text[8192] = {};
      const ssize_t n = read(status, text, sizeof text - 1);
      report.set("read /proc/self/status", n > 0 ? 0 : errno);
      report.set("/proc/self/status says Seccomp: 2 (filtered)",
                 n > 0 && std::strstr(text, "\nSeccomp:\t2\n") != nullptr);
      close(status);
    }
    const int in = open(existing.c_str(), O_RDONLY);
    report.set("open(existing, O_RDONLY)", in < 0 ? errno : 0);
    if (in >= 0) {
      char text[64] = {};
      report.set("read existing", read(in, text, sizeof text - 1) == 9 ? 0 : -1);
      close(in);
    }
  });

  // verify: every write refused with the filter's error, every read allowed, nothing changed
  CHECK(r["before: open(existing, O_WRONLY)"] == 0);
  CHECK(r["open(/dev/null, O_RDWR)"] == EACCES);
  CHECK(r["open(existing, O_WRONLY)"] == EACCES);
  CHECK(r["open(fresh, O_CREAT|O_RDONLY)"] == EACCES);
  CHECK(r["openat(existing, O_RDONLY|O_TRUNC)"] == EACCES);
  CHECK(r["creat(created)"] == EACCES);
#ifdef SYS_open
  CHECK(r["SYS_open(/dev/null, O_WRONLY)"] == EACCES);
#endif
  CHECK(r["openat2(existing, O_RDONLY)"] == ENOSYS);
  CHECK(r["open(/proc/self/mem, O_RDWR)"] == EACCES);
  CHECK(r["open(/proc/self/status, O_RDONLY)"] == 0);
  CHECK(r["read /proc/self/status"] == 0);
  CHECK(r["/proc/self/status says Seccomp: 2 (filtered)"] == 1);
  CHECK(r["open(existing, O_RDONLY)"] == 0);
  CHECK(r["read existing"] == 0);
  CHECK(file_text(existing) == "original\n");
  CHECK_FALSE(fs::exists(fresh));
  CHECK_FALSE(fs::exists(created));
}

TEST_CASE("confine_before_loading(false): files may be opened for writing (a counted process)",
          "[grader][confine]") {
  TempFolder folder("counted");
  const std::string existing = (folder.path / "existing").string();
  std::ofstream(existing) << "original\n";

  const Results r = in_child([&](Report& report) {
    if (const std::string e = confine_before_loading(false); !e.empty())
      return report.problem("confine_before_loading: " + e);
    report.set("open(/dev/null, O_RDWR)", open_error(open("/dev/null", O_RDWR)));
    const int out = open(existing.c_str(), O_WRONLY | O_TRUNC);
    report.set("open(existing, O_WRONLY|O_TRUNC)", out < 0 ? errno : 0);
    if (out >= 0) {
      report.set("write", write_all(out, "counted\n") ? 0 : errno);
      close(out);
    }
    // The rest of phase 1 holds all the same.
    report.set("fork", fork_error());
  });

  CHECK(r["open(/dev/null, O_RDWR)"] == 0);
  CHECK(r["open(existing, O_WRONLY|O_TRUNC)"] == 0);
  CHECK(r["write"] == 0);
  CHECK(file_text(existing) == "counted\n");
  CHECK(r["fork"] == EPERM);
}

TEST_CASE("writes_beneath_only: a counted process writes its allowed folders, not /proc/self/mem",
          "[grader][confine]") {
  // prepare: a folder the process may write in, and one it may not
  TempFolder allowed("landlock-allowed"), other("landlock-other");
  const std::string inside = (allowed.path / "inside").string();
  const std::string outside = (other.path / "outside").string();
  std::ofstream(outside) << "original\n";

  // run: as cudalab-serve confines a counted process (seccomp without the write rule, then
  // Landlock), the child tries to open each for writing
  std::string landlock;
  const Results r = in_child([&](Report& report) {
    if (const std::string e = confine_before_loading(false); !e.empty())
      return report.problem("confine_before_loading: " + e);
    const std::string e = writes_beneath_only({"/dev", allowed.path.string(), "/no/such/folder"});
    report.set("landlock available", e != cudalab::serve::kNoLandlock);
    if (!e.empty() && e != cudalab::serve::kNoLandlock)
      return report.problem("writes_beneath_only: " + e);
    report.set("open(/proc/self/mem, O_RDWR)", open_error(open("/proc/self/mem", O_RDWR)));
    report.set("open(/proc/self/mem, O_RDONLY)", open_error(open("/proc/self/mem", O_RDONLY)));
    report.set("open(/dev/null, O_RDWR)", open_error(open("/dev/null", O_RDWR)));
    const int in = open(inside.c_str(), O_WRONLY | O_CREAT, 0600);
    report.set("open(inside, O_WRONLY|O_CREAT)", in < 0 ? errno : 0);
    if (in >= 0) {
      report.set("write inside", write_all(in, "counted\n") ? 0 : errno);
      close(in);
    }
    report.set("open(outside, O_WRONLY|O_TRUNC)",
               open_error(open(outside.c_str(), O_WRONLY | O_TRUNC)));
    report.set("open(outside, O_RDONLY)", open_error(open(outside.c_str(), O_RDONLY)));
    report.set("fork", fork_error());  // the seccomp rules still hold
  });

  // verify: with Landlock, only /proc/self/mem and the other folder are refused for writing
  if (r["landlock available"] == 0) {
    WARN("this kernel has no Landlock: a counted process's writes are not limited here");
    return;
  }
  CHECK(r["open(/proc/self/mem, O_RDWR)"] == EACCES);
  CHECK(r["open(/proc/self/mem, O_RDONLY)"] == 0);
  CHECK(r["open(/dev/null, O_RDWR)"] == 0);
  CHECK(r["open(inside, O_WRONLY|O_CREAT)"] == 0);
  CHECK(r["write inside"] == 0);
  CHECK(file_text(inside) == "counted\n");
  CHECK(r["open(outside, O_WRONLY|O_TRUNC)"] == EACCES);
  CHECK(r["open(outside, O_RDONLY)"] == 0);
  CHECK(file_text(outside) == "original\n");
  CHECK(r["fork"] == EPERM);
}

TEST_CASE(
    "confine_before_loading: no threads, processes, programs, handlers, timers, signals to others",
    "[grader][confine]") {
  const bool no_writes = GENERATE(true, false);
  INFO("confine_before_loading(" << std::boolalpha << no_writes << ")");

  const Results r = in_child([&](Report& report) {
    report.set("before: kill(parent, 0)", error_of(kill(getppid(), 0)));
    if (const std::string e = confine_before_loading(no_writes); !e.empty())
      return report.problem("confine_before_loading: " + e);
    // Threads: clone3 "not implemented", then the C library's fallback, clone, refused.
    report.set("clone3", error_of(syscall(SYS_clone3, nullptr, 0)));
    pthread_t thread;
    const int created = pthread_create(&thread, nullptr, nothing, nullptr);
    if (created == 0) pthread_join(thread, nullptr);
    report.set("pthread_create", created);
    try {
      std::thread t([] {});
      t.join();
      report.set("std::thread", 0);
    } catch (const std::system_error& e) {
      report.set("std::thread", e.code().value());
    }
    // Processes and programs.
    report.set("fork", fork_error());
    char true_path[] = "/bin/true";
    char* const argv[] = {true_path, nullptr};
    char* const envp[] = {nullptr};
    report.set("execve(/bin/true)", error_of(execve(true_path, argv, envp)));
    // Signal handlers, alternate stacks and timers.
    struct sigaction action {};
    action.sa_handler = on_signal;
    sigemptyset(&action.sa_mask);
    report.set("sigaction(SIGUSR1, handler)", error_of(sigaction(SIGUSR1, &action, nullptr)));
    report.set("signal(SIGUSR1, handler) is SIG_ERR", signal(SIGUSR1, on_signal) == SIG_ERR);
    const itimerval timer{{0, 0}, {100, 0}};
    report.set("setitimer", error_of(setitimer(ITIMER_REAL, &timer, nullptr)));
    // Signals to itself only; no tracing of another process.
    report.set("kill(parent, 0)", error_of(kill(getppid(), 0)));
    report.set("kill(self, 0)", error_of(kill(getpid(), 0)));
    report.set("ptrace(PEEKDATA, parent)",
               error_of(ptrace(PTRACE_PEEKDATA, getppid(), nullptr, nullptr)));
  });

  CHECK(r["before: kill(parent, 0)"] == 0);
  CHECK(r["clone3"] == ENOSYS);
  CHECK(r["pthread_create"] == EPERM);  // clone3 not implemented, then clone refused
  CHECK(r["std::thread"] == EPERM);
  CHECK(r["fork"] == EPERM);
  CHECK(r["execve(/bin/true)"] == EPERM);
  CHECK(r["sigaction(SIGUSR1, handler)"] == EPERM);
  CHECK(r["signal(SIGUSR1, handler) is SIG_ERR"] == 1);
  CHECK(r["setitimer"] == EPERM);
  CHECK(r["kill(parent, 0)"] == EPERM);
  CHECK(r["kill(self, 0)"] == 0);
  CHECK(r["ptrace(PEEKDATA, parent)"] == EPERM);
}

TEST_CASE("confine_after_loading: no new executable memory", "[grader][confine]") {
  const Results r = in_child([&](Report& report) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    // Allowed before: what fails after fails because of the filter.
    void* before = mmap(nullptr, page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    report.set("before: mmap(PROT_READ|PROT_EXEC)", before == MAP_FAILED ? errno : 0);
    if (before != MAP_FAILED) munmap(before, page);
    // The order of cudalab-serve: phase 1, the library loaded, phase 2.
    if (const std::string e = confine_before_loading(true); !e.empty())
      return report.problem("confine_before_loading: " + e);
    if (const std::string e = confine_after_loading(); !e.empty())
      return report.problem("confine_after_loading: " + e);
    void* exec = mmap(nullptr, page, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    report.set("mmap(PROT_READ|PROT_EXEC)", exec == MAP_FAILED ? errno : 0);
    void* rwx =
        mmap(nullptr, page, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    report.set("mmap(PROT_READ|PROT_WRITE|PROT_EXEC)", rwx == MAP_FAILED ? errno : 0);
    // A file's pages mapped executable (what dlopen does): the test program itself.
    const int self = open("/proc/self/exe", O_RDONLY);
    report.set("open(/proc/self/exe, O_RDONLY)", self < 0 ? errno : 0);
    if (self >= 0) {
      void* code = mmap(nullptr, page, PROT_READ | PROT_EXEC, MAP_PRIVATE, self, 0);
      report.set("mmap(file, PROT_READ|PROT_EXEC)", code == MAP_FAILED ? errno : 0);
      void* data = mmap(nullptr, page, PROT_READ, MAP_PRIVATE, self, 0);
      report.set("mmap(file, PROT_READ)", data == MAP_FAILED ? errno : 0);
      if (data != MAP_FAILED) munmap(data, page);
      close(self);
    }
    // Plain memory: mapped, written, made executable (refused), made read-only (allowed).
    void* plain = mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    report.set("mmap(PROT_READ|PROT_WRITE)", plain == MAP_FAILED ? errno : 0);
    if (plain != MAP_FAILED) {
      std::memset(plain, 0xc3, page);  // ret, were it ever executable
      report.set("mprotect(+PROT_EXEC)", error_of(mprotect(plain, page, PROT_READ | PROT_EXEC)));
      report.set("pkey_mprotect(+PROT_EXEC)",
                 error_of(syscall(SYS_pkey_mprotect, plain, page, PROT_READ | PROT_EXEC, -1)));
      report.set("mprotect(PROT_READ)", error_of(mprotect(plain, page, PROT_READ)));
      report.set("read back", static_cast<const unsigned char*>(plain)[page - 1] == 0xc3 ? 0 : -1);
      munmap(plain, page);
    }
  });

  CHECK(r["before: mmap(PROT_READ|PROT_EXEC)"] == 0);
  CHECK(r["mmap(PROT_READ|PROT_EXEC)"] == EPERM);
  CHECK(r["mmap(PROT_READ|PROT_WRITE|PROT_EXEC)"] == EPERM);
  CHECK(r["open(/proc/self/exe, O_RDONLY)"] == 0);
  CHECK(r["mmap(file, PROT_READ|PROT_EXEC)"] == EPERM);
  CHECK(r["mmap(file, PROT_READ)"] == 0);
  CHECK(r["mmap(PROT_READ|PROT_WRITE)"] == 0);
  CHECK(r["mprotect(+PROT_EXEC)"] == EPERM);
  CHECK(r["pkey_mprotect(+PROT_EXEC)"] == EPERM);
  CHECK(r["mprotect(PROT_READ)"] == 0);
  CHECK(r["read back"] == 0);
}

TEST_CASE(
    "make_undumpable (confine.h): another process of the same user cannot open its /proc/PID/mem",
    "[grader][confine]") {
  // A prober (a child of the test) starts the target (its own child) and opens the target's
  // /proc/PID/mem before and after the target calls make_undumpable(). The prober is the target's
  // parent, not its sibling as the other cudalab-serve process is: Yama's ptrace_scope 1 (many
  // distributions' default) lets only an ancestor in, and the dumpable check is the same for both.
  // Root passes that check with CAP_SYS_PTRACE, so the prober (and the target, its child) gives up
  // every capability first: the same user, as the two cudalab-serve processes are.
  const Results r = in_child([&](Report& report) {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {};
    report.set("capset (no capabilities)", error_of(syscall(SYS_capset, &header, none)));
    int go[2], done[2];
    if (pipe(go) != 0 || pipe(done) != 0) return report.problem("pipe failed");
    const pid_t target = fork();
    if (target < 0) return report.problem("fork failed");
    if (target == 0) {
      // The target: undumpable when told to, then waits for the prober's end (EOF).
      close(go[1]);
      close(done[0]);
      char c = 0;
      if (read(go[0], &c, 1) != 1) _exit(1);
      const char undumpable = make_undumpable() ? 'y' : 'n';
      if (write(done[1], &undumpable, 1) != 1) _exit(1);
      while (read(go[0], &c, 1) > 0) {
      }
      _exit(0);
    }
    close(go[0]);
    close(done[1]);
    const std::string mem = "/proc/" + std::to_string(target) + "/mem";
    report.set("before: open(mem, O_RDONLY)", open_error(open(mem.c_str(), O_RDONLY)));
    char c = 'g';
    const bool told = write(go[1], &c, 1) == 1 && read(done[0], &c, 1) == 1;
    report.set("make_undumpable", told && c == 'y');
    report.set("after: open(mem, O_RDONLY)", open_error(open(mem.c_str(), O_RDONLY)));
    close(go[1]);
    int status = 0;
    waitpid(target, &status, 0);
    report.set("target's exit code", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  });

  CHECK(r["capset (no capabilities)"] == 0);
  CHECK(r["make_undumpable"] == 1);
  CHECK(r["target's exit code"] == 0);
  if (r["before: open(mem, O_RDONLY)"] != 0) {
    // Yama's ptrace_scope 2 or 3: no process without CAP_SYS_PTRACE reads another's memory, so
    // this machine cannot show the difference.
    std::ifstream yama("/proc/sys/kernel/yama/ptrace_scope");
    int scope = 0;
    if (yama >> scope && scope >= 2) {
      WARN("not tested here: Yama's ptrace_scope is " << scope << ", no /proc/PID/mem even before");
      return;
    }
  }
  CHECK(r["before: open(mem, O_RDONLY)"] == 0);
  const long after = r["after: open(mem, O_RDONLY)"];
  INFO("after make_undumpable: " << std::strerror(static_cast<int>(after)));
  CHECK((after == EACCES || after == EPERM));
}
