// Technique checks read PTX: kernels are found by name, instructions counted by opcode (with the
// functions a kernel calls), loops found and each multiply's operands traced to their loads, and
// the verdict given on the kernels that were launched.
#include "cudalab/catch.h"
#include "technique.h"

#include <stdexcept>
#include <string>
#include <vector>

using namespace cudalab::grade;  // the whole of technique.h is under test

namespace {

const char* const kPtx = R"(
.version 8.0
.target sm_75
.address_size 64

.const .align 4 .b8 _ZN5lab039candidate6c_maskE[4096];

.visible .entry _ZN5lab029candidate19conv1d_tiled_kernelEPKfS2_Pfii(
	.param .u64 p0,
	.param .u32 p1
)
{
	.reg .f32 	%f<4>;
	// demoted variable
	.shared .align 4 .b8 _ZZ4tile[1024];
	st.shared.f32 	[%r4], %f1;
	bar.sync 	0;
	@%p1 ld.shared.f32 	%f2, [%r8];
	ld.shared.v4.f32 	{%f1, %f2, %f3, %f4}, [%r9];
	{
	.reg .b32 %inner;
	}
	ret;
}

.visible .entry _ZN5lab039candidate22conv1d_constant_kernelEPKfPfii(
	.param .u64 p0
)
{
	ld.const.f32 	%f3, [%rd9];
	ld.global.nc.f32 	%f4, [%rd10];
	ret;
}
)";

}  // namespace

TEST_CASE("joined_ptx says when a grader has no PTX, and joins the modules",
          "[grader][technique]") {
  REQUIRE_THROWS_AS(joined_ptx({}), std::runtime_error);
  const std::string both = joined_ptx(
      {{"sm_75", ".version 8.0\n.target sm_75\n"}, {"sm_90", ".version 8.0\n.target sm_90\n"}});
  CHECK(both.find("sm_75") < both.find("sm_90"));
}

TEST_CASE("ptx_kernels finds every entry with its whole body", "[grader][technique]") {
  const auto kernels = ptx_kernels(kPtx);
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].name == "_ZN5lab029candidate19conv1d_tiled_kernelEPKfS2_Pfii");
  // The nested block does not end the body early.
  CHECK(kernels[0].body.find("ret;") != std::string::npos);
  CHECK(kernels[0].body.find("ld.const") == std::string::npos);
  CHECK(kernels[1].body.find("ld.const.f32") != std::string::npos);
}

TEST_CASE("count_instructions counts opcodes, predicated ones too, not longer names",
          "[grader][technique]") {
  const auto kernels = ptx_kernels(kPtx);
  REQUIRE(kernels.size() == 2);
  CHECK(count_instructions(kernels[0].body, "ld.shared") == 2);
  CHECK(count_instructions(kernels[0].body, "st.shared") == 1);
  CHECK(count_instructions(kernels[0].body, "bar.sync") == 1);
  CHECK(count_instructions(kernels[1].body, "ld.const") == 1);
  CHECK(count_instructions(kernels[1].body, "ld.global") == 1);
  CHECK(count_instructions(kernels[1].body, "ld.glob") == 0);
  // Directives count by their first word too: one static .shared declaration.
  CHECK(count_instructions(kernels[0].body, ".shared") == 1);
}

TEST_CASE("kernels_named explains a missing kernel", "[grader][technique]") {
  std::string problem;
  CHECK(kernels_named(kPtx, "conv1d_tiled_kernel", &problem).size() == 1);
  CHECK(problem.empty());
  CHECK(kernels_named(kPtx, "reverse_kernel", &problem).empty());
  CHECK(problem.find("no kernel named reverse_kernel") != std::string::npos);
  CHECK(problem.find("conv1d_constant_kernel") != std::string::npos);
  CHECK(kernels_named("", "x", &problem).empty());
  CHECK(problem.find("kernels found: none") != std::string::npos);
}

