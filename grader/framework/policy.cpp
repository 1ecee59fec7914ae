#include "policy.h"

#include <stdexcept>

namespace cudalab::grade {

const LabPolicy& lab_policy(const std::string& lab) {
  for (const auto& p : kLabPolicies)
    if (lab == p.lab) return p;
  throw std::out_of_range("no grading policy for lab " + lab);
}

double perf_credit(double ratio, double r_full, double r_zero) {
  if (!(ratio == ratio)) return 0.0;  // NaN
  if (ratio <= r_full) return 1.0;
  if (ratio >= r_zero) return 0.0;
  return (r_zero - ratio) / (r_zero - r_full);
}

}  // namespace cudalab::grade
