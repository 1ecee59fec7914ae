#include "technique.h"

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace cudalab::grade {

std::string candidate_ptx() {
  const std::string path = kCandidatePtxPath;
  if (path.empty()) throw std::runtime_error("this grader was built without the candidate's PTX");
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the candidate's PTX at " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<PtxKernel> ptx_kernels(const std::string& ptx) {
  std::vector<PtxKernel> kernels;
  std::size_t pos = 0;
  while ((pos = ptx.find(".entry ", pos)) != std::string::npos) {
    const std::size_t name_start = pos + 7;
    const std::size_t name_end = ptx.find_first_of("( \n", name_start);
    if (name_end == std::string::npos) break;
    PtxKernel k;
    k.name = ptx.substr(name_start, name_end - name_start);
    // The body: the first '{' after the parameter list, to its matching '}'.
    const std::size_t params_end = ptx.find(')', name_end);
    const std::size_t open =
        params_end == std::string::npos ? params_end : ptx.find('{', params_end);
    if (open == std::string::npos) break;
    int depth = 0;
    std::size_t i = open;
    for (; i < ptx.size(); ++i) {
      if (ptx[i] == '{') ++depth;
      if (ptx[i] == '}' && --depth == 0) break;
    }
    k.body = ptx.substr(open, i - open + 1);
    kernels.push_back(std::move(k));
    pos = i;
  }
  return kernels;
}

std::vector<PtxKernel> kernels_named(const std::string& ptx, const std::string& name,
                                     std::string* problem) {
  std::vector<PtxKernel> found;
  std::string all;
  for (auto& k : ptx_kernels(ptx)) {
    all += (all.empty() ? "" : ", ") + k.name;
    if (k.name.find(name) != std::string::npos) found.push_back(std::move(k));
  }
  if (problem != nullptr) {
    problem->clear();
    if (found.empty())
      *problem = "no kernel named " + name +
                 " in the PTX of your file (keep the kernel's name from the skeleton); kernels "
                 "found: " +
                 (all.empty() ? "none" : all);
  }
  return found;
}

int count_instructions(const std::string& body, const std::string& prefix) {
  int count = 0;
  std::istringstream lines(body);
  std::string line;
  while (std::getline(lines, line)) {
    std::size_t i = 0;
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i < line.size() && line[i] == '@') {  // predicate: @%p1 ld.shared...
      while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
      while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    }
    if (line.compare(i, prefix.size(), prefix) == 0) {
      const std::size_t after = i + prefix.size();
      // "ld.shared" must not match "ld.sharedX"; it may continue with '.' (ld.shared.f32) or space.
      if (after == line.size() || line[after] == '.' ||
          std::isspace(static_cast<unsigned char>(line[after])))
        ++count;
    }
  }
  return count;
}

}  // namespace cudalab::grade
