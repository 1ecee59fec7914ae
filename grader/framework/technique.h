// Technique checks read the built kernel, not the source text: the PTX that nvcc emits for the
// candidate's file shows ld.shared/st.shared (shared memory), .extern .shared (dynamic shared
// memory), ld.const (constant memory), ld.global.nc (read-only path) and tex.* (textures). PTX
// is produced on any machine, so these checks run in CI without a GPU.
#pragma once

#include <functional>
#include <map>
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

// Instructions counted as one kind: its name and the opcode prefixes that count under it, e.g.
// {"barrier", {"bar.sync", "barrier.sync"}}.
struct InstructionKind {
  std::string name;
  std::vector<std::string> prefixes;
};

// The kinds that make a shared-memory tile: stores to it, loads from it, and the barrier between.
inline const InstructionKind kSharedStores{"st.shared", {"st.shared"}};
inline const InstructionKind kSharedLoads{"ld.shared", {"ld.shared"}};
inline const InstructionKind kBarriers{"barrier", {"bar.sync", "barrier.sync"}};
// Loads from constant memory (a __constant__ buffer).
inline const InstructionKind kConstantLoads{"ld.const", {"ld.const"}};

// How many instructions of each kind one kernel has.
struct KernelInstructions {
  std::string kernel;                 // the kernel's mangled name
  std::map<std::string, int> counts;  // by kind name
  // The count of the kind named `kind`; throws std::out_of_range for a kind not counted.
  int operator[](const std::string& kind) const { return counts.at(kind); }
};

// Every kernel named `name` in `ptx` (as kernels_named finds it, with the same `problem`) with its
// count of each of `kinds`.
std::vector<KernelInstructions> count_kernel_instructions(const std::string& ptx,
                                                          const std::string& name,
                                                          const std::vector<InstructionKind>& kinds,
                                                          std::string* problem);

// True when a kernel counted with kSharedStores, kSharedLoads and kBarriers stores to shared
// memory, synchronizes, and loads from it.
bool has_shared_tile(const KernelInstructions& k);

// A technique check's verdict on one kernel: "" when it passes, otherwise why not.
using KernelVerdict = std::function<std::string(const KernelInstructions&)>;

// The failure message of a technique check: "" when there is a kernel named `name` in `ptx` and
// `verdict` passes every such kernel, counted with `kinds`; otherwise kernels_named's problem, or
// the verdicts of the kernels that fail, one a line.
std::string technique_problem(const std::string& ptx, const std::string& name,
                              const std::vector<InstructionKind>& kinds,
                              const KernelVerdict& verdict);

// technique_problem for a kernel that must stage `what` ("the input tile") in shared memory: ""
// when every kernel named `name` stores to shared memory, synchronizes and loads from it;
// otherwise "no shared-memory tile in <name>: its PTX has ... (<mangled name>); <what> must be
// stored to shared memory, synchronized, and read back from there".
std::string shared_tile_problem(const std::string& ptx, const std::string& name,
                                const std::string& what);

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
