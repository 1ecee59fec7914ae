// Technique checks read the built kernel, not the source text: the PTX that nvcc emits for the
// candidate's file shows ld.shared/st.shared (shared memory), .extern .shared (dynamic shared
// memory), ld.const (constant memory), ld.global.nc (read-only path) and tex.* (textures).
//
// What is judged is what runs (docs/grading.md, "Technique checks"):
// - the PTX is the build's, embedded in the grader (one module per architecture the candidate
//   is compiled for), never a file read at run time;
// - a kernel's instructions include those of the .func functions it calls, transitively;
// - the lesson's memory space must feed the kernel's arithmetic: in each loop of floating-point
//   multiplies, the operands traced back (through registers, moves and calls) to their loads;
// - on a GPU, the kernels judged are the ones the candidate's functions launched (CUPTI traces
//   them, launch_trace.h); without one, a check that the PTX passes is skipped, not passed.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace cudalab::grade {

// One PTX module of the candidate's file: its target ("sm_90") and text.
struct PtxModuleText {
  std::string target;
  std::string text;
};

// The candidate's PTX as the build made it, one module per architecture the grader was built for;
// defined by a source file the build generates for each grader (cmake/EmbedPtx.cmake). Empty for
// a lab without technique checks.
std::vector<PtxModuleText> candidate_ptx_modules();

// The modules one after the other; throws std::runtime_error when there are none (a grader built
// without the candidate's PTX).
std::string joined_ptx(const std::vector<PtxModuleText>& modules);

// Every module of the candidate's PTX.
inline std::string candidate_ptx() {
  return joined_ptx(candidate_ptx_modules());
}

struct PtxKernel {
  std::string name;    // mangled, e.g. _ZN5lab029candidate19conv1d_tiled_kernelEPKfS2_Pfii
  std::string target;  // of its module, e.g. sm_90 ("" when the PTX names none)
  // From the opening '{' to its matching '}', then the bodies of the functions it calls
  // (transitively), so that a helper's instructions count as the kernel's.
  std::string body;
};

// Every .entry (kernel) of a PTX text, of each of its modules (a module starts at .version).
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
// array appears as `.shared .align 4 .b8 name[1024];`, inside the body of the one function that
// uses it (nvcc "demotes" it there) or at module scope; an extern __shared__ array appears at
// module scope as `.extern .shared .align 16 .b8 name[];`, and kernels refer to it by name.
std::vector<PtxSharedVariable> shared_variables(const std::string& ptx);

// True when `text` contains `symbol` as a whole PTX identifier, not as part of a longer one.
bool mentions_symbol(const std::string& text, const std::string& symbol);

// ---------------------------------------------------------------------------------------------
// What a kernel does with each memory space: its instructions with its helpers' inlined, the
// loops among them, and, for every value, the state spaces of the loads it is computed from.

// State spaces a value comes from (a bit set).
enum MemorySpace : unsigned {
  kSharedSpace = 1u << 0,   // ld.shared, ldmatrix, wmma.load from shared memory
  kConstSpace = 1u << 1,    // ld.const
  kGlobalSpace = 1u << 2,   // ld.global (.nc too), ldu, atom; a generic ld may read global memory
  kTextureSpace = 1u << 3,  // tex, tld4, suld
  kLocalSpace = 1u << 4,    // ld.local: a per-thread array or a spill
  kParamSpace = 1u << 5,    // a kernel argument
};
inline constexpr unsigned kAnyMemory =
    kSharedSpace | kConstSpace | kGlobalSpace | kTextureSpace | kLocalSpace;

// "shared memory", "constant memory", "shared or constant memory", "a texture", ...
std::string describe_spaces(unsigned spaces);

// The floating-point multiplies (mul, fma, mad, mma) of one part of a kernel: one loop (its own
// instructions, not those of loops inside it) or the code outside every loop. A multiply by an
// immediate zero does not count.
struct MultiplyRegion {
  bool loop = false;
  std::vector<unsigned> sources;  // per multiply: the spaces its multiplicands come from
  int multiplies() const { return static_cast<int>(sources.size()); }
  // Multiplies with a multiplicand from one of `any` and none from `none`.
  int count(unsigned any, unsigned none = 0) const;
};

// A value a kernel writes to global memory (st.global, a generic st, atom/red).
struct StoredValue {
  unsigned sources = 0;  // the spaces the value comes from
  bool in_loop = false;
};

struct KernelAnalysis {
  std::string name;
  std::string target;
  std::string problem;  // "" or why it could not be analysed (then the counts below are empty)
  std::map<std::string, int> opcodes;     // instructions by opcode, its helpers' included
  std::vector<MultiplyRegion> regions;    // loops in the order of their first instruction, then
                                          // the code outside loops (only regions with multiplies)
  std::vector<StoredValue> stored;        // every store to global memory
  std::vector<std::string> functions;     // the .func functions it calls, transitively
  std::vector<PtxSharedVariable> shared;  // .shared variables it or its helpers refer to
  // Instructions whose opcode starts with `prefix` (as count_instructions matches it).
  int count(const std::string& prefix) const;
  // True when a floating-point multiply takes a multiplicand loaded from memory.
  bool multiplies_memory() const;
};

