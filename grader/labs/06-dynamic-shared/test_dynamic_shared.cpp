// Host tests of lab 06's grading support: the reverse's CPU reference, inputs and exact
// comparison, the tile search, and the PTX technique check on PTX as nvcc writes it.
#include <set>

#include "conv_tiles.h"
#include "cudalab/catch.h"
#include "dynamic_shared_ptx.h"
#include "reverse_check.h"
#include "technique.h"

TEST_CASE("reverse_cpu mirrors the array", "[lab06][host]") {
  CHECK(lab06::reverse_cpu({1, 2, 3, 4, 5}) == std::vector<int>{5, 4, 3, 2, 1});
  CHECK(lab06::reverse_cpu({7}) == std::vector<int>{7});
}

TEST_CASE("reverse inputs never hold the sentinel and rarely repeat", "[lab06][host]") {
  const auto v = lab06::reverse_input(100000, 42);
  CHECK(v == lab06::reverse_input(100000, 42));
  const std::set<int> distinct(v.begin(), v.end());
  CHECK(distinct.size() > 99990);
  for (const int x : v) REQUIRE((x >= 0 && x < (1 << 30)));
}

TEST_CASE("reverse cases cover one and two blocks for each block size", "[lab06][host]") {
  const auto cases = lab06::reverse_size_cases(20180914);
  std::set<std::string> names;
  for (const auto& c : cases) names.insert(c.name);
  CHECK(names.size() == cases.size());
  for (const std::string name :
       {"n = 1, block_size = 32", "n = 33, block_size = 32", "n = 99, block_size = 100",
        "n = 2049, block_size = 1024", "n = 2, block_size = 1", "n = 1000003, block_size = 0"})
    CHECK(names.count(name) == 1);
}

TEST_CASE("describe_int_mismatches reports exact differences and unwritten elements",
          "[lab06][host]") {
  CHECK(lab06::describe_int_mismatches({1, 2, 3}, {1, 2, 3}).empty());
  const std::string d = lab06::describe_int_mismatches({1, -1, 4}, {1, 2, 3});
  CHECK(d.find("2 of 3 elements differ (exact comparison); 1 hold -1 (never written?)") == 0);
  CHECK(d.find("index 1: expected 2, got -1 (never written?)") != std::string::npos);
  CHECK(d.find("index 2: expected 3, got 4") != std::string::npos);
  CHECK(lab06::describe_int_mismatches({1}, {1, 2}) == "size 1, expected 2");
}

TEST_CASE("largest_tile_within finds the widest tile under a limit", "[lab06][host]") {
  const lab06::SharedBytes plain = [](int tile, int mask) {
    return (static_cast<std::size_t>(tile) + mask - 1) * 4;
  };
  CHECK(lab06::largest_tile_within(plain, 9, 49152, 100000) == 12280);
  CHECK(lab06::largest_tile_within(plain, 9, 232448, 58113) == 58104);
  CHECK(lab06::largest_tile_within(plain, 9, 4 * 9, 100) == 1);
  CHECK(lab06::largest_tile_within(plain, 9, 4 * 8, 100) == 0);
  CHECK(lab06::largest_tile_within(plain, 1, 1 << 30, 500) == 500);
  // Bytes that are not monotonic (padding for aligned tiles): the tile found fits, the next
  // one does not.
  const lab06::SharedBytes padded = [](int tile, int) {
    return (static_cast<std::size_t>(tile) + (tile % 4 == 0 ? 16 : 8)) * 4;
  };
  const int t = lab06::largest_tile_within(padded, 9, 49152, 100000);
  CHECK(padded(t, 9) <= 49152);
  CHECK(padded(t + 1, 9) > 49152);
}

namespace {

// nvcc's PTX (compute_75) for three versions of a reverse kernel, shortened.
const char* const kDynamicPtx = R"(
.extern .shared .align 16 .b8 _ZN5lab069candidate5chunkE[];

.visible .entry _ZN5lab069candidate14reverse_kernelEPKiPii(
	.param .u32 p2
)
{
	mov.u32 	%r11, _ZN5lab069candidate5chunkE;
	add.s32 	%r12, %r11, %r10;
	st.shared.u32 	[%r12], %r9;
	bar.sync 	0;
	ld.shared.u32 	%r18, [%r17];
	ret;
}
)";

const char* const kStaticPtx = R"(
.visible .entry _ZN5lab069candidate14reverse_kernelEPKiPii(
	.param .u32 p2
)
{
	// demoted variable
	.shared .align 4 .b8 _ZZN5lab069candidate14reverse_kernelEPKiPiiE5chunk[4096];
	mov.u32 	%r11, _ZZN5lab069candidate14reverse_kernelEPKiPiiE5chunk;
	st.shared.u32 	[%r12], %r9;
	bar.sync 	0;
	ld.shared.u32 	%r18, [%r17];
	ret;
}
)";

const char* const kGlobalPtx = R"(
.visible .entry _ZN5lab069candidate14reverse_kernelEPKiPii(
	.param .u32 p2
)
{
	ld.global.u32 	%r5, [%rd5];
	st.global.u32 	[%rd8], %r5;
	ret;
}
)";

// A kernel that uses both: the dynamic array and a static one.
const char* const kMixedPtx = R"(
.extern .shared .align 16 .b8 _ZN5lab069candidate4tileE[];

.visible .entry _ZN5lab069candidate21conv1d_dynamic_kernelEPKfS2_Pfiii(
	.param .u32 p2
)
{
	.shared .align 4 .b8 _ZZN5lab069candidate21conv1d_dynamic_kernelEPKfS2_PfiiiE6mask_s[1024];
	mov.u32 	%r11, _ZN5lab069candidate4tileE;
	mov.u32 	%r12, _ZZN5lab069candidate21conv1d_dynamic_kernelEPKfS2_PfiiiE6mask_s;
	st.shared.f32 	[%r12], %f9;
	bar.sync 	0;
	ld.shared.f32 	%f18, [%r11];
	ret;
}
)";

}  // namespace

TEST_CASE("the technique check accepts a kernel on dynamic shared memory only", "[lab06][host]") {
  CHECK(lab06::dynamic_shared_problem(kDynamicPtx, "reverse_kernel").empty());
}

TEST_CASE("the technique check rejects static shared memory", "[lab06][host]") {
  const std::string p = lab06::dynamic_shared_problem(kStaticPtx, "reverse_kernel");
  CHECK(p.find("reverse_kernel (_ZN5lab069candidate14reverse_kernelEPKiPii) uses static shared "
               "memory in its PTX") == 0);
  CHECK(p.find("4096 bytes") != std::string::npos);
  const std::string m = lab06::dynamic_shared_problem(kMixedPtx, "conv1d_dynamic_kernel");
  CHECK(m.find("uses static shared memory") != std::string::npos);
  CHECK(m.find("mask_s") != std::string::npos);
}

TEST_CASE("the technique check rejects a kernel without shared memory", "[lab06][host]") {
  const std::string p = lab06::dynamic_shared_problem(kGlobalPtx, "reverse_kernel");
  CHECK(p.find("uses no dynamic shared memory") != std::string::npos);
  CHECK(p.find("0 st.shared, 0 ld.shared and 0 barrier instruction(s)") != std::string::npos);
  CHECK(lab06::dynamic_shared_problem(kGlobalPtx, "conv1d_dynamic_kernel")
            .find("no kernel named conv1d_dynamic_kernel") == 0);
}
