// One include for Catch2 v2 (Debian 12, Ubuntu 22.04) and v3 (newer); CMake defines
// CUDALAB_CATCH2_MAJOR from the version it found. Only for tests and graders.
#pragma once
#if defined(CUDALAB_CATCH2_MAJOR) && CUDALAB_CATCH2_MAJOR >= 3
#include <catch2/catch_approx.hpp>
#include <catch2/catch_test_macros.hpp>
#include <catch2/generators/catch_generators.hpp>  // GENERATE, as<T>: not in test_macros
#include <catch2/matchers/catch_matchers_string.hpp>
using Catch::Approx;
#else
#include <catch2/catch.hpp>
#endif
