// The host-argument area between the judge and the candidate process (grader/framework/wire.h,
// HostArea): one memfd, sealed at its size, mapped by both; the candidate's code may write into
// its mapping but never resize the area under the judge's.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "cudalab/catch.h"
#include "wire.h"

using cudalab::wire::HostArea;

namespace {
constexpr std::size_t kBytes = std::size_t{1} << 20;
}  // namespace

TEST_CASE("the host-argument area: sealed, and shared between two mappings", "[grader][wire]") {
  // prepare: the judge's area, and a second mapping of it as cudalab-serve makes one
  HostArea judge = HostArea::create(kBytes);
  REQUIRE(judge.data() != nullptr);
  REQUIRE(judge.size() == kBytes);
  const int fd = judge.descriptor();
  REQUIRE(fd >= 0);
  CHECK(fcntl(fd, F_GET_SEALS) == (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL));
  CHECK((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);  // no program the judge starts inherits it
  HostArea served = HostArea::map(fd);
  REQUIRE(served.size() == kBytes);
  REQUIRE(served.data() != judge.data());

  // run + verify: what one side writes, the other reads, at both ends of the area
  std::memcpy(judge.data(), "in", 3);
  std::memcpy(judge.data() + kBytes - 3, "end", 3);
  CHECK(std::memcmp(served.data(), "in", 3) == 0);
  CHECK(std::memcmp(served.data() + kBytes - 3, "end", 3) == 0);
  std::memcpy(served.data(), "out", 4);
  CHECK(std::memcmp(judge.data(), "out", 4) == 0);

  // The size cannot change, nor the seals: no SIGBUS for the judge, whoever holds the descriptor.
  errno = 0;
  CHECK(ftruncate(fd, 4096) == -1);
  CHECK(errno == EPERM);
  errno = 0;
  CHECK(ftruncate(fd, 2 * kBytes) == -1);
  CHECK(errno == EPERM);
  errno = 0;
  CHECK(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE) == -1);
  CHECK(errno == EPERM);
  struct stat st {};
  REQUIRE(fstat(fd, &st) == 0);
  CHECK(static_cast<std::size_t>(st.st_size) == kBytes);

  // A hole punched through the other mapping (all the candidate's code can do short of writing)
  // reads back as zeros in the judge's.
  REQUIRE(madvise(served.data(), 4096, MADV_REMOVE) == 0);
  CHECK(judge.data()[0] == 0);
  CHECK(std::memcmp(judge.data() + kBytes - 3, "end", 3) == 0);

  // The judge keeps only its mapping once the child has the descriptor.
  judge.close_descriptor();
  CHECK(judge.descriptor() == -1);
  std::memcpy(judge.data() + 4096, "still", 6);
  CHECK(std::memcmp(served.data() + 4096, "still", 6) == 0);
}

TEST_CASE("the host-argument area reaches another process", "[grader][wire]") {
  HostArea judge = HostArea::create(kBytes);
  std::memcpy(judge.data() + 256, "argument", 9);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // The child maps it from the descriptor, as cudalab-serve does, and changes the argument.
    try {
      HostArea served = HostArea::map(judge.descriptor());
      if (std::memcmp(served.at(256, 9), "argument", 9) != 0) _exit(2);
      std::memcpy(served.at(256, 9), "ARGUMENT", 9);
    } catch (const std::exception&) {
      _exit(3);
    }
    _exit(0);
  }
  int status = 0;
  REQUIRE(waitpid(pid, &status, 0) == pid);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);
  CHECK(std::memcmp(judge.data() + 256, "ARGUMENT", 9) == 0);
}

TEST_CASE("the host-argument area refuses a range outside it", "[grader][wire]") {
  HostArea area = HostArea::create(kBytes);
  constexpr std::uint64_t most = std::numeric_limits<std::uint64_t>::max();
  CHECK(area.at(0, kBytes) == area.data());
  CHECK(area.at(kBytes, 0) == area.data() + kBytes);
  CHECK(area.at(256, kBytes - 256) == area.data() + 256);
  CHECK_THROWS_AS(area.at(kBytes, 1), std::runtime_error);
  CHECK_THROWS_AS(area.at(1, kBytes), std::runtime_error);
  CHECK_THROWS_AS(area.at(kBytes + 1, 0), std::runtime_error);
  CHECK_THROWS_AS(area.at(most, 2), std::runtime_error);  // offset + size wraps around
  CHECK_THROWS_AS(area.at(2, most), std::runtime_error);
  CHECK_THROWS_AS(HostArea().at(0, 0), std::runtime_error);  // no area at all
}

TEST_CASE("a moved host-argument area is unmapped once", "[grader][wire]") {
  HostArea a = HostArea::create(kBytes);
  char* const data = a.data();
  HostArea b = std::move(a);
  CHECK(a.data() == nullptr);
  CHECK(a.descriptor() == -1);
  CHECK(b.data() == data);
  b = HostArea::create(kBytes);  // the first area unmapped and closed here
  CHECK(b.data() != nullptr);
  b.reset();
  CHECK(b.data() == nullptr);
  CHECK(b.size() == 0);
}