TEST_CASE("count_kernel_instructions counts each kind in every kernel of a name",
          "[grader][technique]") {
  const std::vector<InstructionKind> kinds = {
      kSharedStores, kSharedLoads, kBarriers, {"const or global", {"ld.const", "ld.global"}}};
  std::string problem;
  // "_kernel" names both kernels, in the PTX's order.
  const auto counted = count_kernel_instructions(kPtx, "_kernel", kinds, &problem);
  CHECK(problem.empty());
  REQUIRE(counted.size() == 2);
  CHECK(counted[0].kernel == "_ZN5lab029candidate19conv1d_tiled_kernelEPKfS2_Pfii");
  CHECK(counted[0]["st.shared"] == 1);
  CHECK(counted[0]["ld.shared"] == 2);
  CHECK(counted[0]["barrier"] == 1);
  CHECK(counted[0]["const or global"] == 0);
  CHECK(counted[1]["ld.shared"] == 0);
  CHECK(counted[1]["const or global"] == 2);  // a kind sums its prefixes
  CHECK_THROWS_AS(counted[1]["tex"], std::out_of_range);
  CHECK(has_shared_tile(counted[0]));
  CHECK_FALSE(has_shared_tile(counted[1]));
  CHECK(count_kernel_instructions(kPtx, "reverse_kernel", kinds, &problem).empty());
  CHECK(problem.find("no kernel named reverse_kernel") != std::string::npos);
}

TEST_CASE("technique_problem gathers the verdicts of the kernels that fail",
          "[grader][technique]") {
  const auto no_tile = [](const KernelInstructions& k) -> std::string {
    return has_shared_tile(k) ? "" : "no tile in " + k.kernel;
  };
  const std::vector<InstructionKind> tile = {kSharedStores, kSharedLoads, kBarriers};
  CHECK(technique_problem(kPtx, "conv1d_tiled_kernel", tile, no_tile).empty());
  CHECK(technique_problem(kPtx, "conv1d_constant_kernel", tile, no_tile) ==
        "no tile in _ZN5lab039candidate22conv1d_constant_kernelEPKfPfii");
  // A missing kernel: kernels_named's problem, and the verdict is not asked.
  const std::string missing = technique_problem(kPtx, "reverse_kernel", tile, no_tile);
  CHECK(missing.find("no kernel named reverse_kernel") != std::string::npos);
  // Several failing kernels: one line each (here the verdict fails every kernel).
  const std::string both = technique_problem(
      kPtx, "_kernel", tile, [](const KernelInstructions& k) { return "fails: " + k.kernel; });
  CHECK(both ==
        "fails: _ZN5lab029candidate19conv1d_tiled_kernelEPKfS2_Pfii\n"
        "fails: _ZN5lab039candidate22conv1d_constant_kernelEPKfPfii");
}

TEST_CASE("shared_tile_problem words a missing shared-memory tile", "[grader][technique]") {
  CHECK(shared_tile_problem(kPtx, "conv1d_tiled_kernel", "the tile").empty());
  CHECK(shared_tile_problem(kPtx, "conv1d_constant_kernel", "the tile") ==
        "no shared-memory tile in conv1d_constant_kernel: its PTX has 0 st.shared, 0 ld.shared "
        "and 0 barrier instruction(s) (_ZN5lab039candidate22conv1d_constant_kernelEPKfPfii); "
        "the tile must be stored to shared memory, synchronized, and read back from there");
}

namespace {

// Static and dynamic shared memory as nvcc writes them: an extern array at module scope that the
// first kernel refers to, a static array demoted into the second kernel's body, and a static
// array at module scope.
const char* const kSharedPtx = R"(
.extern .shared .align 16 .b8 _ZN5lab069candidate5chunkE[];
.shared .align 4 .b8 _ZN5lab069candidate9filescopeE[512];

.visible .entry _ZN5lab069candidate14reverse_kernelEPKiPii(
	.param .u32 p0
)
{
	mov.u32 	%r11, _ZN5lab069candidate5chunkE;
	st.shared.u32 	[%r12], %r9;
	ret;
}

.visible .entry _ZN5lab069candidate21conv1d_dynamic_kernelEPKfS2_Pfiii(
	.param .u32 p0
)
{
	// demoted variable
	.shared .align 4 .b8 _ZZN5lab069candidate21conv1d_dynamic_kernelEPKfS2_PfiiiE4stat[256];
	.shared .align 8 .u64 _ZZN5lab069candidate21conv1d_dynamic_kernelEPKfS2_PfiiiE3one;
	mov.u32 	%r4, _ZN5lab069candidate9filescopeE;
	ret;
}
)";

}  // namespace

