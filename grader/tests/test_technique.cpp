// Technique checks read PTX: kernels are found by name and instructions counted by opcode.
#include "cudalab/catch.h"
#include "technique.h"

#include <stdexcept>

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
