#include "cudalab/cli.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cudalab/check.h"
#include "cudalab/device_info.h"

namespace cudalab {

std::string use_ctest_gpu() {
  const char* given = std::getenv("CTEST_RESOURCE_GROUP_0_GPUS");
  if (given == nullptr) return "";
  const std::string text = given;
  const std::size_t comma = text.find(',');
  const std::string id = text.rfind("id:", 0) == 0 ? text.substr(3, comma - 3) : "";
  if (id.empty() || id.size() > 4 || id.find_first_not_of("0123456789") != std::string::npos)
    return "";
  std::string gpu = id;
  if (const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
      visible != nullptr && *visible != '\0') {
    std::vector<std::string> names;
    std::istringstream list(visible);
    for (std::string name; std::getline(list, name, ',');) names.push_back(name);
    const auto index = static_cast<std::size_t>(std::stoi(id));
    if (index >= names.size()) return "";
    gpu = names[index];
  }
  setenv("CUDA_VISIBLE_DEVICES", gpu.c_str(), 1);
  for (const char* variable :
       {"CTEST_RESOURCE_GROUP_0_GPUS", "CTEST_RESOURCE_GROUP_0", "CTEST_RESOURCE_GROUP_COUNT"})
    unsetenv(variable);
  return gpu;
}

int guarded_main(const char* program, const std::function<int()>& body) {
  use_ctest_gpu();
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
