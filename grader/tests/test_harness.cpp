// Harness messages without a GPU: how guard-zone damage is described and how a case names itself.
#include <cstring>
#include <string>
#include <vector>

#include "cudalab/catch.h"
#include "harness.h"

using cudalab::grade::CaseInfo;
using cudalab::grade::describe_guard_damage;
using cudalab::grade::kGuardByte;

namespace {

constexpr std::size_t kGuard = 64;  // bytes per guard zone in these tests (16 floats)
constexpr std::size_t kCount = 1000;
constexpr std::size_t kElem = sizeof(float);

std::vector<unsigned char> intact_guard() {
  return std::vector<unsigned char>(kGuard, kGuardByte);
}

// Writes `value` into a guard zone at element `index` (counted from the zone's first byte), as
// a kernel storing a float there would.
void write_float(std::vector<unsigned char>& zone, std::size_t index, float value) {
  std::memcpy(zone.data() + index * kElem, &value, kElem);
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace

TEST_CASE("intact guard zones describe no damage", "[grader][harness]") {
  CHECK(describe_guard_damage("y", intact_guard(), intact_guard(), kCount, kElem).empty());
}

TEST_CASE("a write past the end names the side, the count and the first element",
          "[grader][harness]") {
  auto after = intact_guard();

  SECTION("one element just past the end") {
    write_float(after, 0, 1.0f);
    const std::string msg = describe_guard_damage("y", intact_guard(), after, kCount, kElem);
    CAPTURE(msg);
    CHECK(contains(msg, "wrote 1 element(s) past the end of y"));
    CHECK(contains(msg, "first at y[1000]"));
    CHECK_FALSE(contains(msg, "before the start"));
  }
  SECTION("three elements past the end") {
    for (std::size_t i = 0; i < 3; ++i) write_float(after, i, -2.5f);
    const std::string msg = describe_guard_damage("y", intact_guard(), after, kCount, kElem);
    CAPTURE(msg);
    CHECK(contains(msg, "wrote 3 element(s) past the end of y"));
    CHECK(contains(msg, "first at y[1000]"));
  }
  SECTION("a single element further out") {
    write_float(after, 5, 0.0f);
    const std::string msg = describe_guard_damage("y", intact_guard(), after, kCount, kElem);
    CAPTURE(msg);
    CHECK(contains(msg, "wrote 1 element(s) past the end of y"));
    CHECK(contains(msg, "first at y[1005]"));
  }
}

TEST_CASE("a write before the start names the side and the nearest element", "[grader][harness]") {
  auto before = intact_guard();
  const std::size_t elems = kGuard / kElem;

  SECTION("two elements before the start") {
    write_float(before, elems - 2, 1.0f);  // y[-2]
    const std::string msg = describe_guard_damage("y", before, intact_guard(), kCount, kElem);
    CAPTURE(msg);
    CHECK(contains(msg, "wrote 1 element(s) before the start of y"));
    CHECK(contains(msg, "y[-2]"));
    CHECK_FALSE(contains(msg, "past the end"));
  }
  SECTION("the element just before the start") {
    write_float(before, elems - 1, 1.0f);  // y[-1]
    const std::string msg = describe_guard_damage("y", before, intact_guard(), kCount, kElem);
    CAPTURE(msg);
    CHECK(contains(msg, "y[-1]"));
  }
}

TEST_CASE("writes on both sides are both described", "[grader][harness]") {
  auto before = intact_guard();
  auto after = intact_guard();
  write_float(before, kGuard / kElem - 2, 1.0f);
  write_float(after, 0, 1.0f);
  write_float(after, 1, 1.0f);
  const std::string msg = describe_guard_damage("out", before, after, kCount, kElem);
  CAPTURE(msg);
  CHECK(contains(msg, "wrote 1 element(s) before the start of out"));
  CHECK(contains(msg, "out[-2]"));
  CHECK(contains(msg, "wrote 2 element(s) past the end of out"));
  CHECK(contains(msg, "first at out[1000]"));
  CHECK(msg.find("before the start") < msg.find("past the end"));
}

TEST_CASE("a case header names the case, its seed when random, and its sizes",
          "[grader][harness]") {
  SECTION("seeded case") {
    const CaseInfo c{"name", 7, "width=3 mask_width=5"};
    CHECK(c.header() == "case 'name' (seed 7 from CUDALAB_SEED=20180914, width=3 mask_width=5)");
  }
  SECTION("fixed data (seed 0) omits the seed") {
    const CaseInfo c{"name", 0, "width=3 mask_width=5"};
    CHECK(c.header() == "case 'name' (width=3 mask_width=5)");
  }
}
