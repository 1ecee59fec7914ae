// Helpers shared by the common host tests: looking for parts of a message, setting an
// environment variable for a test.
#pragma once

#include <cstdlib>
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

// Sets (or with nullptr, removes) an environment variable; puts the old value back on exit.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value != nullptr)
      setenv(name, value, 1);
    else
      unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      setenv(name_, old_.c_str(), 1);
    else
      unsetenv(name_);
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

}  // namespace test_support
