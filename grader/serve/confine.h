// How cudalab-serve (serve_main.cpp) confines itself around the student's file: a seccomp filter in
// two phases, and no access to it from another process of the same user. Kept apart from the
// serving code (which needs a CUDA context) so that the host tests (grader/tests/test_confine.cpp)
// hold each rule against a process without a GPU.
//
// Each function applies to the calling process, for good: a filter cannot be removed, only
// another added. The filters need PR_SET_NO_NEW_PRIVS first (cudalab-serve sets it).
#pragma once

#include <string>

namespace cudalab::serve {

// Phase 1, before the student's library is loaded: no threads, no processes, no programs, no
// signal handlers or timers, no tracing of other processes, no signals but to itself; with
// `no_writes`, no file opened for writing either (a process whose calls are timed or checked;
// one that reads the GPU's counters opens the driver's files for each call's range, and is
// never timed). "" or what failed.
std::string confine_before_loading(bool no_writes);

// Phase 2, once the library is loaded: no new executable memory. "" or what failed.
std::string confine_after_loading();

// Not open to another process of the same user (PR_SET_DUMPABLE 0): no /proc/PID/mem, no
// ptrace. Whether prctl succeeded.
bool make_undumpable();

}  // namespace cudalab::serve
