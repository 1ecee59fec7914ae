// How cudalab-serve (serve_main.cpp) confines itself around the student's file: a seccomp filter in
// two phases, and no access to it from another process of the same user. Kept apart from the
// serving code (which needs a CUDA context) so that the host tests (grader/tests/test_confine.cpp)
// hold each rule against a process without a GPU.
//
// Each function applies to the calling process, for good: a filter cannot be removed, only
// another added. The filters need PR_SET_NO_NEW_PRIVS first (cudalab-serve sets it).
#pragma once

#include <string>
#include <vector>

namespace cudalab::serve {

// Phase 1, before the student's library is loaded: no threads, no processes, no programs, no
// signal handlers or timers, no tracing of other processes, no signals but to itself; with
// `no_writes`, no file opened for writing either (a process whose calls are timed or checked;
// one that reads the GPU's counters opens the driver's files for each call's range, and is
// never timed). "" or what failed.
std::string confine_before_loading(bool no_writes);

// For a process that reads the GPU's counters (confine_before_loading(false)): files opened for
// writing only beneath `folders` (those that exist), for good, with Landlock (Linux 5.13 and
// later). The driver's device files, which CUPTI's range profiler opens read-write for each
// range, are beneath /dev; /proc/self/mem, through which the file's code could rewrite the
// process's code or data pages whatever their protection (and so the counts), is not. Reading
// stays allowed. "" when applied; kNoLandlock when the kernel has no Landlock (the caller goes
// on without it: docs/grading.md); otherwise what failed. Needs PR_SET_NO_NEW_PRIVS first.
inline constexpr char kNoLandlock[] = "the kernel has no Landlock (Linux 5.13 or later)";
std::string writes_beneath_only(const std::vector<std::string>& folders);

// Phase 2, once the library is loaded: no new executable memory. "" or what failed.
std::string confine_after_loading();

// Not open to another process of the same user (PR_SET_DUMPABLE 0): no /proc/PID/mem, no
// ptrace. Whether prctl succeeded.
bool make_undumpable();

}  // namespace cudalab::serve
