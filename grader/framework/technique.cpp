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

std::vector<KernelInstructions> count_kernel_instructions(const std::string& ptx,
                                                          const std::string& name,
                                                          const std::vector<InstructionKind>& kinds,
                                                          std::string* problem) {
  std::vector<KernelInstructions> counted;
  for (const auto& k : kernels_named(ptx, name, problem)) {
    KernelInstructions c;
    c.kernel = k.name;
    for (const auto& kind : kinds) {
      int& count = c.counts[kind.name];
      for (const auto& prefix : kind.prefixes) count += count_instructions(k.body, prefix);
    }
    counted.push_back(std::move(c));
  }
  return counted;
}

bool has_shared_tile(const KernelInstructions& k) {
  return k[kSharedStores.name] > 0 && k[kSharedLoads.name] > 0 && k[kBarriers.name] > 0;
}

std::string technique_problem(const std::string& ptx, const std::string& name,
                              const std::vector<InstructionKind>& kinds,
                              const KernelVerdict& verdict) {
  std::string problem;
  const auto counted = count_kernel_instructions(ptx, name, kinds, &problem);
  for (const auto& k : counted) {
    const std::string why = verdict(k);
    if (!why.empty()) problem += (problem.empty() ? "" : "\n") + why;
  }
  return problem;
}

std::string shared_tile_problem(const std::string& ptx, const std::string& name,
                                const std::string& what) {
  return technique_problem(
      ptx, name, {kSharedStores, kSharedLoads, kBarriers},
      [&](const KernelInstructions& k) -> std::string {
        if (has_shared_tile(k)) return "";
        return "no shared-memory tile in " + name + ": its PTX has " +
               std::to_string(k[kSharedStores.name]) + " st.shared, " +
               std::to_string(k[kSharedLoads.name]) + " ld.shared and " +
               std::to_string(k[kBarriers.name]) + " barrier instruction(s) (" + k.kernel + "); " +
               what +
               " must be stored to shared memory, synchronized, and read back from "
               "there";
      });
}

namespace {

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}

// The decimal number at the start of `text`, 0 when there is none.
long long leading_number(const std::string& text) {
  long long value = 0;
  for (std::size_t i = 0;
       i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])) && value < (1LL << 40);
       ++i)
    value = 10 * value + (text[i] - '0');
  return value;
}

// Bytes of one element of a PTX type: .b8 -> 1, .f32 -> 4, .u64 -> 8, .pred -> 1.
long long type_bytes(const std::string& type) {
  std::size_t i = 0;
  while (i < type.size() && !std::isdigit(static_cast<unsigned char>(type[i]))) ++i;
  const long long bits = leading_number(type.substr(i));
  return bits >= 8 ? bits / 8 : 1;
}

}  // namespace

std::vector<PtxSharedVariable> shared_variables(const std::string& ptx) {
  std::vector<PtxSharedVariable> found;
  std::istringstream lines(ptx);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string word;
    PtxSharedVariable v;
    // Linkage first (.extern, .visible, .weak), then .shared, then .align N and the type.
    while (words >> word && (word == ".extern" || word == ".visible" || word == ".weak"))
      v.is_extern = v.is_extern || word == ".extern";
    if (word != ".shared") continue;
    std::string type;
    while (words >> word && !word.empty() && word[0] == '.') {
      if (word == ".align") {
        words >> word;  // the alignment's value
      } else {
        type = word;
      }
    }
    if (word.empty() || word[0] == '.') continue;
    // word: name[1024]; or name[]; or name; (a multi-dimensional array has several [n])
    const std::size_t end = word.find_first_of("[;");
    v.name = word.substr(0, end);
    long long count = 1;
    for (std::size_t open = word.find('['); open != std::string::npos;
         open = word.find('[', open + 1)) {
      count *= leading_number(word.substr(open + 1));
    }
    v.bytes = count * type_bytes(type);
    found.push_back(std::move(v));
  }
  return found;
}

bool mentions_symbol(const std::string& text, const std::string& symbol) {
  if (symbol.empty()) return false;
  for (std::size_t pos = text.find(symbol); pos != std::string::npos;
       pos = text.find(symbol, pos + 1)) {
    const bool starts = pos == 0 || !is_identifier_char(text[pos - 1]);
    const std::size_t after = pos + symbol.size();
    const bool ends = after == text.size() || !is_identifier_char(text[after]);
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace cudalab::grade
