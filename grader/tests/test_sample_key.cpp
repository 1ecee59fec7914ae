// The timed samples' keys (grader/framework/perf.h, sample_key): what no call of the candidate can
// foresee. A key that followed from the grade's seed or the sample's number would be the same in
// two processes that start alike; these are not, and none repeats.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <set>
#include <vector>

#include "cudalab/catch.h"
#include "perf.h"

using cudalab::grade::sample_key;

namespace {

// The first key a new process draws (a child of this one: the same seed, the same state).
std::uint64_t first_key_of_a_child() {
  int p[2];
  REQUIRE(pipe(p) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    const std::uint64_t key = sample_key();
    _exit(write(p[1], &key, sizeof key) == sizeof key ? 0 : 1);
  }
  close(p[1]);
  std::uint64_t key = 0;
  const bool read_it = read(p[0], &key, sizeof key) == sizeof key;
  close(p[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(read_it);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);
  return key;
}

}  // namespace

TEST_CASE("timed samples: keys no one can foresee", "[grader][sample-key]") {
  std::set<std::uint64_t> keys;
  for (int i = 0; i < 1000; ++i) keys.insert(sample_key());
  CHECK(keys.size() == 1000);
  for (std::uint64_t n = 0; n <= 1000; ++n) CHECK(keys.count(n) == 0);  // not the samples' numbers
  // Two processes in the same state draw different first keys: not a generator seeded by the
  // grade (whose seed the student's file may know, or recover from an earlier sample's inputs).
  CHECK(first_key_of_a_child() != first_key_of_a_child());
}

// The rounds in which the judge counts what the GPU executed (perf.cpp): as many as asked, all
// different, among the first rounds every timing has, and a different choice with another key,
// so that no round is safe from being counted.
TEST_CASE("timed samples: the counted rounds are drawn, not fixed", "[grader][sample-key]") {
  using cudalab::grade::counted_rounds;
  const std::vector<std::size_t> three = counted_rounds(3, 20, sample_key());
  REQUIRE(three.size() == 3);
  CHECK(std::set<std::size_t>(three.begin(), three.end()).size() == 3);
  for (const std::size_t r : three) CHECK(r < 20);
  CHECK(counted_rounds(5, 2, sample_key()).size() == 2);  // no more than the rounds
  CHECK(counted_rounds(0, 20, sample_key()).empty());
  CHECK(counted_rounds(3, 20, 7) == counted_rounds(3, 20, 7));  // the key decides
  // Over 2000 keys every one of the 20 rounds is drawn first, about 100 times each.
  std::vector<int> first(20, 0);
  for (int i = 0; i < 2000; ++i) ++first[counted_rounds(1, 20, sample_key()).front()];
  for (const int n : first) {
    CHECK(n > 40);
    CHECK(n < 200);
  }
}
