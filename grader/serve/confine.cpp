// The seccomp filter of cudalab-serve (confine.h): the rules, and why each.
#include "confine.h"

#include <fcntl.h>
#include <linux/landlock.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace cudalab::serve {

namespace {

// "" or what failed. `writes_too`: no file opened for writing either (a process whose calls are
// timed or checked; one that reads the GPU's counters opens the driver's files for each call's
// range, and is never timed).
std::string forbid(bool executable_memory_too, bool writes_too) {
  scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
  if (f == nullptr) return "seccomp_init failed";
  int rc = 0;
  const auto deny = [&](int syscall, int error) {
    if (rc == 0) rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(error), syscall, 0);
  };
  if (!executable_memory_too) {
    for (int s : {SCMP_SYS(clone),
                  SCMP_SYS(fork),
                  SCMP_SYS(vfork),
                  SCMP_SYS(execve),
                  SCMP_SYS(execveat),
                  SCMP_SYS(ptrace),
                  SCMP_SYS(process_vm_readv),
                  SCMP_SYS(process_vm_writev),
                  SCMP_SYS(rt_sigaction),
                  SCMP_SYS(sigaltstack),
                  SCMP_SYS(setitimer),
                  SCMP_SYS(alarm),
                  SCMP_SYS(timer_create),
                  SCMP_SYS(timerfd_create),
                  SCMP_SYS(io_uring_setup),
                  SCMP_SYS(unshare),
                  SCMP_SYS(setns),
                  SCMP_SYS(bpf),
                  SCMP_SYS(perf_event_open),
                  SCMP_SYS(userfaultfd),
                  SCMP_SYS(pidfd_open),
                  SCMP_SYS(pidfd_getfd),
                  SCMP_SYS(pidfd_send_signal)})
      deny(s, EPERM);
    // clone3 takes its flags in memory a filter cannot read: "not implemented" makes the C
    // library fall back to clone, which is denied above.
    deny(SCMP_SYS(clone3), ENOSYS);
    // Signals to itself only (abort() and raise() still work).
    const scmp_datum_t self = static_cast<scmp_datum_t>(getpid());
    if (rc == 0)
      rc =
          seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(kill), 1, SCMP_A0(SCMP_CMP_NE, self));
    if (rc == 0)
      rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(tgkill), 1,
                            SCMP_A0(SCMP_CMP_NE, self));
    deny(SCMP_SYS(tkill), EPERM);
    // No file opened for writing: the driver opens its device files read-write for every new
    // CUDA context (cuCtxCreate: 18 more descriptors on an H200), so no context can be made
    // beside the one the fence synchronises; and no process's memory (/proc/PID/mem) can be
    // written. Reading stays allowed (dlopen opens the student's library read-only).
    if (writes_too) {
      for (const scmp_datum_t flag : {O_WRONLY, O_RDWR, O_CREAT, O_TRUNC}) {
        if (rc == 0)
          rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), 1,
                                SCMP_A2(SCMP_CMP_MASKED_EQ, flag, flag));
        if (rc == 0)
          rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(open), 1,
                                SCMP_A1(SCMP_CMP_MASKED_EQ, flag, flag));
      }
      deny(SCMP_SYS(creat), EACCES);
      // openat2 takes its flags in memory: "not implemented" (the C library's open uses openat).
      deny(SCMP_SYS(openat2), ENOSYS);
      deny(SCMP_SYS(open_by_handle_at), EPERM);
    }
  } else {
    // No new executable memory: the loaded code stays as it was linked.
    for (int s : {SCMP_SYS(mmap), SCMP_SYS(mprotect), SCMP_SYS(pkey_mprotect)})
      if (rc == 0)
        rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), s, 1,
                              SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, PROT_EXEC));
  }
  if (rc == 0) rc = seccomp_load(f);
  seccomp_release(f);
  return rc == 0 ? "" : std::string("seccomp: ") + std::strerror(-rc);
}

}  // namespace

std::string confine_before_loading(bool no_writes) {
  return forbid(false, no_writes);
}

std::string writes_beneath_only(const std::vector<std::string>& folders) {
#if defined(SYS_landlock_create_ruleset) && defined(SYS_landlock_add_rule) && \
    defined(SYS_landlock_restrict_self)
  // Only opening a file for writing is handled (allowed beneath the folders, refused elsewhere);
  // everything else (reading, listing, the descriptors already open) is as it was.
  landlock_ruleset_attr attr{};
  attr.handled_access_fs = LANDLOCK_ACCESS_FS_WRITE_FILE;
  const int ruleset = static_cast<int>(syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
  if (ruleset < 0)
    return errno == ENOSYS || errno == EOPNOTSUPP
               ? kNoLandlock
               : std::string("landlock_create_ruleset: ") + std::strerror(errno);
  std::string problem;
  for (const std::string& folder : folders) {
    struct stat st {};
    if (stat(folder.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) continue;
    const int fd = open(folder.c_str(), O_PATH | O_CLOEXEC);
    if (fd < 0) {
      problem = "open(" + folder + "): " + std::strerror(errno);
      break;
    }
    landlock_path_beneath_attr beneath{};
    beneath.allowed_access = LANDLOCK_ACCESS_FS_WRITE_FILE;
    beneath.parent_fd = fd;
    if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &beneath, 0) != 0)
      problem = "landlock_add_rule(" + folder + "): " + std::strerror(errno);
    close(fd);
    if (!problem.empty()) break;
  }
  if (problem.empty() && syscall(SYS_landlock_restrict_self, ruleset, 0) != 0)
    problem = std::string("landlock_restrict_self: ") + std::strerror(errno);
  close(ruleset);
  return problem;
#else
  (void)folders;
  return kNoLandlock;
#endif
}

std::string confine_after_loading() {
  return forbid(true, false);
}

// Not open to the other cudalab-serve process of the check (the same user): no /proc/PID/mem,
// no ptrace of this one, whatever the file in that one finds to call.
bool make_undumpable() {
  return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) == 0;
}

}  // namespace cudalab::serve
