// What a lab's remote.cpp includes: its serve half (CUDALAB_SERVE, linked into the candidate
// library) gets the dispatch's side, its judge half the stubs' side (grader/framework/remote.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace cudalab {

// The elements of a host array whose size is the product of `sizes`: 0 when a size is below 1 or
// the array could not exist (more than PTRDIFF_MAX bytes), so that nothing is read; the function
// still gets the sizes as they are, and refuses them. Both halves of a lab's remote.cpp count a
// host argument with it, so that they agree.
inline std::size_t host_elements(std::initializer_list<long long> sizes,
                                 std::size_t element_bytes) {
  const std::size_t most = static_cast<std::size_t>(PTRDIFF_MAX) / element_bytes;
  std::size_t n = 1;
  for (const long long s : sizes) {
    if (s < 1 || static_cast<unsigned long long>(s) > most / n) return 0;
    n *= static_cast<std::size_t>(s);
  }
  return n;
}

}  // namespace cudalab

#if defined(CUDALAB_SERVE)
#include "serve_api.h"
#else
#include <string_view>

#include "remote.h"

#define CUDALAB_REMOTE_STR2(x) #x
#define CUDALAB_REMOTE_STR(x) CUDALAB_REMOTE_STR2(x)
namespace {
// The process this file's stubs call: the file is compiled once as labNN::candidate, once as
// labNN::reference.
[[maybe_unused]] const cudalab::remote::Endpoint kHere =
    std::string_view(CUDALAB_REMOTE_STR(CUDALAB_IMPL)) == "reference"
        ? cudalab::remote::Endpoint::reference
        : cudalab::remote::Endpoint::candidate;
}  // namespace
#endif