// Every kernel of every module of `ptx`, analysed. Malformed or huge PTX gives kernels with a
// problem, never an exception or a hang.
std::vector<KernelAnalysis> analyse_kernels(const std::string& ptx);

// The regions where the kernel accumulates: every loop with multiplies, and the code outside
// loops when it has at least as many multiplies as the largest loop (or there is no such loop).
std::vector<const MultiplyRegion*> accumulation_regions(const KernelAnalysis& k);

// "" when `lesson` feeds the kernel's arithmetic: in every accumulation region, the multiplies
// with a multiplicand from `lesson` are more than 0 and at least as many as those whose
// multiplicands come from global memory and not `lesson`. Otherwise "<label> (<name>) does not
// compute from <lesson>: ...; <what> must be read from <lesson> where the kernel accumulates".
std::string accumulation_problem(const KernelAnalysis& k, const std::string& label, unsigned lesson,
                                 const std::string& what);

// "" when the values the kernel stores to global memory come from `lesson` (a copy through a
// shared array, a texture fetch): more stores with a value from `lesson` than 0 and at least as
// many as stores of a value from global memory only. Otherwise "<label> (<name>) does not store
// what it reads from <lesson>: ...; <what>".
std::string stored_values_problem(const KernelAnalysis& k, const std::string& label,
                                  unsigned lesson, const std::string& what);

// "" when the kernel (its helpers included) has a shared-memory tile, stored, synchronized and
// read back, and its accumulation reads it (accumulation_problem with shared memory); otherwise
// "no shared-memory tile in <label>: its PTX has <n> st.shared, <n> ld.shared and <n> barrier
// instruction(s) (<name>); <what> must be stored to shared memory, synchronized, and read back
// from there", or accumulation_problem's message.
std::string shared_tile_use_problem(const KernelAnalysis& k, const std::string& label,
                                    const std::string& what);

// ---------------------------------------------------------------------------------------------
// The kernels that ran (launch_trace.h fills this on a GPU).

struct LaunchedKernel {
  std::string name;  // mangled, as the driver knows it
  int launches = 0;
  long long static_shared = 0;   // the largest over its launches, bytes
  long long dynamic_shared = 0;  // the smallest over its launches, bytes
  long long threads = 0;         // over all its launches: grid size x block size
  // What it executed, summed over its launches, read from the GPU's performance counters
  // (grader/serve/counters.h: e.g. "shared_ld", warp-level shared-memory load instructions);
  // empty when they could not be read.
  std::map<std::string, double> counters;
};

struct LaunchTrace {
  bool verified = false;                // the launches were traced on a device
  std::string not_verified;             // why not ("no CUDA device", a CUPTI or device error)
  bool has_device = false;              // there is one: a trace not verified then fails the check
  std::vector<LaunchedKernel> kernels;  // in the order of their first launch
  bool counted = false;                 // the kernels' counters were read
  std::string not_counted;              // why not (privileges, the GPU, CUPTI)
  // The judge's own count (device_counts.h), in a run that takes it (CUDALAB_DEVICE_COUNTS=1):
  // what the GPU executed during the calls, all kernels together, as the signatures read it
  // (as_executed); the kernels' counters are then empty and `counted` says whether this was read.
  bool device_mode = false;
  std::map<std::string, double> device;
  std::string device_note;  // how the samples covered the calls ("412 samples over ...")
};

// What the traced call's kernels executed, summed over their launches (LaunchedKernel::counters).
struct ExecutedWork {
  std::map<std::string, double> named;  // the kernels of the rule's name: lower bounds read
                                        // these, so that another kernel cannot make up for them
  std::map<std::string, double> all;    // every kernel of the candidate's file that ran: upper
                                        // bounds read these
  // One sum, 0 when not counted.
  static double of(const std::map<std::string, double>& m, const std::string& key) {
    const auto it = m.find(key);
    return it != m.end() ? it->second : 0.0;
  }
};

// An execution signature: "" when what ran (ExecutedWork) is the lesson's, otherwise what is not
// (e.g. "2.1 global-memory sectors per output, 0.4 at most for a tiled kernel"); `summary`
// receives the figures it read, per unit of work, for the check's note.
using ExecutionSignature = std::function<std::string(const ExecutedWork&, std::string* summary)>;

// A warp-level count (an instruction a warp executes once for its 32 lanes) per unit of work, as
// if each lane did one: count x 32 / units. Sectors and requests are per unit as they are.
inline double lanes_per_unit(double warp_count, double units) {
  return units > 0 ? warp_count * 32.0 / units : 0.0;
}

