// The grade command reads compute-sanitizer's output, not only its exit code.
#include "cudalab/catch.h"
#include "sanitizer_output.h"

using cudalab::grade::sanitizer_reported_hazards;

TEST_CASE("clean sanitizer runs report no hazards", "[grader][sanitizer]") {
  CHECK_FALSE(
      sanitizer_reported_hazards("========= COMPUTE-SANITIZER\n"
                                 "All tests passed\n"
                                 "========= ERROR SUMMARY: 0 errors\n"));
  CHECK_FALSE(
      sanitizer_reported_hazards("========= RACECHECK SUMMARY: 0 hazards displayed "
                                 "(0 errors, 0 warnings)\n"));
  CHECK_FALSE(sanitizer_reported_hazards(""));
}

TEST_CASE("a racecheck warning counts as a hazard", "[grader][sanitizer]") {
  // What racecheck printed on an H200 for a kernel without __syncthreads (exit code 0).
  CHECK(sanitizer_reported_hazards(
      "========= COMPUTE-SANITIZER\n"
      "========= Warning: Race reported between Write access at k()+0x1d0 in a.cu:22\n"
      "=========     and Read access at k()+0x2a0 in a.cu:27 [256 hazards]\n"
      "========= RACECHECK SUMMARY: 1 hazard displayed (0 errors, 1 warning)\n"));
  CHECK(sanitizer_reported_hazards("========= RACECHECK SUMMARY: 2 hazards displayed\n"));
}

TEST_CASE("memcheck and synccheck errors count as hazards", "[grader][sanitizer]") {
  CHECK(
      sanitizer_reported_hazards("========= Invalid __global__ write of size 4 bytes\n"
                                 "========= ERROR SUMMARY: 12 errors\n"));
  CHECK(sanitizer_reported_hazards("========= ERROR SUMMARY: 1 error\n"));
}

TEST_CASE("the program's own output cannot fake a hazard", "[grader][sanitizer]") {
  CHECK_FALSE(sanitizer_reported_hazards("Race reported\nERROR SUMMARY: 5 errors\n"));
}
