// Catch2's main for host unit tests, compiled once (v2 and v3).
#if defined(CUDALAB_CATCH2_MAJOR) && CUDALAB_CATCH2_MAJOR >= 3
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

int main(int argc, char* argv[]) {
  return Catch::Session().run(argc, argv);
}
