#include "dynamic_shared_ptx.h"

#include "technique.h"

namespace lab06 {

using namespace cudalab::grade;

std::string dynamic_shared_problem(const std::string& ptx, const std::string& kernel_name) {
  std::string problem;
  const auto kernels = kernels_named(ptx, kernel_name, &problem);
  if (!problem.empty()) return problem;
  // Static arrays may be declared in a kernel's body or at module scope; a kernel uses one when
  // its body names it. Extern arrays are always at module scope.
  const auto variables = shared_variables(ptx);
  for (const auto& k : kernels) {
    const std::string who = kernel_name + " (" + k.name + ")";
    bool dynamic = false;
    for (const auto& v : variables) {
      if (!mentions_symbol(k.body, v.name)) continue;
      if (!v.is_extern)
        return who + " uses static shared memory in its PTX (" + v.name + ", " +
               std::to_string(v.bytes) +
               " bytes): all of its shared memory must be an extern __shared__ array, sized by "
               "the third launch parameter";
      dynamic = true;
    }
    const int stores = count_instructions(k.body, "st.shared");
    const int loads = count_instructions(k.body, "ld.shared");
    const int barriers =
        count_instructions(k.body, "bar.sync") + count_instructions(k.body, "barrier.sync");
    const std::string counts = std::to_string(stores) + " st.shared, " + std::to_string(loads) +
                               " ld.shared and " + std::to_string(barriers) +
                               " barrier instruction(s)";
    if (!dynamic)
      return who +
             " uses no dynamic shared memory: its PTX refers to no extern __shared__ array (" +
             counts + "); declare the array extern __shared__ and give its size at launch";
    if (stores == 0 || loads == 0 || barriers == 0)
      return who + " has " + counts +
             " in its PTX: the data must be stored to the dynamic shared array, synchronized, and "
             "read back from there";
  }
  return "";
}

}  // namespace lab06
