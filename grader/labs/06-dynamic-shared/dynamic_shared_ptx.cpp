#include "dynamic_shared_ptx.h"

namespace lab06 {

using namespace cudalab::grade;

std::string dynamic_shared_kernel_problem(const KernelAnalysis& k, const std::string& label) {
  const std::string who = label + " (" + k.name + ")";
  if (!k.problem.empty()) return who + ": " + k.problem;
  // k.shared: the variables that the kernel or a function it calls refers to; a static array may
  // be declared in a body (nvcc "demotes" it there) or at module scope, an extern one at module
  // scope only.
  bool dynamic = false;
  for (const auto& v : k.shared) {
    if (!v.is_extern)
      return who + " uses static shared memory in its PTX (" + v.name + ", " +
             std::to_string(v.bytes) +
             " bytes, in the kernel or a function it calls): all of its shared memory must be an "
             "extern __shared__ array, sized by the third launch parameter";
    dynamic = true;
  }
  const int stores = k.count("st.shared");
  const int loads = k.count("ld.shared");
  const int barriers = k.count("bar.sync") + k.count("barrier.sync");
  const std::string counts = std::to_string(stores) + " st.shared, " + std::to_string(loads) +
                             " ld.shared and " + std::to_string(barriers) +
                             " barrier instruction(s)";
  if (!dynamic)
    return who + " uses no dynamic shared memory: its PTX refers to no extern __shared__ array (" +
           counts + "); declare the array extern __shared__ and give its size at launch";
  if (stores == 0 || loads == 0 || barriers == 0)
    return who + " has " + counts +
           " in its PTX: the data must be stored to the dynamic shared array, synchronized, and "
           "read back from there";
  return "";
}

std::string dynamic_shared_problem(const std::string& ptx, const std::string& kernel_name) {
  std::string problem;
  kernels_named(ptx, kernel_name, &problem);
  if (!problem.empty()) return problem;
  for (const auto& k : analyse_kernels(ptx)) {
    if (k.name.find(kernel_name) == std::string::npos) continue;
    if (std::string p = dynamic_shared_kernel_problem(k, kernel_name); !p.empty()) return p;
  }
  return "";
}

std::string launched_shared_problem(const LaunchedKernel& launch, const std::string& label) {
  const std::string who = label + " (" + launch.name + ")";
  if (launch.static_shared != 0)
    return who + " has " + std::to_string(launch.static_shared) +
           " bytes of static shared memory on the device (CUPTI's record of its launch): all of "
           "its shared memory must be dynamic";
  if (launch.dynamic_shared <= 0)
    return who +
           " was launched with no dynamic shared memory (CUPTI's record of its launch): "
           "give the array's size as the third launch parameter";
  return "";
}

}  // namespace lab06
