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

enum class Side { before, after };

// Damage to one guard zone of y: `count` elements from element `first` (counted from the zone's
// first byte) hold `value`; what the message must say and what it must not.
struct Damage {
  std::size_t first, count;
  float value;
  std::vector<std::string> says, never_says;
};

void check_damage(Side side, const std::vector<Damage>& cases) {
  for (const Damage& d : cases) {
    CAPTURE(d.first, d.count);
    auto zone = intact_guard();
    for (std::size_t i = 0; i < d.count; ++i) write_float(zone, d.first + i, d.value);
    const std::string msg = side == Side::before
                                ? describe_guard_damage("y", zone, intact_guard(), kCount, kElem)
                                : describe_guard_damage("y", intact_guard(), zone, kCount, kElem);
    CAPTURE(msg);
    for (const std::string& part : d.says) CHECK(contains(msg, part));
    for (const std::string& part : d.never_says) CHECK_FALSE(contains(msg, part));
  }
}

}  // namespace

TEST_CASE("intact guard zones describe no damage", "[grader][harness]") {
  CHECK(describe_guard_damage("y", intact_guard(), intact_guard(), kCount, kElem).empty());
}

TEST_CASE("a write past the end names the side, the count and the first element",
          "[grader][harness]") {
  check_damage(Side::after,
               {
                   // one element just past the end
                   {0,
                    1,
                    1.0f,
                    {"wrote 1 element(s) past the end of y", "first at y[1000]"},
                    {"before the start"}},
                   // three elements past the end
                   {0, 3, -2.5f, {"wrote 3 element(s) past the end of y", "first at y[1000]"}, {}},
                   // a single element further out
                   {5, 1, 0.0f, {"wrote 1 element(s) past the end of y", "first at y[1005]"}, {}},
               });
}

TEST_CASE("a write before the start names the side and the nearest element", "[grader][harness]") {
  const std::size_t elems = kGuard / kElem;
  check_damage(Side::before, {
                                 // two elements before the start: y[-2]
                                 {elems - 2,
                                  1,
                                  1.0f,
                                  {"wrote 1 element(s) before the start of y", "y[-2]"},
                                  {"past the end"}},
                                 // the element just before the start: y[-1]
                                 {elems - 1, 1, 1.0f, {"y[-1]"}, {}},
                             });
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
