// The lab's technique check, read from the candidate's PTX: a kernel keeps all of its shared
// memory in an extern __shared__ array (dynamic: sized by the third launch parameter), stores to
// it, reads it back after a barrier, and declares no static __shared__ array.
#pragma once

#include <string>

namespace lab06 {

// "" when every kernel whose name contains `kernel_name` passes; otherwise the first problem, in
// words a student can act on. The kernel must exist (kernels_named's message otherwise).
std::string dynamic_shared_problem(const std::string& ptx, const std::string& kernel_name);

}  // namespace lab06
