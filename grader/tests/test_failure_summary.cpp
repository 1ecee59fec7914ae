// The message of a check over many cases (failure_summary, behind require_all_cases): what a
// student reads when some of a lab's cases fail.
#include <string>
#include <vector>

#include "cudalab/catch.h"
#include "grading.h"

using cudalab::grade::failure_summary;

TEST_CASE("failure_summary: empty when every case passed", "[grader][summary]") {
  CHECK(failure_summary({}, "cases").empty());
  CHECK(failure_summary({"", "", ""}, "cases").empty());
}

TEST_CASE("failure_summary: each problem on its own line, in case order", "[grader][summary]") {
  CHECK(failure_summary({"", "case 2: wrong", "", "case 4: NaN"}, "cases") ==
        "case 2: wrong\ncase 4: NaN");
  CHECK(failure_summary({"a", "b", "c"}, "cases") == "a\nb\nc");
}

TEST_CASE("failure_summary: the first three, then how many more of how many", "[grader][summary]") {
  const std::vector<std::string> problems = {"p1", "", "p3", "p4", "p5", "", "p7"};
  CHECK(failure_summary(problems, "graphs") == "p1\np3\np4\n(2 more of 7 graphs failed)");
  CHECK(failure_summary(problems, "cases", 1) == "p1\n(4 more of 7 cases failed)");
  CHECK(failure_summary(problems, "cases", 5) == "p1\np3\np4\np5\np7");
}
