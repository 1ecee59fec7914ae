// The parts of lab 10's grading support that FAIL the current Catch2 check; in a file of their
// own so that the runner, which links the rest of the support library, needs no Catch2.
#include "cnn_check.h"
#include "grading.h"

namespace lab10 {

using cudalab::grade::base_seed;

void require_all_pass(const std::vector<LayerCase>& cases, const CnnVariant& v, Kernel kernel) {
  cudalab::grade::require_all_cases(cases,
                                    [&](const LayerCase& c) { return run_case(c, v, kernel); });
}

void grade_layer_performance(int layer, const CnnVariant& candidate, const CnnVariant& reference) {
  PerfCase perf(layer, base_seed());
  if (std::string p = perf.validate(candidate, Kernel::fast); !p.empty())
    FAIL("not timed: the output must be correct first\n" + p);
  grade_performance("10", perf.launch(candidate, Kernel::fast),
                    perf.launch(reference, Kernel::fast), perf.workload());
}

}  // namespace lab10
