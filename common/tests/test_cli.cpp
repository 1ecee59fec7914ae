// Command-line plumbing: integer parsing with ranges, odd-size checks and exit-code mapping.
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

#include "cudalab/catch.h"
#include "cudalab/check.h"
#include "cudalab/cli.h"
#include "cudalab/device_info.h"
#include "test_support.h"

using test_support::contains;

namespace {

// The message of the UsageError `f` throws; fails the test if it throws nothing.
template <typename F>
std::string usage_error_of(F&& f) {
  try {
    f();
  } catch (const cudalab::UsageError& e) {
    return e.what();
  }
  FAIL("no UsageError thrown");
  return {};
}

// Redirects std::cerr into a string for the lifetime of the object.
class CerrCapture {
 public:
  CerrCapture() : old_(std::cerr.rdbuf(captured_.rdbuf())) {}
  ~CerrCapture() { std::cerr.rdbuf(old_); }
  CerrCapture(const CerrCapture&) = delete;
  CerrCapture& operator=(const CerrCapture&) = delete;
  std::string text() const { return captured_.str(); }

 private:
  std::ostringstream captured_;
  std::streambuf* old_;
};

// guarded_main("runner", body) where body throws `error`: the exit code is `named_code`, whose
// value is `number`, and stderr is `line`.
template <typename E>
void check_exit_mapping(const E& error, int named_code, int number, const std::string& line) {
  CerrCapture cerr;
  const int code = cudalab::guarded_main("runner", [&error]() -> int { throw error; });
  CHECK(code == named_code);
  CHECK(code == number);
  CHECK(cerr.text() == line);
}

}  // namespace

TEST_CASE("parse_int_in_range accepts decimal integers inside the range", "[common][cli]") {
  SECTION("values inside and on the bounds") {
    const std::int64_t expected = GENERATE(std::int64_t{1}, std::int64_t{7}, std::int64_t{99});
    const std::string text = std::to_string(expected);
    CAPTURE(text);
    CHECK(cudalab::parse_int_in_range(text, "mask width", 1, 99) == expected);
  }
  SECTION("negative values") {
    CHECK(cudalab::parse_int_in_range("-3", "offset", -10, 10) == -3);
  }
  SECTION("the full 64-bit range") {
    constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
    constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
    CHECK(cudalab::parse_int_in_range("9223372036854775807", "n", kMin, kMax) == kMax);
    CHECK(cudalab::parse_int_in_range("-9223372036854775808", "n", kMin, kMax) == kMin);
  }
}

TEST_CASE("parse_int_in_range rejects text that is not an integer and names the option",
          "[common][cli]") {
  const std::string text =
      GENERATE(as<std::string>{}, "", "12abc", "1e3", "abc", "3.5", "12 ", "0x10", "-");
  CAPTURE(text);

  const std::string message =
      usage_error_of([&] { cudalab::parse_int_in_range(text, "mask width", 1, 1000); });
  CAPTURE(message);
  CHECK(contains(message, "mask width"));
  CHECK(contains(message, "'" + text + "'"));
}

TEST_CASE("parse_int_in_range rejects values out of range and names the option and range",
          "[common][cli]") {
  const std::string text = GENERATE(as<std::string>{}, "0", "-1", "100", "1000",
                                    "99999999999999999999", "-99999999999999999999");
  CAPTURE(text);

  const std::string message =
      usage_error_of([&] { cudalab::parse_int_in_range(text, "input size", 1, 99); });
  CAPTURE(message);
  CHECK(contains(message, "input size"));
  CHECK(contains(message, "[1, 99]"));
  CHECK(contains(message, text));
}

TEST_CASE("require_odd_positive accepts odd positive values only", "[common][cli]") {
  SECTION("accepted") {
    const std::int64_t value = GENERATE(std::int64_t{1}, std::int64_t{5}, std::int64_t{31});
    CAPTURE(value);
    CHECK_NOTHROW(cudalab::require_odd_positive(value, "mask width"));
  }
  SECTION("rejected") {
    const std::int64_t value =
        GENERATE(std::int64_t{0}, std::int64_t{-3}, std::int64_t{4}, std::int64_t{-1});
    CAPTURE(value);
    const std::string message =
        usage_error_of([&] { cudalab::require_odd_positive(value, "mask width"); });
    CAPTURE(message);
    CHECK(contains(message, "mask width"));
    CHECK(contains(message, std::to_string(value)));
  }
}

TEST_CASE("require_writable refuses a path that cannot be written, and keeps a file's contents",
          "[common][cli]") {
  const std::string message =
      usage_error_of([] { cudalab::require_writable("/nonexistent/dir/out.json", "--json"); });
  CHECK(message == "--json: cannot write '/nonexistent/dir/out.json'");
  const std::string path = "/tmp/cudalab-require-writable-test.txt";
  std::ofstream(path) << "kept";
  CHECK_NOTHROW(cudalab::require_writable(path, "--json"));
  std::ifstream in(path);
  std::string text;
  in >> text;
  CHECK(text == "kept");
  std::remove(path.c_str());
}

TEST_CASE("guarded_main passes the body's exit code through silently", "[common][cli]") {
  const int code = GENERATE(0, 1, 3);
  CAPTURE(code);
  CerrCapture cerr;
  CHECK(cudalab::guarded_main("runner", [code] { return code; }) == code);
  CHECK(cerr.text().empty());
}

