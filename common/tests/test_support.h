// Helpers shared by the common host tests: looking for parts of a message.
#pragma once

#include <initializer_list>
#include <string>

#include "cudalab/catch.h"

namespace test_support {

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// CHECKs that `text` contains every one of `parts` (each failing part is named).
inline void check_contains_all(const std::string& text, std::initializer_list<std::string> parts) {
  for (const std::string& part : parts) {
    CAPTURE(part);
    CHECK(contains(text, part));
  }
}

}  // namespace test_support
