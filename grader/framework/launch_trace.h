// Which kernels a candidate's function launched, as the driver saw them: CUPTI's activity API
// records every kernel that runs (whatever stream, thread or API launched it), with its name and
// its static and dynamic shared memory. The technique checks judge those kernels
// (technique.h, judge_technique), so a kernel in the file that never runs cannot stand in for
// the one that does.
//
// Only the technique checks trace: CUPTI stays untouched in every other check (compute-sanitizer
// runs the correctness checks, and the two do not mix). Tracing writes no file.
#pragma once

#include <functional>

#include "technique.h"

namespace cudalab::grade {

// Whether a trace also reads what each kernel executed (the GPU's performance counters, for a
// rule with an execution signature): every launch is then replayed once per counter pass.
enum class Counting { off, on };

// Runs `work` (a call of the candidate's function on a small case) with kernel tracing on, and
// returns the kernels that ran. Without a CUDA device `work` is not run and the trace says why it
// is not verified; a CUPTI or device error gives an unverified trace marked as a grader problem.
// Exceptions from `work` propagate once tracing is off.
LaunchTrace trace_launches(const std::function<void()>& work, Counting counting = Counting::off);

}  // namespace cudalab::grade
