#include "harness.h"

#include "remote.h"

#include "grading.h"

#include <cstdlib>
#include <cstring>
#include <sstream>

namespace cudalab::grade {

std::size_t guard_bytes() {
  static const std::size_t bytes = [] {
    const char* text = std::getenv("CUDALAB_GUARD_BYTES");
    if (text == nullptr || *text == '\0') return std::size_t{64 * 1024};
    return static_cast<std::size_t>(std::strtoull(text, nullptr, 10) / 16 * 16);  // keep alignment
  }();
  return bytes;
}

std::string describe_guard_damage(const std::string& name, const std::vector<unsigned char>& before,
                                  const std::vector<unsigned char>& after, std::size_t count,
                                  std::size_t elem) {
  std::ostringstream out;
  // Before the array: the element nearest the start is the last damaged byte.
  std::size_t damaged_before = 0, nearest_before = 0;
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (before[i] != kGuardByte) {
      ++damaged_before;
      nearest_before = (before.size() - i + elem - 1) / elem;  // elements before index 0
    }
  }
  std::size_t damaged_after = 0, first_after = 0;
  for (std::size_t i = after.size(); i-- > 0;) {
    if (after[i] != kGuardByte) {
      ++damaged_after;
      first_after = i / elem;
    }
  }
  if (damaged_before > 0)
    out << "wrote " << (damaged_before + elem - 1) / elem << " element(s) before the start of "
        << name << " (guard zone before " << name << "; nearest at " << name << "[-"
        << nearest_before << "])";
  if (damaged_after > 0) {
    if (damaged_before > 0) out << "; ";
    out << "wrote " << (damaged_after + elem - 1) / elem << " element(s) past the end of " << name
        << " (guard zone after " << name << "; first at " << name << "[" << count + first_after
        << "], size " << count << ")";
  }
  return out.str();
}

std::string CaseInfo::header() const {
  std::ostringstream out;
  out << "case '" << name << "' (";
  // The case's own seed is derived from the run's base seed; CUDALAB_SEED=<base> replays it.
  if (seed != 0) out << "seed " << seed << " from CUDALAB_SEED=" << base_seed() << ", ";
  out << sizes << ")";
  return out.str();
}

std::string check_cuda_errors(const CaseInfo& c) {
  // A candidate in a process of its own reports its errors with its calls' answers.
  if (std::string e = remote::take_error(); !e.empty()) return c.header() + ": " + e;
  cudaError_t status = cudaDeviceSynchronize();
  if (status == cudaSuccess) status = cudaGetLastError();
  if (status == cudaSuccess) return "";
  return c.header() + ": CUDA error " + cudaGetErrorName(status) + ": " +
         cudaGetErrorString(status);
}

std::string check_output(const CaseInfo& c, const GuardedBuffer<float>& out,
                         const std::vector<double>& expected, Tolerance tol) {
  if (std::string guards = out.check_guards(); !guards.empty()) return c.header() + ": " + guards;
  const CompareResult r = compare(out.download(), expected, tol);
  if (r.ok()) return "";
  return c.header() + ": output " + out.name() + " is wrong: " + describe(r, tol);
}

std::string check_unchanged(const CaseInfo& c, const GuardedBuffer<float>& in,
                            const std::vector<float>& original) {
  if (std::string guards = in.check_guards(); !guards.empty()) return c.header() + ": " + guards;
  const std::vector<float> now = in.download();
  for (std::size_t i = 0; i < now.size(); ++i) {
    if (std::memcmp(&now[i], &original[i], sizeof(float)) != 0) {
      std::ostringstream out;
      out << c.header() << ": input " << in.name() << " was modified (first at index " << i
          << ": was " << format_value(original[i]) << ", now " << format_value(now[i])
          << "); inputs are read-only";
      return out.str();
    }
  }
  return "";
}

std::string check_host_input_unchanged(const CaseInfo& c, const std::string& function,
                                       const std::vector<float>& handed,
                                       const std::vector<float>& original) {
  std::size_t changed = 0, first = 0;
  for (std::size_t i = 0; i < original.size() && i < handed.size(); ++i)
    if (std::memcmp(&handed[i], &original[i], sizeof(float)) != 0 && changed++ == 0) first = i;
  if (changed == 0 && handed.size() == original.size()) return "";
  return c.header() + ": " + function + " wrote to its const host input (" +
         std::to_string(changed) + " of " + std::to_string(original.size()) +
         " elements changed, first at [" + std::to_string(first) +
         "]); an input is read-only, even through a cast";
}

}  // namespace cudalab::grade
