// Technique checks read the built kernel, not the source text: the PTX that nvcc emits for the
// candidate's file shows ld.shared/st.shared (shared memory), .extern .shared (dynamic shared
// memory), ld.const (constant memory), ld.global.nc (read-only path) and tex.* (textures). PTX
// is produced on any machine, so these checks run in CI without a GPU.
#pragma once

#include <string>
#include <vector>

namespace cudalab::grade {

// Path of the candidate's PTX, defined for each grader by the build (cmake/CudaLabs.cmake);
// empty for labs without technique checks.
extern const char* const kCandidatePtxPath;

// The candidate's PTX text; throws std::runtime_error when it is missing.
std::string candidate_ptx();

struct PtxKernel {
  std::string name;  // mangled, e.g. _ZN5lab029candidate19conv1d_tiled_kernelEPKfS2_Pfii
  std::string body;  // from the opening '{' to its matching '}'
};

// Every .entry (kernel) of a PTX module.
std::vector<PtxKernel> ptx_kernels(const std::string& ptx);

// Kernels whose mangled name contains `name`; "" in `problem` when at least one exists,
// otherwise a message telling the student to keep the kernel's name.
std::vector<PtxKernel> kernels_named(const std::string& ptx, const std::string& name,
                                     std::string* problem);

// Number of instructions in `body` whose opcode starts with `prefix` ("ld.shared", "ld.const").
int count_instructions(const std::string& body, const std::string& prefix);

// A .shared variable declared in PTX.
struct PtxSharedVariable {
  std::string name;  // mangled, e.g. _ZZN5lab029candidate19conv1d_tiled_kernelEPKfS2_PfiiE4tile
  bool is_extern = false;  // `.extern .shared ... name[]`: dynamic shared memory, sized at launch
  long long bytes = 0;     // declared size; 0 for an extern (unsized) array
};

// Every .shared declaration in `ptx` (a whole module or one kernel's body). A static __shared__
// array appears as `.shared .align 4 .b8 name[1024];`, inside the body of the one kernel that
// uses it (nvcc "demotes" it there) or at module scope; an extern __shared__ array appears at
// module scope as `.extern .shared .align 16 .b8 name[];`, and kernels refer to it by name.
std::vector<PtxSharedVariable> shared_variables(const std::string& ptx);

// True when `text` contains `symbol` as a whole PTX identifier, not as part of a longer one.
bool mentions_symbol(const std::string& text, const std::string& symbol);

}  // namespace cudalab::grade