TEST_CASE("shared_variables lists static and extern .shared declarations with their sizes",
          "[grader][technique]") {
  const auto vars = shared_variables(kSharedPtx);
  REQUIRE(vars.size() == 4);
  CHECK(vars[0].name == "_ZN5lab069candidate5chunkE");
  CHECK(vars[0].is_extern);
  CHECK(vars[0].bytes == 0);
  CHECK(vars[1].name == "_ZN5lab069candidate9filescopeE");
  CHECK_FALSE(vars[1].is_extern);
  CHECK(vars[1].bytes == 512);
  CHECK(vars[2].bytes == 256);
  CHECK(vars[3].name == "_ZZN5lab069candidate21conv1d_dynamic_kernelEPKfS2_PfiiiE3one");
  CHECK(vars[3].bytes == 8);
  // Within one kernel's body: only what is declared there (the demoted variables).
  const auto kernels = ptx_kernels(kSharedPtx);
  REQUIRE(kernels.size() == 2);
  CHECK(shared_variables(kernels[0].body).empty());
  CHECK(shared_variables(kernels[1].body).size() == 2);
  // Instructions that name the state space are not declarations.
  CHECK(shared_variables("\tst.shared.u32 [%r1], %r2;\n").empty());
}

TEST_CASE("mentions_symbol matches whole identifiers only", "[grader][technique]") {
  const auto kernels = ptx_kernels(kSharedPtx);
  REQUIRE(kernels.size() == 2);
  CHECK(mentions_symbol(kernels[0].body, "_ZN5lab069candidate5chunkE"));
  CHECK_FALSE(mentions_symbol(kernels[1].body, "_ZN5lab069candidate5chunkE"));
  CHECK(mentions_symbol(kernels[1].body, "_ZN5lab069candidate9filescopeE"));
  CHECK_FALSE(mentions_symbol("mov.u32 %r1, chunk2;", "chunk"));
  CHECK_FALSE(mentions_symbol("mov.u32 %r1, my_chunk;", "chunk"));
  CHECK(mentions_symbol("ld.shared.u32 %r1, [chunk+4];", "chunk"));
  CHECK_FALSE(mentions_symbol("anything", ""));
}

// ---------------------------------------------------------------------------------------------
// What a kernel does with each memory space

