#include "sanitizer_output.h"

#include <cctype>
#include <sstream>

namespace cudalab::grade {

bool sanitizer_reported_hazards(const std::string& output) {
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("=========", 0) != 0) continue;  // only the sanitizer's own lines
    if (line.find("Race reported") != std::string::npos) return true;
    const std::size_t summary = line.find("SUMMARY: ");
    if (summary == std::string::npos) continue;
    std::size_t i = summary + 9;
    long count = 0;
    bool digits = false;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i]))) {
      count = count * 10 + (line[i++] - '0');
      digits = true;
    }
    if (digits && count > 0) return true;
  }
  return false;
}

}  // namespace cudalab::grade