// The quantities a signature may read that the judge's count (`executed`, as device_counts.h's
// as_executed gives it) lacks on this chip, comma-separated; "" when it has them all. A signature
// that fails there is not verified rather than failed.
std::string not_sampled(const std::map<std::string, double>& executed);

// "" when `value` (a count per unit of work, e.g. per output) is within [low, high]; otherwise
// "<value> <what> per <unit>, <expected>": the line an execution signature fails with.
std::string per_unit_problem(double value, double low, double high, const std::string& what,
                             const std::string& unit);

// The counters of `work` per unit of work (`units` outputs, rows, edges...), for messages and
// notes: "per output: 0.31 global-load sectors, 9.0 shared loads, ...".
std::string executed_summary(const std::map<std::string, double>& counters, double units,
                             const std::string& unit);

// A technique check's rule, for one function of the candidate run under the trace.
struct TechniqueRule {
  std::string kernel;  // the kernel the lab asks for (a part of its mangled name)
  // The verdict on one kernel: "" when it passes. `label` names it in messages (`kernel`, or "the
  // launched kernel" for one by another name); `launch` is its trace, nullptr when not launched.
  std::function<std::string(const KernelAnalysis& k, const std::string& label,
                            const LaunchedKernel* launch)>
      verdict;
  // Which other launched kernels do the work the verdict is about; by default those with a
  // floating-point multiply fed from memory (a kernel that zeroes or copies an array is not).
  std::function<bool(const KernelAnalysis&)> does_work;
  // The execution signature, on a GPU: what the launched kernels executed (their performance
  // counters, summed) must be the lesson's; "" when it is, otherwise what is not, e.g.
  // "2.1 global-memory sectors per output, 0.4 at most for a tiled kernel". Null: the PTX
  // decides alone (a rule without a signature yet). The PTX is always the first gate; on a GPU a
  // rule with a signature never passes without the counters.
  // `summary` receives the figures the verdict read (per unit of work), for the check's note.
  ExecutionSignature executed;
};

// A rule whose verdict reads the kernel's PTX alone, not its launch: `verdict(k, label)`.
TechniqueRule ptx_rule(
    const std::string& kernel,
    std::function<std::string(const KernelAnalysis& k, const std::string& label)> verdict);

// The rule that `kernel` stages `what` in a shared-memory tile (shared_tile_use_problem).
TechniqueRule shared_tile_rule(const std::string& kernel, const std::string& what);

// "" when what every kernel read from global memory is within `max_loads` loads (lanes) and
// `max_sectors` 32-byte sectors per output; otherwise per_unit_problem's line for the first bound
// broken. The loads bound is the one the judge's own count reads (device_counts.h: it has no
// sectors), so that a file which rewrites its own process's counts is still held to it.
std::string global_traffic_problem(const ExecutedWork& w, double outputs, double max_loads,
                                   double max_sectors);

// "" when what every kernel read from global memory and through the texture unit is within
// `max_loads` loads and fetches (lanes) per `unit` of work (`units` of them); otherwise
// per_unit_problem's line. The judge's own count reads both (device_counts.h).
std::string global_and_texture_problem(const ExecutedWork& w, double units, double max_loads,
                                       const std::string& unit);

// The execution signature of a shared-memory tile over `outputs` outputs: global loads per output
// (lanes, every kernel) at most `max_loads` and global-load sectors per output at most
// `max_sectors` (the inputs read once per tile, not once per tap), and shared loads per output at
// least 0.2 in the kernels of the rule's name (the taps read the tile). The loads bound is the
// one the judge's own count can read (device_counts.h: it has no sectors), so that a file which
// rewrites its own process's counts still meets it.
ExecutionSignature shared_tile_signature(double outputs, double max_loads, double max_sectors);

struct TechniqueVerdict {
  enum class Status { pass, fail, unverified };
  Status status = Status::pass;
  std::string message;  // why it failed or was not verified; for a pass, what was launched
};

// The verdict of `rule` on the candidate's `ptx`. On a device (`trace.verified`): every kernel of
// the candidate's file that the traced function launched and that has the rule's name or does its
// work must pass, and there must be one; a kernel of the rule's name that passes but never runs
// is named ("conv1d_tiled_kernel passes, but it is never launched: your function launched ...").
// Without one: every kernel of the rule's name must pass; if they do, the verdict is unverified.
TechniqueVerdict judge_technique(const std::string& ptx, const TechniqueRule& rule,
                                 const LaunchTrace& trace);

// Ends the current check: FAIL with the messages of the verdicts that failed; otherwise
// skip_check when one is unverified; otherwise a pass, noting what was launched.
void require_technique(const std::vector<TechniqueVerdict>& verdicts);

// Ends the current check with the verdict of `rule` on the candidate's PTX (candidate_ptx()).
inline void require_candidate_technique(const TechniqueRule& rule, const LaunchTrace& trace) {
  require_technique({judge_technique(candidate_ptx(), rule, trace)});
}

}  // namespace cudalab::grade
