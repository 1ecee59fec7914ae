#include "cudalab/cli.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "cudalab/check.h"
#include "cudalab/device_info.h"

namespace cudalab {

int guarded_main(const char* program, const std::function<int()>& body) {
  try {
    return body();
  } catch (const HelpRequested& e) {
    std::cout << e.what() << std::endl;
    return kExitOk;
  } catch (const UsageError& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return kExitUsage;
  } catch (const CudaError& e) {
    std::cerr << program << ": CUDA error: " << e.what() << "\n";
    return kExitFailure;
  } catch (const std::exception& e) {
    std::cerr << program << ": error: " << e.what() << "\n";
    return kExitFailure;
  }
}

std::int64_t parse_int_in_range(const std::string& text, const std::string& what, std::int64_t lo,
                                std::int64_t hi) {
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(begin, &end, 10);
  if (text.empty() || *end != '\0')
    throw UsageError(what + " must be an integer, got '" + text + "'");
  if (errno == ERANGE || value < lo || value > hi)
    throw UsageError(what + " must be in [" + std::to_string(lo) + ", " + std::to_string(hi) +
                     "], got " + text);
  return value;
}

void require_odd_positive(std::int64_t value, const std::string& what) {
  if (value <= 0 || value % 2 == 0)
    throw UsageError(what + " must be odd and positive (a centred mask), got " +
                     std::to_string(value));
}

void require_writable(const std::string& path, const std::string& what) {
  std::ofstream probe(path, std::ios::app);
  if (!probe) throw UsageError(what + ": cannot write '" + path + "'");
}

std::string parse_choice(const std::string& text, const std::string& what,
                         const std::vector<std::string>& choices) {
  std::string list;
  for (const auto& c : choices) {
    if (text == c) return text;
    list += (list.empty() ? "'" : ", '") + c + "'";
  }
  throw UsageError(what + " must be one of " + list + ", got '" + text + "'");
}

std::string parse_either(const std::string& text, const std::string& what, const std::string& a,
                         const std::string& b) {
  if (text != a && text != b)
    throw UsageError(what + " must be '" + a + "' or '" + b + "', got '" + text + "'");
  return text;
}

void require_cuda_device() {
  if (std::string reason; !has_cuda_device(&reason)) throw std::runtime_error(reason);
}

void require_device_memory(std::size_t bytes, const std::string& what) {
  std::size_t free = 0, total = 0;
  CUDA_CHECK(cudaMemGetInfo(&free, &total));
  if (bytes > free) {
    char line[256];
    std::snprintf(line, sizeof line, "%s needs %.2f GiB of device memory, %.2f GiB are free",
                  what.c_str(), bytes / 1073741824.0, free / 1073741824.0);
    throw UsageError(line);
  }
}

}  // namespace cudalab