namespace {

// The one kernel of `ptx` whose name contains `name`.
KernelAnalysis analysed(const std::string& ptx, const std::string& name) {
  for (auto& k : analyse_kernels(ptx))
    if (k.name.find(name) != std::string::npos) return k;
  FAIL("no kernel " << name);
  return {};
}

// nvcc's shapes, shortened: a tiled kernel whose loop multiplies a shared value by a global one
// (lab 02's answer); the same loop on global memory only, after a shared value stored, synced and
// loaded once, then multiplied by zero (the "times zero" cheat); a loop that multiplies by a mask
// loaded from constant memory before the loop (hoisted, as nvcc does); and a kernel whose loop
// calls a __noinline__ helper that reads global memory.
const char* const kLoopPtx = R"(
.version 9.0
.target sm_90
.address_size 64
.const .align 4 .b8 c_mask[64];

.func  (.param .b32 func_retval0) _Z3getPKfi(
	.param .b64 _Z3getPKfi_param_0,
	.param .b32 _Z3getPKfi_param_1
)
{
	ld.param.u64 	%rd1, [_Z3getPKfi_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	ld.global.f32 	%f1, [%rd2];
	st.param.f32 	[func_retval0+0], %f1;
	ret;
}

.visible .entry tiled_kernel(
	.param .u64 tiled_kernel_param_0
)
{
	.shared .align 4 .b8 tile[1024];
	ld.param.u64 	%rd1, [tiled_kernel_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	ld.global.nc.f32 	%f1, [%rd2];
	st.shared.f32 	[tile], %f1;
	bar.sync 	0;
$L__BB0_1:
	ld.shared.f32 	%f2, [%r1];
	ld.global.nc.f32 	%f3, [%rd3];
	fma.rn.f32 	%f4, %f3, %f2, %f4;
	@%p1 bra 	$L__BB0_1;
	st.global.f32 	[%rd4], %f4;
	ret;
}

.visible .entry times_zero_kernel(
	.param .u64 times_zero_kernel_param_0
)
{
	.shared .align 4 .f32 one;
	ld.global.f32 	%f1, [%rd2];
	st.shared.f32 	[one], %f1;
	bar.sync 	0;
	ld.shared.f32 	%f2, [one];
	mul.f32 	%f3, %f2, 0f00000000;
$L__BB1_1:
	ld.global.nc.f32 	%f5, [%rd3];
	ld.global.nc.f32 	%f6, [%rd5];
	fma.rn.f32 	%f3, %f5, %f6, %f3;
	@%p1 bra 	$L__BB1_1;
	st.global.f32 	[%rd4], %f3;
	ret;
}

.visible .entry hoisted_const_kernel(
	.param .u64 hoisted_const_kernel_param_0
)
{
	ld.const.f32 	%f1, [c_mask];
	mov.f32 	%f7, %f1;
$L__BB2_1:
	.loc	1 23 5
	ld.global.nc.f32 	%f2, [%rd3];
	fma.rn.f32 	%f4, %f2, %f7, %f4;
	@%p1 bra 	$L__BB2_1;
	st.global.f32 	[%rd4], %f4;
	ret;
}

.visible .entry helper_kernel(
	.param .u64 helper_kernel_param_0
)
{
	ld.param.u64 	%rd1, [helper_kernel_param_0];
$L__BB3_1:
	{ // callseq 0, 0
	.param .b64 param0;
	st.param.b64 	[param0+0], %rd1;
	.param .b32 param1;
	st.param.b32 	[param1+0], %r1;
	.param .b32 retval0;
	call.uni (retval0),
	_Z3getPKfi,
	(
	param0,
	param1
	);
	ld.param.f32 	%f1, [retval0+0];
	} // callseq 0
	ld.shared.f32 	%f2, [%r3];
	fma.rn.f32 	%f4, %f1, %f2, %f4;
	@%p1 bra 	$L__BB3_1;
	ret;
}
)";

}  // namespace

TEST_CASE("a loop's multiplies are traced to the loads of their operands", "[grader][technique]") {
  const KernelAnalysis tiled = analysed(kLoopPtx, "tiled_kernel");
  CHECK(tiled.target == "sm_90");
  REQUIRE(tiled.regions.size() == 1);
  CHECK(tiled.regions[0].loop);
  CHECK(tiled.regions[0].multiplies() == 1);
  CHECK(tiled.regions[0].count(kSharedSpace) == 1);
  CHECK(tiled.regions[0].count(kGlobalSpace) == 1);
  CHECK(tiled.regions[0].count(kGlobalSpace, kSharedSpace) == 0);
  CHECK(accumulation_problem(tiled, "tiled_kernel", kSharedSpace, "the tile").empty());
  CHECK(tiled.count("ld.shared") == 1);
  CHECK(tiled.count("ld.global") == 2);
  CHECK(tiled.count("ld") == 4);  // ld.param too
  REQUIRE(tiled.shared.size() == 1);
  CHECK(tiled.shared[0].name == "tile");
  REQUIRE(tiled.stored.size() == 1);
  CHECK((tiled.stored[0].sources & kSharedSpace) != 0);
  CHECK_FALSE(tiled.stored[0].in_loop);
}

TEST_CASE("a shared value times zero beside a global loop is no tile", "[grader][technique]") {
  const KernelAnalysis k = analysed(kLoopPtx, "times_zero_kernel");
  // The multiply by an immediate zero does not count; the loop's multiply is global only.
  REQUIRE(k.regions.size() == 1);
  CHECK(k.regions[0].loop);
  CHECK(k.count("st.shared") == 1);
  CHECK(k.count("ld.shared") == 1);
  CHECK(k.count("bar.sync") == 1);
  CHECK(accumulation_problem(k, "times_zero_kernel", kSharedSpace, "the input tile") ==
        "times_zero_kernel (times_zero_kernel) does not compute from shared memory: in its loop of "
        "1 floating-point multiplies, 0 take an operand from shared memory and 1 take theirs from "
        "global memory only; the input tile must be read from shared memory where the kernel "
        "accumulates");
  CHECK(shared_tile_use_problem(k, "times_zero_kernel", "the input tile")
            .find("does not compute from shared memory") != std::string::npos);
}

TEST_CASE("a value loaded before the loop still counts where it is multiplied",
          "[grader][technique]") {
  // The .loc line has no ';': it must not swallow the load after it.
  const KernelAnalysis k = analysed(kLoopPtx, "hoisted_const_kernel");
  REQUIRE(k.regions.size() == 1);
  CHECK(k.regions[0].count(kConstSpace) == 1);
  CHECK(k.count("ld.global") == 1);
  CHECK(accumulation_problem(k, "k", kConstSpace, "the mask").empty());
  CHECK_FALSE(accumulation_problem(k, "k", kSharedSpace, "the tile").empty());
}

TEST_CASE("a helper's instructions and returned values count as the kernel's",
          "[grader][technique]") {
  const KernelAnalysis k = analysed(kLoopPtx, "helper_kernel");
  CHECK(k.functions == std::vector<std::string>{"_Z3getPKfi"});
  CHECK(k.count("ld.global") == 1);  // in the helper
  REQUIRE(k.regions.size() == 1);
  CHECK(k.regions[0].count(kGlobalSpace) == 1);  // through the return value
  CHECK(k.regions[0].count(kSharedSpace) == 1);
  // ptx_kernels' body has the helper's body after the kernel's.
  const auto kernels = kernels_named(kLoopPtx, "helper_kernel", nullptr);
  REQUIRE(kernels.size() == 1);
  CHECK(count_instructions(kernels[0].body, "ld.global") == 1);
  CHECK(count_instructions(kernels[0].body, "st.param") == 3);
}

namespace {

// Static shared memory in a __noinline__ helper (nvcc demotes it into the .func), reached from
// the kernel through a call; a kernel that reverses through an extern array; one that copies
// global to global; and a texture fetch stored as is.
const char* const kHelperSharedPtx = R"(
.version 9.0
.target sm_75
.extern .shared .align 16 .b8 chunk[];

.func _Z6stage_v()
{
	.shared .align 4 .b8 _ZZ6stage_vE4tile[4096];
	mov.u32 	%r1, _ZZ6stage_vE4tile;
	st.shared.u32 	[%r1], %r2;
	bar.sync 	0;
	ld.shared.u32 	%r3, [%r1];
	ret;
}

.visible .entry reverse_kernel(
	.param .u64 reverse_kernel_param_0
)
{
	ld.global.u32 	%r1, [%rd1];
	mov.u32 	%r2, chunk;
	st.shared.u32 	[%r2], %r1;
	bar.sync 	0;
	ld.shared.u32 	%r3, [%r2];
	st.global.u32 	[%rd2], %r3;
	{
	call.uni
	_Z6stage_v,
	(
	);
	}
	ret;
}

.visible .entry copy_kernel(
	.param .u64 copy_kernel_param_0
)
{
	ld.global.u32 	%r1, [%rd1];
	st.global.u32 	[%rd2], %r1;
	ret;
}

.visible .entry rotate_kernel(
	.param .u64 rotate_kernel_param_0
)
{
	tex.2d.v4.f32.f32 	{%f1, %f2, %f3, %f4}, [%rd1, {%f5, %f6}];
	st.global.f32 	[%rd2], %f1;
	ret;
}
)";

}  // namespace

