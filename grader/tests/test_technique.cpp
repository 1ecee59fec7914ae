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
