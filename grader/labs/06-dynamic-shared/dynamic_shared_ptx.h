// The lab's technique checks: a kernel keeps all of its shared memory in an extern __shared__
// array (dynamic: sized by the third launch parameter), stores to it, reads it back after a
// barrier, and declares no static __shared__ array, neither itself nor in a function it calls.
// On the device, CUPTI's record of each launch must show the same: no static shared bytes, some
// dynamic ones.
#pragma once

#include <string>

#include "technique.h"

namespace lab06 {

// "" when the kernel (its helpers included) passes; otherwise the problem, in words a student
// can act on; `label` names the kernel.
std::string dynamic_shared_kernel_problem(const cudalab::grade::KernelAnalysis& k,
                                          const std::string& label);

// "" when every kernel whose name contains `kernel_name` passes; otherwise the first problem. The
// kernel must exist (kernels_named's message otherwise).
std::string dynamic_shared_problem(const std::string& ptx, const std::string& kernel_name);

// "" when a launched kernel had no static shared memory and some dynamic shared memory on the
// device; otherwise why not.
std::string launched_shared_problem(const cudalab::grade::LaunchedKernel& launch,
                                    const std::string& label);

}  // namespace lab06