TEST_CASE("shared variables of a called function are the kernel's", "[grader][technique]") {
  const KernelAnalysis k = analysed(kHelperSharedPtx, "reverse_kernel");
  REQUIRE(k.shared.size() == 2);
  CHECK(k.shared[0].name == "chunk");
  CHECK(k.shared[0].is_extern);
  CHECK(k.shared[1].name == "_ZZ6stage_vE4tile");
  CHECK_FALSE(k.shared[1].is_extern);
  CHECK(k.shared[1].bytes == 4096);
  CHECK(k.count("bar.sync") == 2);
}

TEST_CASE("stored values are traced to their loads", "[grader][technique]") {
  CHECK(stored_values_problem(analysed(kHelperSharedPtx, "reverse_kernel"), "r", kSharedSpace, "")
            .empty());
  CHECK(stored_values_problem(analysed(kHelperSharedPtx, "copy_kernel"), "reverse_kernel",
                              kSharedSpace, "write back from the array") ==
        "reverse_kernel (copy_kernel) does not store what it reads from shared memory: of its 1 "
        "store(s) to global memory, 0 write a value from shared memory and 1 one from global "
        "memory only; write back from the array");
  // The braces of a vector operand are not a block.
  const KernelAnalysis rotate = analysed(kHelperSharedPtx, "rotate_kernel");
  CHECK(rotate.count("tex") == 1);
  CHECK(stored_values_problem(rotate, "rotate_kernel", kTextureSpace, "").empty());
}

TEST_CASE("the code outside loops is judged when it multiplies at least as much as a loop",
          "[grader][technique]") {
  // Unrolled global work (two multiplies, no loop) beside a loop of one shared multiply.
  const char* const ptx = R"(
.visible .entry k()
{
	ld.global.f32 	%f1, [%rd1];
	ld.global.f32 	%f2, [%rd2];
	mul.f32 	%f3, %f1, %f2;
	fma.rn.f32 	%f3, %f1, %f2, %f3;
$L__BB0_1:
	ld.shared.f32 	%f4, [%r1];
	fma.rn.f32 	%f5, %f4, %f4, %f5;
	@%p1 bra.uni 	$L__BB0_1;
	ret;
}
)";
  const KernelAnalysis k = analysed(ptx, "k");
  REQUIRE(k.regions.size() == 2);
  CHECK(accumulation_regions(k).size() == 2);
  CHECK(accumulation_problem(k, "k", kSharedSpace, "x").find("code outside loops of 2") !=
        std::string::npos);
  // No multiply at all.
  const KernelAnalysis none = analysed(".visible .entry n()\n{\n\tret;\n}\n", "n");
  CHECK(accumulation_problem(none, "n", kSharedSpace, "x").find("no floating-point multiply") !=
        std::string::npos);
}

