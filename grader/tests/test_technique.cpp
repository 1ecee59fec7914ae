// Technique checks read PTX: kernels are found by name and instructions counted by opcode.
#include "cudalab/catch.h"
#include "technique.h"

#include <stdexcept>
#include <string>
#include <vector>

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

// The build defines this for every grader; these tests read PTX from a string instead.
namespace cudalab::grade {
const char* const kCandidatePtxPath = "";
}

TEST_CASE("candidate_ptx says when a grader has no PTX", "[grader][technique]") {
  REQUIRE_THROWS_AS(cudalab::grade::candidate_ptx(), std::runtime_error);
}

TEST_CASE("ptx_kernels finds every entry with its whole body", "[grader][technique]") {
  const auto kernels = cudalab::grade::ptx_kernels(kPtx);
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].name == "_ZN5lab029candidate19conv1d_tiled_kernelEPKfS2_Pfii");
  // The nested block does not end the body early.
  CHECK(kernels[0].body.find("ret;") != std::string::npos);
  CHECK(kernels[0].body.find("ld.const") == std::string::npos);
  CHECK(kernels[1].body.find("ld.const.f32") != std::string::npos);
}

TEST_CASE("count_instructions counts opcodes, predicated ones too, not longer names",
          "[grader][technique]") {
  const auto kernels = cudalab::grade::ptx_kernels(kPtx);
  REQUIRE(kernels.size() == 2);
  CHECK(cudalab::grade::count_instructions(kernels[0].body, "ld.shared") == 2);
  CHECK(cudalab::grade::count_instructions(kernels[0].body, "st.shared") == 1);
  CHECK(cudalab::grade::count_instructions(kernels[0].body, "bar.sync") == 1);
  CHECK(cudalab::grade::count_instructions(kernels[1].body, "ld.const") == 1);
  CHECK(cudalab::grade::count_instructions(kernels[1].body, "ld.global") == 1);
  CHECK(cudalab::grade::count_instructions(kernels[1].body, "ld.glob") == 0);
  // Directives count by their first word too: one static .shared declaration.
  CHECK(cudalab::grade::count_instructions(kernels[0].body, ".shared") == 1);
}

TEST_CASE("kernels_named explains a missing kernel", "[grader][technique]") {
  std::string problem;
  CHECK(cudalab::grade::kernels_named(kPtx, "conv1d_tiled_kernel", &problem).size() == 1);
  CHECK(problem.empty());
  CHECK(cudalab::grade::kernels_named(kPtx, "reverse_kernel", &problem).empty());
  CHECK(problem.find("no kernel named reverse_kernel") != std::string::npos);
  CHECK(problem.find("conv1d_constant_kernel") != std::string::npos);
  CHECK(cudalab::grade::kernels_named("", "x", &problem).empty());
  CHECK(problem.find("kernels found: none") != std::string::npos);
}

TEST_CASE("count_kernel_instructions counts each kind in every kernel of a name",
          "[grader][technique]") {
  using cudalab::grade::InstructionKind;
  const std::vector<InstructionKind> kinds = {cudalab::grade::kSharedStores,
                                              cudalab::grade::kSharedLoads,
                                              cudalab::grade::kBarriers,
                                              {"const or global", {"ld.const", "ld.global"}}};
  std::string problem;
  // "_kernel" names both kernels, in the PTX's order.
  const auto counted = cudalab::grade::count_kernel_instructions(kPtx, "_kernel", kinds, &problem);
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
  CHECK(cudalab::grade::has_shared_tile(counted[0]));
  CHECK_FALSE(cudalab::grade::has_shared_tile(counted[1]));
  CHECK(cudalab::grade::count_kernel_instructions(kPtx, "reverse_kernel", kinds, &problem).empty());
  CHECK(problem.find("no kernel named reverse_kernel") != std::string::npos);
}

TEST_CASE("technique_problem gathers the verdicts of the kernels that fail",
          "[grader][technique]") {
  const auto no_tile = [](const cudalab::grade::KernelInstructions& k) -> std::string {
    return cudalab::grade::has_shared_tile(k) ? "" : "no tile in " + k.kernel;
  };
  const std::vector<cudalab::grade::InstructionKind> tile = {
      cudalab::grade::kSharedStores, cudalab::grade::kSharedLoads, cudalab::grade::kBarriers};
  CHECK(cudalab::grade::technique_problem(kPtx, "conv1d_tiled_kernel", tile, no_tile).empty());
  CHECK(cudalab::grade::technique_problem(kPtx, "conv1d_constant_kernel", tile, no_tile) ==
        "no tile in _ZN5lab039candidate22conv1d_constant_kernelEPKfPfii");
  // A missing kernel: kernels_named's problem, and the verdict is not asked.
  const std::string missing =
      cudalab::grade::technique_problem(kPtx, "reverse_kernel", tile, no_tile);
  CHECK(missing.find("no kernel named reverse_kernel") != std::string::npos);
  // Several failing kernels: one line each (here the verdict fails every kernel).
  const std::string both = cudalab::grade::technique_problem(
      kPtx, "_kernel", tile,
      [](const cudalab::grade::KernelInstructions& k) { return "fails: " + k.kernel; });
  CHECK(both ==
        "fails: _ZN5lab029candidate19conv1d_tiled_kernelEPKfS2_Pfii\n"
        "fails: _ZN5lab039candidate22conv1d_constant_kernelEPKfPfii");
}

TEST_CASE("shared_tile_problem words a missing shared-memory tile", "[grader][technique]") {
  CHECK(cudalab::grade::shared_tile_problem(kPtx, "conv1d_tiled_kernel", "the tile").empty());
  CHECK(cudalab::grade::shared_tile_problem(kPtx, "conv1d_constant_kernel", "the tile") ==
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
  const auto vars = cudalab::grade::shared_variables(kSharedPtx);
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
  const auto kernels = cudalab::grade::ptx_kernels(kSharedPtx);
  REQUIRE(kernels.size() == 2);
  CHECK(cudalab::grade::shared_variables(kernels[0].body).empty());
  CHECK(cudalab::grade::shared_variables(kernels[1].body).size() == 2);
  // Instructions that name the state space are not declarations.
  CHECK(cudalab::grade::shared_variables("\tst.shared.u32 [%r1], %r2;\n").empty());
}

TEST_CASE("mentions_symbol matches whole identifiers only", "[grader][technique]") {
  const auto kernels = cudalab::grade::ptx_kernels(kSharedPtx);
  REQUIRE(kernels.size() == 2);
  CHECK(cudalab::grade::mentions_symbol(kernels[0].body, "_ZN5lab069candidate5chunkE"));
  CHECK_FALSE(cudalab::grade::mentions_symbol(kernels[1].body, "_ZN5lab069candidate5chunkE"));
  CHECK(cudalab::grade::mentions_symbol(kernels[1].body, "_ZN5lab069candidate9filescopeE"));
  CHECK_FALSE(cudalab::grade::mentions_symbol("mov.u32 %r1, chunk2;", "chunk"));
  CHECK_FALSE(cudalab::grade::mentions_symbol("mov.u32 %r1, my_chunk;", "chunk"));
  CHECK(cudalab::grade::mentions_symbol("ld.shared.u32 %r1, [chunk+4];", "chunk"));
  CHECK_FALSE(cudalab::grade::mentions_symbol("anything", ""));
}
