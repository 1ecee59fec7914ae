// The reference's profile kept between grades (grader/grade/profile_cache.h): what is stored under
// a key comes back under that key only, and a damaged or half-written entry is a miss.
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "cudalab/catch.h"
#include "profile_cache.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;
using cudalab::grade::file_identity;
using cudalab::grade::load_profile;
using cudalab::grade::ProfileFigures;
using cudalab::grade::store_profile;

// The cache's folder in a folder of the test's own: not made beforehand (store_profile makes it).
struct Folder {
  test_support::TempFolder own{"profile-cache"};
  std::string dir() const { return (own.path / "cache").string(); }
  // The one entry's file.
  fs::path entry() const {
    for (const auto& e : fs::directory_iterator(dir())) return e.path();
    return {};
  }
};

const std::string kKey =
    "device NVIDIA H200 GPU-a6ec\ndriver 13000\nseed 20180914\nbuild/lab01-grader-solution 1 2";
const ProfileFigures kFigures = {{"profile_reference_dram_gbs", 4021.5},
                                 {"profile_reference_occupancy_pct", 87.25},
                                 {"profile_reference_global_ld", 0.0}};

}  // namespace

TEST_CASE("profile cache: figures come back under the key they were stored with",
          "[grader][profile-cache]") {
  Folder f;
  CHECK_FALSE(load_profile(f.dir(), "01", "performance vs reference", kKey).has_value());
  REQUIRE(store_profile(f.dir(), "01", "performance vs reference", kKey, kFigures));
  const auto back = load_profile(f.dir(), "01", "performance vs reference", kKey);
  REQUIRE(back.has_value());
  CHECK(*back == kFigures);  // every figure to the last bit (%.17g)
  // Another check, lab or key is a miss.
  CHECK_FALSE(load_profile(f.dir(), "01", "largest size", kKey).has_value());
  CHECK_FALSE(load_profile(f.dir(), "02", "performance vs reference", kKey).has_value());
  CHECK_FALSE(load_profile(f.dir(), "01", "performance vs reference", kKey + "\nmore").has_value());
  CHECK_FALSE(
      load_profile(f.dir(), "01", "performance vs reference", "device NVIDIA H100").has_value());
  // No folder: nothing kept.
  CHECK_FALSE(store_profile("", "01", "performance vs reference", kKey, kFigures));
  CHECK_FALSE(load_profile("", "01", "performance vs reference", kKey).has_value());
  // Nothing to keep: nothing stored.
  CHECK_FALSE(store_profile(f.dir(), "03", "performance vs reference", kKey, {}));
}

TEST_CASE("profile cache: a damaged or half-written entry is a miss, never a figure",
          "[grader][profile-cache]") {
  Folder f;
  REQUIRE(store_profile(f.dir(), "01", "performance vs reference", kKey, kFigures));
  const fs::path entry = f.entry();
  const std::string text = test_support::file_text(entry);
  const auto with = [&](const std::string& damaged) {
    std::ofstream(entry, std::ios::trunc) << damaged;
    return load_profile(f.dir(), "01", "performance vs reference", kKey).has_value();
  };
  CHECK(with(text));
  CHECK_FALSE(with(text.substr(0, text.size() - 4)));  // cut before its end line
  CHECK_FALSE(with(text.substr(0, text.find("f "))));  // the key only
  CHECK_FALSE(with("cudalab reference profile 2\n" + text.substr(text.find('\n') + 1)));
  CHECK_FALSE(with(text + "f profile_reference_x 1\n"));  // after the end
  std::string bad = text;
  bad.replace(bad.find("87.25"), 5, "87.2x");
  CHECK_FALSE(with(bad));
  bad = text;
  bad.insert(bad.find("f "), "stray line\n");
  CHECK_FALSE(with(bad));
  bad = text;
  bad.insert(bad.find("end"), "k device NVIDIA H200 GPU-a6ec\n");  // a key line among figures
  CHECK_FALSE(with(bad));
  CHECK_FALSE(with(""));
  CHECK(with(text));
  // A check's name with any characters makes one plain file name.
  REQUIRE(store_profile(f.dir(), "10", "performance vs reference: course layer 2 (C = 12, M = 24)",
                        kKey, kFigures));
  CHECK(
      load_profile(f.dir(), "10", "performance vs reference: course layer 2 (C = 12, M = 24)", kKey)
          .has_value());
  for (const auto& e : fs::directory_iterator(f.dir()))
    CHECK(e.path().filename().string().find_first_of(" :()=,") == std::string::npos);
}

TEST_CASE("profile cache: a file's identity changes when it is rebuilt",
          "[grader][profile-cache]") {
  const test_support::TempFolder f("profile-cache-identity");
  const std::string file = (f.path / "lab01-grader-solution").string();
  CHECK(file_identity(file) == file + " missing");
  std::ofstream(file) << "one build";
  const std::string first = file_identity(file);
  CHECK(first.rfind(file + " 9 ", 0) == 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::ofstream(file, std::ios::trunc) << "two build";  // the same size, a later time
  CHECK(file_identity(file) != first);
}