TEST_CASE("recursion and indirect calls are followed without end", "[grader][technique]") {
  const char* const ptx = R"(
.func  (.param .b32 func_retval0) rec(
	.param .b32 rec_param_0
)
{
	ld.global.f32 	%f1, [%rd1];
	mul.f32 	%f2, %f1, %f1;
	{
	call.uni (retval0), rec, (param0);
	}
	ret;
}
.func hidden()
{
	ld.global.f32 	%f1, [%rd1];
	fma.rn.f32 	%f2, %f1, %f1, %f2;
	ret;
}
.visible .entry k()
{
	mov.u64 	%rd9, hidden;
	{
	call.uni (retval0), rec, (param0);
	}
	{
	call %rd9, (), prototype_0;
	}
	ret;
}
)";
  const KernelAnalysis k = analysed(ptx, "k");
  CHECK(k.problem.empty());
  CHECK(k.functions == std::vector<std::string>{"hidden", "rec"});
  CHECK(k.count("ld.global") == 2);
  // The recursion is a loop around rec's multiply; hidden's multiply is outside loops.
  REQUIRE(k.regions.size() == 2);
  CHECK(k.regions[0].loop);
  CHECK_FALSE(k.regions[1].loop);
}

TEST_CASE("malformed PTX gives a problem or nothing, never a crash", "[grader][technique]") {
  CHECK(analyse_kernels("").empty());
  CHECK(analyse_kernels("garbage { } ; : $L: .entry").empty());
  CHECK(analyse_kernels(".entry (((").empty());
  CHECK(analyse_kernels(".visible .entry k(.param .u64 p").empty());
  // A body that never closes.
  const auto open = analyse_kernels(".visible .entry k()\n{\n\tld.global.f32 %f1, [%rd1];\n");
  REQUIRE(open.size() == 1);
  CHECK(open[0].problem.find("malformed") != std::string::npos);
  CHECK(accumulation_problem(open[0], "k", kSharedSpace, "x").find("malformed") !=
        std::string::npos);
  // Labels and branches that lead nowhere, operands that are not registers, a lone '@'.
  const auto odd = analyse_kernels(
      ".visible .entry k()\n{\n\t@ ;\n\tbra $nowhere;\n\tfma.rn.f32 a, b;\n\t:\n\tmul.f32 %f1, "
      "[, ];\n\tmul.f32 %f1, %f1, -;\n}\n");
  REQUIRE(odd.size() == 1);
  CHECK(odd[0].problem.empty());
  // An unbalanced brace inside an instruction leaves the body open.
  const auto unbalanced = analyse_kernels(".visible .entry k()\n{\n\tmov.b64 {%r1, %r2;\n}\n");
  REQUIRE(unbalanced.size() == 1);
  CHECK_FALSE(unbalanced[0].problem.empty());
  // Kernels of two modules are both there.
  int copies = 0;
  for (const auto& k : analyse_kernels(std::string(kHelperSharedPtx) + kHelperSharedPtx))
    copies += k.name == "copy_kernel";
  CHECK(copies == 2);
}

// ---------------------------------------------------------------------------------------------
// The verdict on the kernels that ran

namespace {

TechniqueRule tile_rule() {
  TechniqueRule rule;
  rule.kernel = "tiled_kernel";
  rule.verdict = [](const KernelAnalysis& k, const std::string& label, const LaunchedKernel*) {
    return shared_tile_use_problem(k, label, "the input tile");
  };
  return rule;
}

LaunchTrace launched(const std::vector<std::string>& names) {
  LaunchTrace t;
  t.verified = t.has_device = true;
  for (const auto& n : names) t.kernels.push_back({n, 1, 0, 0, 0, {}});
  return t;
}

// A tiled kernel beside one that reads global memory only, and one that zeroes an array.
const char* const kTwoKernelsPtx = R"(
.visible .entry tiled_kernel()
{
	ld.global.f32 	%f1, [%rd2];
	st.shared.f32 	[tile], %f1;
	bar.sync 	0;
$L__BB0_1:
	ld.shared.f32 	%f2, [%r1];
	ld.global.nc.f32 	%f3, [%rd3];
	fma.rn.f32 	%f4, %f3, %f2, %f4;
	@%p1 bra 	$L__BB0_1;
	st.global.f32 	[%rd4], %f4;
	ret;
}
.visible .entry global_kernel()
{
$L__BB1_1:
	ld.global.nc.f32 	%f5, [%rd3];
	ld.global.nc.f32 	%f6, [%rd5];
	fma.rn.f32 	%f3, %f5, %f6, %f3;
	@%p1 bra 	$L__BB1_1;
	st.global.f32 	[%rd4], %f3;
	ret;
}
.visible .entry zero_kernel()
{
	st.global.f32 	[%rd4], 0f00000000;
	ret;
}
)";

}  // namespace

