// CUDA_CHECK: a failing CUDA call throws CudaError naming the expression, the place and the error.
#include <cuda_runtime.h>

#include <stdexcept>
#include <string>

#include "cudalab/catch.h"
#include "cudalab/check.h"
#include "test_support.h"

using test_support::contains;

TEST_CASE("cuda_error_message names the expression and file:line and the error name and text",
          "[common][check]") {
  const std::string message = cudalab::cuda_error_message(
      cudaErrorInvalidValue, "cudaMemcpy(dst, src, n, kind)", "labs/conv.cu", 42);
  CAPTURE(message);

  CHECK(contains(message, "cudaMemcpy(dst, src, n, kind)"));
  CHECK(contains(message, "labs/conv.cu:42"));
  CHECK(contains(message, "cudaErrorInvalidValue"));
  CHECK(contains(message, cudaGetErrorString(cudaErrorInvalidValue)));
  // The documented layout: "<expr> failed at <file>:<line>: <cudaErrorName>: <description>".
  CHECK(message == std::string("cudaMemcpy(dst, src, n, kind) failed at labs/conv.cu:42: "
                               "cudaErrorInvalidValue: ") +
                       cudaGetErrorString(cudaErrorInvalidValue));
}

TEST_CASE("CUDA_CHECK throws CudaError carrying the code and the failing expression",
          "[common][check]") {
  const int line = __LINE__ + 2;  // the line of the CUDA_CHECK below
  try {
    CUDA_CHECK(cudaError_t(cudaErrorInvalidValue));
    FAIL("CUDA_CHECK did not throw");
  } catch (const cudalab::CudaError& e) {
    const std::string what = e.what();
    CAPTURE(what, line);
    CHECK(e.code() == cudaErrorInvalidValue);
    CHECK(contains(what, "cudaError_t(cudaErrorInvalidValue)"));
    CHECK(contains(what, "test_check.cpp:" + std::to_string(line)));
    CHECK(contains(what, "cudaErrorInvalidValue"));
    CHECK(contains(what, cudaGetErrorString(cudaErrorInvalidValue)));
  }
}

TEST_CASE("CudaError is a std::runtime_error so generic handlers catch it", "[common][check]") {
  // Catch's assertion macros take expressions; CUDA_CHECK is a statement, so wrap it.
  const auto check_oom = [] { CUDA_CHECK(cudaError_t(cudaErrorMemoryAllocation)); };
  REQUIRE_THROWS_AS(check_oom(), std::runtime_error);
  try {
    CUDA_CHECK(cudaError_t(cudaErrorMemoryAllocation));
  } catch (const cudalab::CudaError& e) {
    CHECK(e.code() == cudaErrorMemoryAllocation);
  }
}

TEST_CASE("CUDA_CHECK(cudaSuccess) does not throw", "[common][check]") {
  CHECK_NOTHROW([] { CUDA_CHECK(cudaSuccess); }());
  CHECK_NOTHROW([] { CUDA_CHECK(cudaError_t(cudaSuccess)); }());
}

TEST_CASE("CUDA_CHECK evaluates its expression exactly once", "[common][check]") {
  int calls = 0;
  const auto failing_call = [&calls] {
    ++calls;
    return cudaErrorInvalidValue;
  };
  const auto succeeding_call = [&calls] {
    ++calls;
    return cudaSuccess;
  };

  SECTION("success") {
    CUDA_CHECK(succeeding_call());
    CHECK(calls == 1);
  }
  SECTION("failure") {
    CHECK_THROWS_AS([&] { CUDA_CHECK(failing_call()); }(), cudalab::CudaError);
    CHECK(calls == 1);
  }
}

TEST_CASE("CUDA_CHECK is a single statement (safe in an unbraced if/else)", "[common][check]") {
  bool took_else = false;
  const bool condition = false;
  if (condition)
    CUDA_CHECK(cudaError_t(cudaErrorInvalidValue));
  else
    took_else = true;
  CHECK(took_else);
}