TEST_CASE("guarded_main maps exceptions to exit codes and one line on stderr", "[common][cli]") {
  SECTION("UsageError -> 2") {
    check_exit_mapping(cudalab::UsageError("mask width must be odd"), cudalab::kExitUsage, 2,
                       "runner: error: mask width must be odd\n");
  }
  SECTION("std::runtime_error -> 1") {
    check_exit_mapping(std::runtime_error("cannot open input.pgm"), cudalab::kExitFailure, 1,
                       "runner: error: cannot open input.pgm\n");
  }
  SECTION("CudaError -> 1") {
    CerrCapture cerr;
    const int code = cudalab::guarded_main("runner", []() -> int {
      CUDA_CHECK(cudaError_t(cudaErrorInvalidValue));
      return 0;
    });
    CHECK(code == cudalab::kExitFailure);
    const std::string text = cerr.text();
    CAPTURE(text);
    CHECK(text.rfind("runner: CUDA error: ", 0) == 0);
    CHECK(contains(text, "cudaErrorInvalidValue"));
  }
}

TEST_CASE("guarded_main prints the help text and returns 0 for HelpRequested", "[common][cli]") {
  CHECK(cudalab::guarded_main("prog", []() -> int {
          throw cudalab::HelpRequested("usage: prog");
        }) == cudalab::kExitOk);
}

TEST_CASE("parse_choice accepts listed words and names them otherwise", "[common][cli]") {
  CHECK(cudalab::parse_choice("conv", "--part", {"reverse", "conv"}) == "conv");
  REQUIRE_THROWS_AS(cudalab::parse_choice("Conv", "--part", {"reverse", "conv"}),
                    cudalab::UsageError);
  try {
    cudalab::parse_choice("x", "--part", {"reverse", "conv"});
  } catch (const cudalab::UsageError& e) {
    CHECK(std::string(e.what()) == "--part must be one of 'reverse', 'conv', got 'x'");
  }
}

TEST_CASE("require_cuda_device agrees with has_cuda_device and names the reason", "[common][cli]") {
  std::string reason;
  if (cudalab::has_cuda_device(&reason)) {
    CHECK_NOTHROW(cudalab::require_cuda_device());
  } else {
    try {
      cudalab::require_cuda_device();
      FAIL("require_cuda_device did not throw without a device");
    } catch (const std::runtime_error& e) {
      CHECK(std::string(e.what()).rfind("no CUDA device", 0) == 0);
    }
  }
}

namespace {

using test_support::ScopedEnv;

std::string env_or_unset(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? "(unset)" : value;
}

}  // namespace

TEST_CASE("use_ctest_gpu makes the GPU CTest gave the only one CUDA sees", "[common][cli]") {
  ScopedEnv group("CTEST_RESOURCE_GROUP_0_GPUS", "id:2,slots:8");
  ScopedEnv count("CTEST_RESOURCE_GROUP_COUNT", "1");
  SECTION("an id, nothing visible before: the id") {
    ScopedEnv visible("CUDA_VISIBLE_DEVICES", nullptr);
    CHECK(cudalab::use_ctest_gpu() == "2");
    CHECK(env_or_unset("CUDA_VISIBLE_DEVICES") == "2");
    // CTest's variables are gone: a process this one starts keeps GPU 2 and maps nothing again.
    CHECK(env_or_unset("CTEST_RESOURCE_GROUP_0_GPUS") == "(unset)");
    CHECK(env_or_unset("CTEST_RESOURCE_GROUP_COUNT") == "(unset)");
    CHECK(cudalab::use_ctest_gpu().empty());
    CHECK(env_or_unset("CUDA_VISIBLE_DEVICES") == "2");
  }
  SECTION("an id counts the GPUs CUDA_VISIBLE_DEVICES named") {
    ScopedEnv visible("CUDA_VISIBLE_DEVICES", "4,5,GPU-abc,7");
    CHECK(cudalab::use_ctest_gpu() == "GPU-abc");
    CHECK(env_or_unset("CUDA_VISIBLE_DEVICES") == "GPU-abc");
  }
  SECTION("an id past the GPUs named changes nothing") {
    ScopedEnv visible("CUDA_VISIBLE_DEVICES", "4");
    CHECK(cudalab::use_ctest_gpu().empty());
    CHECK(env_or_unset("CUDA_VISIBLE_DEVICES") == "4");
  }
}

TEST_CASE("use_ctest_gpu changes nothing without CTest's variable or with one it cannot read",
          "[common][cli]") {
  ScopedEnv visible("CUDA_VISIBLE_DEVICES", "3");
  for (const char* given : {static_cast<const char*>(nullptr), "", "id:,slots:1", "slots:1,id:2",
                            "id:x1,slots:1", "id:123456789,slots:1", "id:-1,slots:1"}) {
    CAPTURE(given == nullptr ? "(unset)" : given);
    ScopedEnv group("CTEST_RESOURCE_GROUP_0_GPUS", given);
    CHECK(cudalab::use_ctest_gpu().empty());
    CHECK(env_or_unset("CUDA_VISIBLE_DEVICES") == "3");
  }
}