TEST_CASE("without a device a passing PTX is not verified, a failing one fails",
          "[grader][technique]") {
  LaunchTrace none;
  none.not_verified = "no CUDA device";
  TechniqueVerdict v = judge_technique(kTwoKernelsPtx, tile_rule(), none);
  CHECK(v.status == TechniqueVerdict::Status::unverified);
  CHECK(v.message.find("not verified (no CUDA device)") != std::string::npos);
  TechniqueRule global = tile_rule();
  global.kernel = "global_kernel";
  v = judge_technique(kTwoKernelsPtx, global, none);
  CHECK(v.status == TechniqueVerdict::Status::fail);
  CHECK(v.message.find("no shared-memory tile in global_kernel: its PTX has 0 st.shared") == 0);
  // A device whose trace failed: no skip.
  none.has_device = true;
  CHECK(judge_technique(kTwoKernelsPtx, tile_rule(), none).status ==
        TechniqueVerdict::Status::fail);
  // A missing kernel.
  global.kernel = "nbody_kernel";
  CHECK(judge_technique(kTwoKernelsPtx, global, launched({}))
            .message.find("no kernel named nbody_kernel") != std::string::npos);
}

TEST_CASE("on a device the launched kernels are judged", "[grader][technique]") {
  // The tiled kernel runs (with a kernel that zeroes: it does no work the rule is about).
  TechniqueVerdict v =
      judge_technique(kTwoKernelsPtx, tile_rule(), launched({"zero_kernel", "tiled_kernel"}));
  CHECK(v.status == TechniqueVerdict::Status::pass);
  CHECK(v.message == "launched: tiled_kernel");
  // A tiled kernel that never runs beside a global one that does.
  v = judge_technique(kTwoKernelsPtx, tile_rule(), launched({"global_kernel"}));
  CHECK(v.status == TechniqueVerdict::Status::fail);
  CHECK(v.message ==
        "tiled_kernel passes, but it is never launched: your function launched global_kernel:\n"
        "no shared-memory tile in the launched kernel: its PTX has 0 st.shared, 0 ld.shared and 0 "
        "barrier instruction(s) (global_kernel); the input tile must be stored to shared memory, "
        "synchronized, and read back from there");
  // Both run: the global one still fails.
  v = judge_technique(kTwoKernelsPtx, tile_rule(), launched({"tiled_kernel", "global_kernel"}));
  CHECK(v.status == TechniqueVerdict::Status::fail);
  CHECK(v.message.find("never launched") == std::string::npos);
  CHECK(v.message.find("(global_kernel)") != std::string::npos);
  // Nothing of the file runs (the work done elsewhere, or by kernels not in the file).
  v = judge_technique(kTwoKernelsPtx, tile_rule(), launched({"zero_kernel", "cub_kernel"}));
  CHECK(v.status == TechniqueVerdict::Status::fail);
  CHECK(v.message ==
        "tiled_kernel passes, but it is never launched: your function launched "
        "zero_kernel");
}

TEST_CASE("a tile's signature bounds the global loads, which the judge's own count reads",
          "[grader][technique]") {
  // The judge's count (device_counts.h) has no sectors: a file that hides its sectors from its
  // own process's counts is still held to the loads. Lab 04's bound: 25 taps, at most 12.5 global
  // loads per output; a tile of 16 x 16 with a halo of 2 makes 1.56, the taps read from global
  // memory 25.
  const double outputs = 256;
  const auto signature = shared_tile_signature(outputs, 12.5, 1.0);
  ExecutedWork w;
  w.named = {{"shared_ld", 8 * 25.0}};  // warp-level: 25 per output
  w.all = {{"global_ld", 8 * 1.56}, {"shared_ld", 8 * 25.0}};
  std::string summary;
  CHECK(signature(w, &summary).empty());
  w.all["global_ld"] = 8 * 25.0;  // no sectors at all: the judge's count, or hidden ones
  CHECK(signature(w, &summary) ==
        "25.00 global loads per output, at most 12.50 expected: the inputs must come from global "
        "memory once per tile, not once per tap");
  // The sectors still bound the candidate's own count.
  w.all["global_ld"] = 8 * 1.56;
  w.all["global_ld_sectors"] = 1.5 * outputs;
  CHECK(signature(w, &summary).find("1.50 global-load sectors per output") == 0);
}

TEST_CASE("on a device a rule with a signature judges what the kernels executed",
          "[grader][technique]") {
  // A tiled kernel whose counters show a load of the tile per output passes; one whose counters
  // show the inputs read per tap from global memory fails, though its PTX passes.
  TechniqueRule rule = tile_rule();
  const double outputs = 1024;
  rule.executed = [outputs](const ExecutedWork& w, std::string* summary) {
    *summary = executed_summary(w.all, outputs, "output");
    return per_unit_problem(ExecutedWork::of(w.all, "global_ld_sectors") / outputs, 0, 0.5,
                            "global-load sectors", "output");
  };
  LaunchTrace t = launched({"zero_kernel", "tiled_kernel"});
  t.counted = true;
  t.kernels[0].counters = {{"global_ld_sectors", 0}, {"shared_ld", 0}};
  t.kernels[1].counters = {{"global_ld_sectors", 160}, {"shared_ld", 288}};
  TechniqueVerdict v = judge_technique(kTwoKernelsPtx, rule, t);
  CHECK(v.status == TechniqueVerdict::Status::pass);
  CHECK(v.message ==
        "launched: tiled_kernel; executed per output: 0.16 global-load sectors, 9.00 shared loads");
  t.kernels[1].counters["global_ld_sectors"] = 1500;
  v = judge_technique(kTwoKernelsPtx, rule, t);
  CHECK(v.status == TechniqueVerdict::Status::fail);
  CHECK(v.message ==
        "tiled_kernel ran, but what it executed is not the lesson's: 1.46 global-load sectors per "
        "output, at most 0.50 expected (per output: 1.46 global-load sectors, 9.00 shared loads)");
  // A kernel outside the rule's judgement (it zeroes) still counts in `all`.
  t.kernels[1].counters["global_ld_sectors"] = 160;
  t.kernels[0].counters["global_ld_sectors"] = 500;
  CHECK(judge_technique(kTwoKernelsPtx, rule, t).status == TechniqueVerdict::Status::fail);
  // Counters that could not be read: not verified, never passed; the PTX still fails first.
  t.counted = false;
  t.not_counted = "the driver reserves the GPU's performance counters to administrators";
  v = judge_technique(kTwoKernelsPtx, rule, t);
  CHECK(v.status == TechniqueVerdict::Status::unverified);
  CHECK(v.message.find("could not be counted, so the technique is not verified: the driver") !=
        std::string::npos);
  TechniqueRule global = rule;
  global.kernel = "global_kernel";
  CHECK(judge_technique(kTwoKernelsPtx, global, launched({"global_kernel"})).status ==
        TechniqueVerdict::Status::fail);
  // A rule without a signature ignores the counters.
  CHECK(judge_technique(kTwoKernelsPtx, tile_rule(), t).status == TechniqueVerdict::Status::pass);
  // Lower bounds read the kernels of the rule's name only: another kernel's shared loads do not
  // make up for them.
  TechniqueRule lower = tile_rule();
  lower.executed = [outputs](const ExecutedWork& w, std::string*) {
    return per_unit_problem(lanes_per_unit(ExecutedWork::of(w.named, "shared_ld"), outputs), 1, 1e9,
                            "shared loads", "output");
  };
  t.counted = true;
  t.kernels[0].counters["shared_ld"] = 1000;
  t.kernels[1].counters["shared_ld"] = 8;
  v = judge_technique(kTwoKernelsPtx, lower, t);
  CHECK(v.status == TechniqueVerdict::Status::fail);
  CHECK(v.message.find("0.25 shared loads per output, at least 1.00 expected") !=
        std::string::npos);
}

TEST_CASE("per-unit figures and their bounds", "[grader][technique]") {
  CHECK(per_unit_problem(0.4, 0, 0.5, "sectors", "output").empty());
  CHECK(per_unit_problem(0.6, 0, 0.5, "sectors", "output") ==
        "0.60 sectors per output, at most 0.50 expected");
  CHECK(per_unit_problem(0.5, 1, 1e9, "shuffles", "row") ==
        "0.50 shuffles per row, at least 1.00 expected");
  CHECK(lanes_per_unit(10, 320) == 1.0);
  CHECK(lanes_per_unit(10, 0) == 0.0);
  CHECK(executed_summary({}, 10, "row").empty());
  CHECK(executed_summary({{"shfl", 50}}, 320, "row") == "per row: 5.00 shuffles");
}
