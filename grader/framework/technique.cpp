#include "technique.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "cudalab/catch.h"
#include "grading.h"

namespace cudalab::grade {

std::string joined_ptx(const std::vector<PtxModuleText>& modules) {
  if (modules.empty())
    throw std::runtime_error("this grader was built without the candidate's PTX");
  std::string all;
  for (const auto& m : modules) all += m.text + "\n";
  return all;
}

namespace {

// Analysis limits: a kernel whose helpers inline beyond these is reported, not analysed.
constexpr std::size_t kMaxInstructions = 1u << 18;
constexpr int kMaxCallDepth = 64;

bool is_space(char c) {
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

bool is_identifier_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '%';
}

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

// PTX without its comments (// to the end of the line, /* ... */), lines kept.
std::string strip_comments(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text.compare(i, 2, "//") == 0) {
      while (i < text.size() && text[i] != '\n') ++i;
      if (i < text.size()) out += '\n';
    } else if (text.compare(i, 2, "/*") == 0) {
      const std::size_t end = text.find("*/", i + 2);
      for (std::size_t j = i; j < std::min(end, text.size()); ++j)
        if (text[j] == '\n') out += '\n';
      if (end == std::string::npos) break;
      i = end + 1;
    } else {
      out += text[i];
    }
  }
  return out;
}

// The modules of a PTX text: each starts at a `.version` directive.
std::vector<std::string> split_modules(const std::string& ptx) {
  std::vector<std::size_t> starts;
  for (std::size_t pos = ptx.find(".version"); pos != std::string::npos;
       pos = ptx.find(".version", pos + 1))
    if (pos == 0 || ptx[pos - 1] == '\n' || is_space(ptx[pos - 1])) starts.push_back(pos);
  if (starts.size() <= 1) return {ptx};
  std::vector<std::string> modules;
  if (!trim(ptx.substr(0, starts[0])).empty()) modules.push_back(ptx.substr(0, starts[0]));
  for (std::size_t i = 0; i < starts.size(); ++i)
    modules.push_back(
        ptx.substr(starts[i], (i + 1 < starts.size() ? starts[i + 1] : ptx.size()) - starts[i]));
  return modules;
}

std::string module_target(const std::string& module) {
  const std::size_t pos = module.find(".target");
  if (pos == std::string::npos) return "";
  std::istringstream words(module.substr(pos + 7, 64));
  std::string target;
  words >> target;
  if (!target.empty() && target.back() == ',') target.pop_back();
  return target;
}

// One statement of a body: an instruction (or directive) or a label.
struct Statement {
  bool label = false;
  std::string text;  // the instruction without its ';', whitespace folded; or the label's name
};

std::vector<Statement> statements(const std::string& body) {
  std::vector<Statement> out;
  std::string buffer;
  bool blank = true;  // the buffer holds only whitespace
  const auto flush = [&] {
    std::string folded;
    std::istringstream words(buffer);
    std::string w;
    while (words >> w) folded += (folded.empty() ? "" : " ") + w;
    if (!folded.empty()) out.push_back({false, folded});
    buffer.clear();
    blank = true;
  };
  for (const char c : body) {
    if ((c == '{' || c == '}') && blank) {  // a block, not a vector operand
      buffer.clear();
      continue;
    }
    if (c == ';') {
      flush();
      continue;
    }
    if (c == '\n' && !blank) {  // .loc and .file end at the line's end, without ';'
      const std::string t = trim(buffer);
      if (t.rfind(".loc", 0) == 0 || t.rfind(".file", 0) == 0) {
        buffer.clear();
        blank = true;
        continue;
      }
    }
    if (c == ':' && !blank) {
      const std::string name = trim(buffer);
      if (std::all_of(name.begin(), name.end(), is_identifier_char) && name[0] != '%') {
        out.push_back({true, name});
        buffer.clear();
        blank = true;
        continue;
      }
    }
    buffer += c;
    blank = blank && is_space(c);
  }
  flush();
  return out;
}

// A .entry or .func with a body.
struct PtxFunction {
  std::string name;
  bool is_kernel = false;
  bool complete = true;              // its closing '}' was found
  std::vector<std::string> params;   // parameter names, in order
  std::vector<std::string> returns;  // return parameter names (a .func's), in order
  std::string body;                  // from '{' to its matching '}'
  std::vector<Statement> code;       // the body's statements
};

std::size_t matching(const std::string& text, std::size_t open, char left, char right) {
  int depth = 0;
  for (std::size_t i = open; i < text.size(); ++i) {
    if (text[i] == left) ++depth;
    if (text[i] == right && --depth == 0) return i;
  }
  return std::string::npos;
}

// Names declared in a parameter list: ".param .u64 name, .param .align 8 .b8 s[16]".
std::vector<std::string> parameter_names(const std::string& list) {
  std::vector<std::string> names;
  std::string item;
  std::istringstream items(list);
  while (std::getline(items, item, ',')) {
    std::istringstream words(item);
    std::string word, last;
    while (words >> word) last = word;
    last = last.substr(0, last.find('['));
    if (!last.empty()) names.push_back(last);
  }
  return names;
}

bool word_at(const std::string& text, std::size_t pos, const std::string& word) {
  if (text.compare(pos, word.size(), word) != 0) return false;
  const std::size_t after = pos + word.size();
  return (pos == 0 || is_space(text[pos - 1])) &&
         (after == text.size() || is_space(text[after]) || text[after] == '(');
}

// The functions with a body of one module (comments stripped).
std::vector<PtxFunction> module_functions(const std::string& text) {
  std::vector<PtxFunction> functions;
  std::size_t i = 0;
  while (i < text.size()) {
    const bool entry = word_at(text, i, ".entry");
    if (!entry && !word_at(text, i, ".func")) {
      ++i;
      continue;
    }
    PtxFunction f;
    f.is_kernel = entry;
    std::size_t p = i + (entry ? 6 : 5);
    while (p < text.size() && is_space(text[p])) ++p;
    if (!entry && p < text.size() && text[p] == '(') {  // return parameters
      const std::size_t close = matching(text, p, '(', ')');
      if (close == std::string::npos) break;
      f.returns = parameter_names(text.substr(p + 1, close - p - 1));
      p = close + 1;
      while (p < text.size() && is_space(text[p])) ++p;
    }
    const std::size_t name_start = p;
    while (p < text.size() && is_identifier_char(text[p])) ++p;
    f.name = text.substr(name_start, p - name_start);
    while (p < text.size() && is_space(text[p])) ++p;
    if (p < text.size() && text[p] == '(') {
      const std::size_t close = matching(text, p, '(', ')');
      if (close == std::string::npos) break;
      f.params = parameter_names(text.substr(p + 1, close - p - 1));
      p = close + 1;
    }
    // Performance directives (.maxntid 256, 1, 1 ...) up to the body, or ';' for a declaration.
    const std::size_t open = text.find_first_of("{;", p);
    if (f.name.empty() || open == std::string::npos) {
      i = p;
      continue;
    }
    if (text[open] == ';') {
      i = open + 1;
      continue;
    }
    std::size_t close = matching(text, open, '{', '}');
    if (close == std::string::npos) {
      f.complete = false;
      close = text.size() - 1;
    }
    f.body = text.substr(open, close - open + 1);
    f.code = statements(f.body);
    functions.push_back(std::move(f));
    i = close + 1;
  }
  return functions;
}

// An instruction split into its opcode and operands (a predicate guard dropped).
struct Instruction {
  std::string opcode;
  std::vector<std::string> operands;
};

Instruction parse_instruction(const std::string& text) {
  Instruction ins;
  std::size_t i = 0;
  if (!text.empty() && text[0] == '@') {
    i = text.find(' ');
    if (i == std::string::npos) return ins;
    ++i;
  }
  const std::size_t end = text.find(' ', i);
  ins.opcode = text.substr(i, end == std::string::npos ? std::string::npos : end - i);
  if (end == std::string::npos) return ins;
  int depth = 0;
  std::string current;
  for (std::size_t j = end + 1; j < text.size(); ++j) {
    const char c = text[j];
    if (c == '[' || c == '{' || c == '(') ++depth;
    if (c == ']' || c == '}' || c == ')') --depth;
    if (c == ',' && depth == 0) {
      ins.operands.push_back(trim(current));
      current.clear();
    } else {
      current += c;
    }
  }
  if (!trim(current).empty()) ins.operands.push_back(trim(current));
  return ins;
}

// A call (predicated or not): call, call.uni.
bool is_call(const Statement& s) {
  if (s.label) return false;
  const std::string opcode = parse_instruction(s.text).opcode;
  return opcode == "call" || opcode.rfind("call.", 0) == 0;
}

std::vector<std::string> opcode_parts(const std::string& opcode) {
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(opcode);
  while (std::getline(in, part, '.')) parts.push_back(part);
  return parts;
}

bool has_part(const std::vector<std::string>& parts, const std::string& prefix) {
  for (std::size_t i = 1; i < parts.size(); ++i)
    if (parts[i].rfind(prefix, 0) == 0) return true;
  return false;
}

// The %registers named in an operand.
std::vector<std::string> registers_in(const std::string& operand) {
  std::vector<std::string> regs;
  for (std::size_t i = 0; i < operand.size(); ++i) {
    if (operand[i] != '%') continue;
    std::size_t j = i + 1;
    while (j < operand.size() && (std::isalnum(static_cast<unsigned char>(operand[j])) ||
                                  operand[j] == '_' || operand[j] == '$'))
      ++j;
    if (j > i + 1) regs.push_back(operand.substr(i, j - i));
    i = j - 1;
  }
  return regs;
}

// The symbol of a memory operand "[name+8]" (empty when it is a register).
std::string memory_symbol(const std::string& operand) {
  if (operand.size() < 2 || operand.front() != '[') return "";
  std::string inside = operand.substr(1, operand.size() - 2);
  inside = trim(inside.substr(0, inside.find_first_of("+-")));
  return !inside.empty() && inside[0] != '%' ? inside : "";
}

bool is_zero_immediate(const std::string& operand) {
  if (operand.size() == 10 && (operand[1] == 'f' || operand[1] == 'F') && operand[0] == '0')
    return operand.substr(2) == "00000000" || operand.substr(2) == "80000000";
  if (operand.size() == 18 && (operand[1] == 'd' || operand[1] == 'D') && operand[0] == '0')
    return operand.substr(2) == "0000000000000000" || operand.substr(2) == "8000000000000000";
  if (!operand.empty() && (std::isdigit(static_cast<unsigned char>(operand[0])) ||
                           (operand[0] == '-' && operand.size() > 1))) {
    char* end = nullptr;
    const double v = std::strtod(operand.c_str(), &end);
    return end != nullptr && *end == '\0' && v == 0.0;
  }
  return false;
}

// The state space an instruction loads from, or 0 when it loads nothing.
unsigned load_space(const std::vector<std::string>& parts) {
  const std::string& base = parts[0];
  const auto space_of = [&]() -> unsigned {
    if (has_part(parts, "shared")) return kSharedSpace;
    if (has_part(parts, "const")) return kConstSpace;
    if (has_part(parts, "local")) return kLocalSpace;
    return kGlobalSpace;  // global, or generic: it may read global memory
  };
  if (base == "ld" || base == "ldu") return has_part(parts, "param") ? 0 : space_of();
  if (base == "tex" || base == "tld4" || base == "suld") return kTextureSpace;
  if (base == "ldmatrix") return kSharedSpace;
  if (base == "wmma" && has_part(parts, "load")) return space_of();
  if (base == "atom") return space_of();
  return 0;
}

bool is_float_type(const std::string& part) {
  return part == "f16" || part == "f16x2" || part == "bf16" || part == "bf16x2" || part == "f32" ||
         part == "f32x2" || part == "f64";
}

// A floating-point multiply: mul/fma/mad of a float type, or a matrix multiply-accumulate.
bool is_multiply(const std::vector<std::string>& parts) {
  const std::string& base = parts[0];
  if (base == "mma") return true;
  if ((base == "wmma" && has_part(parts, "mma")) || (base == "wgmma" && has_part(parts, "mma")))
    return true;
  if (base != "fma" && base != "mad" && base != "mul") return false;
  return std::any_of(parts.begin() + 1, parts.end(), is_float_type);
}

// Opcodes whose first operand is not a register they write.
bool writes_no_register(const std::string& base) {
  static const std::set<std::string> kNone = {
      "st",         "red",       "bar",           "barrier",        "bra",
      "brx",        "ret",       "exit",          "trap",           "membar",
      "fence",      "prefetch",  "prefetchu",     "call",           "cp",
      "stmatrix",   "nanosleep", "pmevent",       "griddepcontrol", "sust",
      "sured",      "discard",   "applypriority", "createpolicy",   "tensormap",
      "setmaxnreg", "elect"};
  return kNone.count(base) != 0;
}

bool opcode_matches(const std::string& opcode, const std::string& prefix) {
  if (opcode.compare(0, prefix.size(), prefix) != 0) return false;
  return opcode.size() == prefix.size() || opcode[prefix.size()] == '.';
}

// ---- One kernel with its helpers inlined ----------------------------------------------------

struct FlatInstruction {
  bool label = false;
  std::string name;  // a label's name (unique in the kernel)
  std::string opcode;
  std::vector<std::string> parts;
  std::vector<std::string> operands;
  std::vector<std::vector<int>> registers;  // per operand: value ids (registers, param cells)
  std::string target;                       // a branch's target label
};

class Flattener {
 public:
  Flattener(const std::vector<PtxFunction>& functions, const std::set<std::string>& address_taken,
            const std::vector<PtxSharedVariable>& shared)
      : functions_(functions), address_taken_(address_taken), shared_(shared) {
    for (std::size_t i = 0; i < functions.size(); ++i) by_name_[functions[i].name] = i;
  }

  // Flattens `kernel`; "" or the problem that stopped it.
  std::string run(const PtxFunction& kernel) {
    try {
      expand(kernel, "k", {});
    } catch (const std::length_error& e) {
      return e.what();
    }
    return "";
  }

  std::vector<FlatInstruction> code;
  std::vector<std::pair<std::size_t, std::size_t>> extra_loops;  // recursion: [first, last]
  std::vector<int> kernel_params;                                // value ids of its arguments
  std::set<std::string> called;
  std::set<std::size_t> shared_used;  // indices of the .shared variables named
  int value(const std::string& key) {
    const auto [it, added] = ids_.emplace(key, static_cast<int>(ids_.size()));
    return it->second;
  }
  int values() const { return static_cast<int>(ids_.size()); }

 private:
  void push(FlatInstruction f) {
    if (code.size() >= kMaxInstructions)
      throw std::length_error("too large to analyse (over " + std::to_string(kMaxInstructions) +
                              " instructions with its helpers inlined)");
    code.push_back(std::move(f));
  }

  // A move of value `from` into `to` (a parameter passed, a value returned).
  void link(int to, int from) {
    FlatInstruction f;
    f.opcode = "mov.param";
    f.parts = {"mov", "param"};
    f.operands = {"", ""};
    f.registers = {{to}, {from}};
    push(std::move(f));
  }

  void expand(const PtxFunction& fn, const std::string& inst,
              std::vector<std::pair<std::string, std::size_t>> stack) {
    if (static_cast<int>(stack.size()) > kMaxCallDepth)
      throw std::length_error("too deep a chain of calls to analyse");
    stack.emplace_back(fn.name, code.size());
    if (stack.size() == 1)
      for (const auto& p : fn.params) kernel_params.push_back(value(inst + "$P:" + p));
    int calls = 0;
    for (const auto& s : fn.code) {
      if (s.label) {
        FlatInstruction l;
        l.label = true;
        l.name = inst + "/" + s.text;
        push(std::move(l));
        continue;
      }
      if (s.text[0] == '.') continue;  // a declaration or directive (.reg, .shared, .pragma)
      for (std::size_t v = 0; v < shared_.size(); ++v)
        if (!shared_used.count(v) && mentions_symbol(s.text, shared_[v].name))
          shared_used.insert(v);
      Instruction ins = parse_instruction(s.text);
      if (ins.opcode.empty()) continue;
      std::vector<std::string> parts = opcode_parts(ins.opcode);
      if (parts[0] == "call") {
        expand_call(ins, inst, stack, ++calls);
        continue;
      }
      FlatInstruction f;
      f.opcode = ins.opcode;
      f.parts = parts;
      if ((parts[0] == "bra" || parts[0] == "brx") && !ins.operands.empty())
        f.target = inst + "/" + ins.operands.back();
      const bool param_access = (parts[0] == "ld" || parts[0] == "st") && has_part(parts, "param");
      for (const auto& op : ins.operands) {
        std::vector<int> ids;
        const std::string cell = param_access ? memory_symbol(op) : "";
        if (!cell.empty()) {
          ids.push_back(value(inst + "$P:" + cell));
        } else {
          for (const auto& r : registers_in(op)) ids.push_back(value(inst + "$" + r));
        }
        f.registers.push_back(std::move(ids));
      }
      if (param_access) {  // a parameter cell is a value like a register
        f.parts = {"mov", "param"};
        for (auto& op : ins.operands) op = op.empty() || op[0] != '[' ? op : memory_symbol(op);
      }
      f.operands = std::move(ins.operands);
      push(std::move(f));
    }
  }

  void expand_call(const Instruction& ins, const std::string& inst,
                   const std::vector<std::pair<std::string, std::size_t>>& stack, int number) {
    std::size_t i = 0;
    std::vector<std::string> returns, args;
    const auto list = [](const std::string& op) {
      std::vector<std::string> names;
      std::istringstream items(op.substr(1, op.size() - 2));
      std::string item;
      while (std::getline(items, item, ',')) {
        item = trim(item);
        if (!item.empty()) names.push_back(item);
      }
      return names;
    };
    if (i < ins.operands.size() && !ins.operands[i].empty() && ins.operands[i][0] == '(')
      returns = list(ins.operands[i++]);
    if (i >= ins.operands.size()) return;
    const std::string target = ins.operands[i++];
    if (i < ins.operands.size() && !ins.operands[i].empty() && ins.operands[i][0] == '(')
      args = list(ins.operands[i]);
    std::vector<std::string> callees;
    if (!target.empty() && target[0] == '%')  // indirect: any function whose address is taken
      callees.assign(address_taken_.begin(), address_taken_.end());
    else
      callees.push_back(target);
    int n = 0;
    for (const auto& name : callees) {
      const auto it = by_name_.find(name);
      if (it == by_name_.end()) continue;  // declared only (vprintf, malloc): no body here
      const PtxFunction& callee = functions_[it->second];
      called.insert(callee.name);
      const auto on_stack = std::find_if(stack.begin(), stack.end(),
                                         [&](const auto& s) { return s.first == callee.name; });
      if (on_stack != stack.end()) {  // recursion: the calls in between repeat, like a loop
        extra_loops.emplace_back(on_stack->second, code.size());
        continue;
      }
      const std::string callee_inst =
          inst + "_" + std::to_string(number) + "_" + std::to_string(n++);
      for (std::size_t a = 0; a < args.size() && a < callee.params.size(); ++a)
        link(value(callee_inst + "$P:" + callee.params[a]), value(inst + "$P:" + args[a]));
      expand(callee, callee_inst, stack);
      for (std::size_t r = 0; r < returns.size() && r < callee.returns.size(); ++r)
        link(value(inst + "$P:" + returns[r]), value(callee_inst + "$P:" + callee.returns[r]));
    }
  }

  const std::vector<PtxFunction>& functions_;
  const std::set<std::string>& address_taken_;
  const std::vector<PtxSharedVariable>& shared_;
  std::unordered_map<std::string, std::size_t> by_name_;
  std::unordered_map<std::string, int> ids_;
};

// The spaces each value comes from: a load's value from its space, any other instruction's from
// the values it reads (a worklist until nothing changes).
std::vector<unsigned> value_sources(Flattener& flat) {
  std::vector<unsigned> sources(flat.values(), 0u);
  for (const int p : flat.kernel_params) sources[p] |= kParamSpace;
  std::vector<std::vector<std::size_t>> users(flat.values());
  for (std::size_t i = 0; i < flat.code.size(); ++i)
    for (std::size_t o = 1; o < flat.code[i].registers.size(); ++o)
      for (const int id : flat.code[i].registers[o]) users[id].push_back(i);
  std::deque<std::size_t> work;
  std::vector<bool> queued(flat.code.size(), true);
  for (std::size_t i = 0; i < flat.code.size(); ++i) work.push_back(i);
  while (!work.empty()) {
    const std::size_t i = work.front();
    work.pop_front();
    queued[i] = false;
    const FlatInstruction& f = flat.code[i];
    if (f.label || f.registers.empty() || writes_no_register(f.parts[0])) continue;
    if (!f.operands.empty() && !f.operands[0].empty() && f.operands[0][0] == '[') continue;
    unsigned v = load_space(f.parts);
    if (v == 0)
      for (std::size_t o = 1; o < f.registers.size(); ++o)
        for (const int id : f.registers[o]) v |= sources[id];
    for (const int d : f.registers[0]) {
      if ((sources[d] | v) == sources[d]) continue;
      sources[d] |= v;
      for (const std::size_t u : users[d])
        if (!queued[u]) {
          queued[u] = true;
          work.push_back(u);
        }
    }
  }
  return sources;
}

// The parsed modules of a PTX text.
struct ParsedModule {
  std::string target;
  std::vector<PtxFunction> functions;
  std::vector<PtxSharedVariable> shared;
  std::set<std::string> address_taken;  // functions an indirect call may reach
};

KernelAnalysis analyse(const PtxFunction& kernel, const ParsedModule& m) {
  KernelAnalysis k;
  k.name = kernel.name;
  k.target = m.target;
  if (!kernel.complete) {
    k.problem = "its PTX is malformed (its body has no closing '}')";
    return k;
  }
  Flattener flat(m.functions, m.address_taken, m.shared);
  k.problem = flat.run(kernel);
  if (!k.problem.empty()) return k;
  k.functions.assign(flat.called.begin(), flat.called.end());
  for (const std::size_t v : flat.shared_used) k.shared.push_back(m.shared[v]);
  for (const auto& f : flat.code)
    if (!f.label) ++k.opcodes[f.opcode];

  // Loops: a label and a later branch back to it, plus the recursions.
  std::unordered_map<std::string, std::size_t> labels;
  for (std::size_t i = 0; i < flat.code.size(); ++i)
    if (flat.code[i].label) labels.emplace(flat.code[i].name, i);
  std::vector<std::pair<std::size_t, std::size_t>> loops = flat.extra_loops;
  for (std::size_t j = 0; j < flat.code.size(); ++j) {
    const auto it = flat.code[j].target.empty() ? labels.end() : labels.find(flat.code[j].target);
    if (it != labels.end() && it->second <= j) loops.emplace_back(it->second, j);
  }
  std::sort(loops.begin(), loops.end());
  loops.erase(std::unique(loops.begin(), loops.end()), loops.end());
  // Each instruction belongs to the innermost (shortest) loop around it.
  std::vector<int> owner(flat.code.size(), -1);
  std::vector<std::size_t> by_length(loops.size());
  for (std::size_t l = 0; l < loops.size(); ++l) by_length[l] = l;
  std::sort(by_length.begin(), by_length.end(), [&](std::size_t a, std::size_t b) {
    return loops[a].second - loops[a].first > loops[b].second - loops[b].first;
  });
  for (const std::size_t l : by_length)
    for (std::size_t i = loops[l].first; i <= loops[l].second && i < owner.size(); ++i)
      owner[i] = static_cast<int>(l);

  const std::vector<unsigned> sources = value_sources(flat);
  const auto operand_sources = [&](const FlatInstruction& f, std::size_t o) {
    unsigned v = 0;
    if (o < f.registers.size())
      for (const int id : f.registers[o]) v |= sources[id];
    return v;
  };
  std::vector<MultiplyRegion> regions(loops.size() + 1);
  for (std::size_t l = 0; l < loops.size(); ++l) regions[l].loop = true;
  for (std::size_t i = 0; i < flat.code.size(); ++i) {
    const FlatInstruction& f = flat.code[i];
    if (f.label) continue;
    const std::string& base = f.parts[0];
    const bool global_write =
        !has_part(f.parts, "shared") && !has_part(f.parts, "local") && !has_part(f.parts, "param");
    if ((base == "st" || base == "red" || base == "atom") && global_write && f.operands.size() >= 2)
      k.stored.push_back({operand_sources(f, f.operands.size() - 1), owner[i] >= 0});
    if (!is_multiply(f.parts) || f.operands.size() < 3) continue;
    std::vector<std::size_t> multiplicands = {1, 2};
    if (base != "fma" && base != "mad" && base != "mul")  // mma: every source but the last
      for (std::size_t o = 3; o + 1 < f.operands.size(); ++o) multiplicands.push_back(o);
    bool by_zero = false;
    unsigned v = 0;
    for (const std::size_t o : multiplicands) {
      by_zero = by_zero || is_zero_immediate(f.operands[o]);
      v |= operand_sources(f, o);
    }
    if (by_zero) continue;
    regions[owner[i] >= 0 ? owner[i] : loops.size()].sources.push_back(v);
  }
  for (auto& r : regions)
    if (r.multiplies() > 0) k.regions.push_back(std::move(r));
  return k;
}

std::vector<ParsedModule> parse_modules(const std::string& ptx) {
  std::vector<ParsedModule> modules;
  for (const auto& text : split_modules(strip_comments(ptx))) {
    ParsedModule m;
    m.target = module_target(text);
    m.functions = module_functions(text);
    m.shared = shared_variables(text);
    for (const auto& f : m.functions)
      for (const auto& st : f.code)
        if (!st.label && !is_call(st))
          for (const auto& g : m.functions)
            if (!g.is_kernel && mentions_symbol(st.text, g.name)) m.address_taken.insert(g.name);
    modules.push_back(std::move(m));
  }
  return modules;
}

// A function's body followed by those of the functions it calls, transitively (an indirect call
// may reach any function whose address is taken).
std::string body_with_callees(const PtxFunction& f, const ParsedModule& m) {
  std::string body = f.body;
  std::set<std::string> seen = {f.name};
  std::vector<const PtxFunction*> todo = {&f};
  while (!todo.empty()) {
    const PtxFunction* g = todo.back();
    todo.pop_back();
    for (const auto& s : g->code) {
      if (!is_call(s)) continue;
      const Instruction call = parse_instruction(s.text);
      const bool indirect =
          std::any_of(call.operands.begin(), call.operands.end(),
                      [](const std::string& op) { return !op.empty() && op[0] == '%'; });
      for (const auto& h : m.functions)
        if (!h.is_kernel && !seen.count(h.name) &&
            (mentions_symbol(s.text, h.name) || (indirect && m.address_taken.count(h.name)))) {
          seen.insert(h.name);
          body += "\n" + h.body;
          todo.push_back(&h);
        }
    }
  }
  return body;
}

}  // namespace

std::vector<PtxKernel> ptx_kernels(const std::string& ptx) {
  std::vector<PtxKernel> kernels;
  for (const auto& m : parse_modules(ptx))
    for (const auto& f : m.functions)
      if (f.is_kernel) kernels.push_back({f.name, m.target, body_with_callees(f, m)});
  return kernels;
}

std::vector<PtxKernel> kernels_named(const std::string& ptx, const std::string& name,
                                     std::string* problem) {
  std::vector<PtxKernel> found;
  std::string all;
  for (auto& k : ptx_kernels(ptx)) {
    if (!mentions_symbol(all, k.name)) all += (all.empty() ? "" : ", ") + k.name;
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
    while (i < line.size() && is_space(line[i])) ++i;
    if (i < line.size() && line[i] == '@') {  // predicate: @%p1 ld.shared...
      while (i < line.size() && !is_space(line[i])) ++i;
      while (i < line.size() && is_space(line[i])) ++i;
    }
    if (line.compare(i, prefix.size(), prefix) == 0) {
      const std::size_t after = i + prefix.size();
      // "ld.shared" must not match "ld.sharedX"; it may continue with '.' (ld.shared.f32) or space.
      if (after == line.size() || line[after] == '.' || is_space(line[after])) ++count;
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
  std::set<std::string> seen;
  for (const auto& k : counted) {
    const std::string why = verdict(k);
    if (!why.empty() && seen.insert(why).second) problem += (problem.empty() ? "" : "\n") + why;
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

// ---- What a kernel does with each memory space ----------------------------------------------

std::string describe_spaces(unsigned spaces) {
  std::vector<std::string> names;
  if (spaces & kSharedSpace) names.push_back("shared");
  if (spaces & kConstSpace) names.push_back("constant");
  if (spaces & kGlobalSpace) names.push_back("global");
  if (spaces & kLocalSpace) names.push_back("local");
  if (spaces & kTextureSpace) return names.empty() ? "a texture" : "a texture or memory";
  if (names.empty()) return "no memory";
  std::string text = names[0];
  for (std::size_t i = 1; i < names.size(); ++i)
    text += (i + 1 == names.size() ? " or " : ", ") + names[i];
  return text + " memory";
}

int MultiplyRegion::count(unsigned any, unsigned none) const {
  return static_cast<int>(std::count_if(sources.begin(), sources.end(), [&](unsigned s) {
    return (s & any) != 0 && (s & none) == 0;
  }));
}

int KernelAnalysis::count(const std::string& prefix) const {
  int n = 0;
  for (const auto& [opcode, times] : opcodes)
    if (opcode_matches(opcode, prefix)) n += times;
  return n;
}

bool KernelAnalysis::multiplies_memory() const {
  return std::any_of(regions.begin(), regions.end(),
                     [](const MultiplyRegion& r) { return r.count(kAnyMemory) > 0; });
}

std::vector<KernelAnalysis> analyse_kernels(const std::string& ptx) {
  std::vector<KernelAnalysis> analysed;
  for (const auto& m : parse_modules(ptx))
    for (const auto& f : m.functions)
      if (f.is_kernel) analysed.push_back(analyse(f, m));
  return analysed;
}

std::vector<const MultiplyRegion*> accumulation_regions(const KernelAnalysis& k) {
  std::vector<const MultiplyRegion*> found;
  int largest_loop = 0;
  for (const auto& r : k.regions)
    if (r.loop) {
      found.push_back(&r);
      largest_loop = std::max(largest_loop, r.multiplies());
    }
  for (const auto& r : k.regions)
    if (!r.loop && r.multiplies() >= largest_loop) found.push_back(&r);
  return found;
}

std::string accumulation_problem(const KernelAnalysis& k, const std::string& label, unsigned lesson,
                                 const std::string& what) {
  const std::string who = label + " (" + k.name + ")";
  const std::string space = describe_spaces(lesson);
  if (!k.problem.empty()) return who + ": " + k.problem;
  const auto regions = accumulation_regions(k);
  if (regions.empty())
    return who + " does not compute from " + space +
           ": its PTX has no floating-point multiply (mul, fma) of data; " + what +
           " must be read from " + space + " where the kernel accumulates";
  for (const MultiplyRegion* r : regions) {
    const int from_lesson = r->count(lesson);
    const int global_only = r->count(kGlobalSpace, lesson);
    if (from_lesson > 0 && from_lesson >= global_only) continue;
    return who + " does not compute from " + space + ": in its " +
           (r->loop ? "loop" : "code outside loops") + " of " + std::to_string(r->multiplies()) +
           " floating-point multiplies, " + std::to_string(from_lesson) + " take an operand from " +
           space + " and " + std::to_string(global_only) +
           " take theirs from global memory only; " + what + " must be read from " + space +
           " where the kernel accumulates";
  }
  return "";
}

std::string stored_values_problem(const KernelAnalysis& k, const std::string& label,
                                  unsigned lesson, const std::string& what) {
  const std::string who = label + " (" + k.name + ")";
  const std::string space = describe_spaces(lesson);
  if (!k.problem.empty()) return who + ": " + k.problem;
  int from_lesson = 0, global_only = 0;
  for (const auto& s : k.stored) {
    from_lesson += (s.sources & lesson) != 0;
    global_only += (s.sources & kGlobalSpace) != 0 && (s.sources & lesson) == 0;
  }
  if (from_lesson > 0 && from_lesson >= global_only) return "";
  return who + " does not store what it reads from " + space + ": of its " +
         std::to_string(k.stored.size()) + " store(s) to global memory, " +
         std::to_string(from_lesson) + " write a value from " + space + " and " +
         std::to_string(global_only) + " one from global memory only; " + what;
}

std::string shared_tile_use_problem(const KernelAnalysis& k, const std::string& label,
                                    const std::string& what) {
  if (!k.problem.empty()) return label + " (" + k.name + "): " + k.problem;
  const int stores = k.count("st.shared");
  const int loads = k.count("ld.shared");
  const int barriers = k.count("bar.sync") + k.count("barrier.sync");
  if (stores == 0 || loads == 0 || barriers == 0)
    return "no shared-memory tile in " + label + ": its PTX has " + std::to_string(stores) +
           " st.shared, " + std::to_string(loads) + " ld.shared and " + std::to_string(barriers) +
           " barrier instruction(s) (" + k.name + "); " + what +
           " must be stored to shared memory, synchronized, and read back from there";
  return accumulation_problem(k, label, kSharedSpace, what);
}

TechniqueRule ptx_rule(
    const std::string& kernel,
    std::function<std::string(const KernelAnalysis& k, const std::string& label)> verdict) {
  TechniqueRule rule;
  rule.kernel = kernel;
  rule.verdict = [verdict = std::move(verdict)](const KernelAnalysis& k, const std::string& label,
                                                const LaunchedKernel*) {
    return verdict(k, label);
  };
  return rule;
}

std::string global_traffic_problem(const ExecutedWork& w, double outputs, double max_loads,
                                   double max_sectors) {
  const std::string p =
      per_unit_problem(lanes_per_unit(ExecutedWork::of(w.all, "global_ld"), outputs), 0, max_loads,
                       "global loads", "output");
  if (!p.empty()) return p;
  return per_unit_problem(ExecutedWork::of(w.all, "global_ld_sectors") / outputs, 0, max_sectors,
                          "global-load sectors", "output");
}

std::string global_and_texture_problem(const ExecutedWork& w, double units, double max_loads,
                                       const std::string& unit) {
  const double loads = ExecutedWork::of(w.all, "global_ld") + ExecutedWork::of(w.all, "texture");
  return per_unit_problem(lanes_per_unit(loads, units), 0, max_loads,
                          "global loads and texture fetches", unit);
}

ExecutionSignature shared_tile_signature(double outputs, double max_loads, double max_sectors) {
  return [=](const ExecutedWork& w, std::string* summary) {
    *summary = executed_summary(w.all, outputs, "output");
    std::string p = global_traffic_problem(w, outputs, max_loads, max_sectors);
    if (!p.empty())
      return p + ": the inputs must come from global memory once per tile, not once per tap";
    p = per_unit_problem(lanes_per_unit(ExecutedWork::of(w.named, "shared_ld"), outputs), 0.2, 1e9,
                         "shared-memory loads", "output");
    return p.empty() ? p : p + ": the taps must read the tile";
  };
}

TechniqueRule shared_tile_rule(const std::string& kernel, const std::string& what) {
  return ptx_rule(kernel, [what](const KernelAnalysis& k, const std::string& label) {
    return shared_tile_use_problem(k, label, what);
  });
}

// ---- The verdict on the launched kernels -----------------------------------------------------

namespace {

void add_line(std::string* text, const std::string& line) {
  if (line.empty()) return;
  std::istringstream lines(*text);
  std::string l;
  while (std::getline(lines, l))
    if (l == line) return;
  *text += (text->empty() ? "" : "\n") + line;
}

}  // namespace

TechniqueVerdict judge_technique(const std::string& ptx, const TechniqueRule& rule,
                                 const LaunchTrace& trace) {
  TechniqueVerdict v;
  const auto kernels = analyse_kernels(ptx);
  std::string missing;
  kernels_named(ptx, rule.kernel, &missing);
  const auto named = [&](const KernelAnalysis& k) {
    return k.name.find(rule.kernel) != std::string::npos;
  };
  // The kernels of the rule's name, judged on their PTX alone.
  std::string named_problems;
  for (const auto& k : kernels)
    if (named(k)) add_line(&named_problems, rule.verdict(k, rule.kernel, nullptr));

  if (!trace.verified) {
    v.status = TechniqueVerdict::Status::fail;
    v.message = !missing.empty() ? missing : named_problems;
    if (!v.message.empty()) return v;
    v.message = rule.kernel + " passes in the PTX of your file, but the kernel your function " +
                "launches was not verified (" + trace.not_verified + ")";
    if (!trace.has_device) v.status = TechniqueVerdict::Status::unverified;
    return v;
  }

  // The kernels of the candidate's file that ran and do the work.
  const auto does_work = rule.does_work ? rule.does_work : [](const KernelAnalysis& k) {
    return k.multiplies_memory();
  };
  std::string launched_names, failures, passed;
  bool any = false, named_launched = false;
  for (const auto& launch : trace.kernels) {
    bool from_file = false;
    for (const auto& k : kernels) {
      if (k.name != launch.name) continue;
      from_file = true;
      if (!named(k) && !does_work(k)) continue;
      any = true;
      named_launched = named_launched || named(k);
      const std::string why =
          rule.verdict(k, named(k) ? rule.kernel : "the launched kernel", &launch);
      if (why.empty()) {
        if (!mentions_symbol(passed, k.name)) passed += (passed.empty() ? "" : ", ") + k.name;
      } else {
        add_line(&failures, why);
      }
    }
    if (from_file && !mentions_symbol(launched_names, launch.name))
      launched_names += (launched_names.empty() ? "" : ", ") + launch.name;
  }
  const bool named_pass_unlaunched = missing.empty() && named_problems.empty() && !named_launched;
  const std::string launched = "your function launched " +
                               (launched_names.empty() ? "no kernel of your file" : launched_names);
  const std::string never = rule.kernel + " passes, but it is never launched: " + launched;
  if (!any) {
    v.status = TechniqueVerdict::Status::fail;
    v.message = named_pass_unlaunched
                    ? never
                    : launched + ", none of which is " + rule.kernel + " or does its work";
    add_line(&v.message, missing);
    add_line(&v.message, named_problems);
    return v;
  }
  if (!failures.empty()) {
    v.status = TechniqueVerdict::Status::fail;
    v.message = named_pass_unlaunched ? never + ":\n" + failures : failures;
    return v;
  }
  v.message = "launched: " + passed;
  if (rule.executed) {
    // The execution signature: what ran, read from the hardware, never the PTX alone.
    if (!trace.counted) {
      v.status = TechniqueVerdict::Status::unverified;
      v.message = rule.kernel +
                  " passes in the PTX of your file, but what it executed could not be counted, "
                  "so the technique is not verified: " +
                  trace.not_counted;
      return v;
    }
    ExecutedWork work;
    if (trace.device_mode) {
      // The GPU's own totals: every kernel of the calls, the lower bounds' kernels too.
      work.all = trace.device;
      work.named = trace.device;
    } else {
      for (const auto& launch : trace.kernels)
        for (const auto& k : kernels) {
          if (k.name != launch.name) continue;
          for (const auto& [key, value] : launch.counters) {
            work.all[key] += value;
            if (named(k)) work.named[key] += value;
          }
          break;
        }
    }
    std::string summary;
    if (const std::string why = rule.executed(work, &summary); !why.empty()) {
      if (trace.device_mode) {
        // A quantity the GPU's sampling cannot count on this chip reads as none: not verified.
        if (const std::string uncounted = not_sampled(trace.device); !uncounted.empty()) {
          v.status = TechniqueVerdict::Status::unverified;
          v.message =
              "what your function's calls executed, as the GPU counted it for the grader (" + why +
              "), is not verified: this GPU's sampling counts no " + uncounted;
          return v;
        }
        v.status = TechniqueVerdict::Status::fail;
        v.message =
            "what your function's calls executed, as the GPU counted it for the grader "
            "(all their kernels together), is not the lesson's: " +
            why;
        if (!summary.empty()) v.message += " (" + summary + ")";
        return v;
      }
      v.status = TechniqueVerdict::Status::fail;
      v.message = (named_launched ? rule.kernel : std::string("the launched kernel")) +
                  " ran, but what it executed is not the lesson's: " + why;
      if (!summary.empty()) v.message += " (" + summary + ")";
      return v;
    }
    if (!summary.empty())
      v.message += trace.device_mode
                       ? "; the GPU counted " +
                             (trace.device_note.empty() ? "" : "(" + trace.device_note + ") ") +
                             summary
                       : "; executed " + summary;
  }
  return v;
}

std::string not_sampled(const std::map<std::string, double>& executed) {
  std::string uncounted;
  for (const char* key : {"global_ld", "shared_ld", "constant_ld", "texture", "shfl", "shared_st",
                          "shared_st_bytes", "shared_ld_bytes"})
    if (executed.count(key) == 0) uncounted += std::string(uncounted.empty() ? "" : ", ") + key;
  return uncounted;
}

std::string per_unit_problem(double value, double low, double high, const std::string& what,
                             const std::string& unit) {
  if (value >= low && value <= high) return "";
  char line[300];
  if (value < low)
    std::snprintf(line, sizeof line, "%.2f %s per %s, at least %.2f expected", value, what.c_str(),
                  unit.c_str(), low);
  else
    std::snprintf(line, sizeof line, "%.2f %s per %s, at most %.2f expected", value, what.c_str(),
                  unit.c_str(), high);
  return line;
}

std::string executed_summary(const std::map<std::string, double>& counters, double units,
                             const std::string& unit) {
  // Warp-level counts as if every lane of a warp did one each (x32), per unit of work.
  static const std::pair<const char*, const char*> shown[] = {
      {"global_ld", "global loads"},
      {"global_ld_sectors", "global-load sectors"},
      {"shared_ld", "shared loads"},
      {"shared_st", "shared stores"},
      {"constant_ld", "indexed-constant requests"},
      {"texture", "texture fetches"},
      {"shfl", "shuffles"},
      {"global_atom", "global atomics"},
      {"global_red", "global reductions"},
      {"local_ld", "local (spill) loads"}};
  std::string out = "per " + unit + ":";
  bool any = false;
  for (const auto& [key, label] : shown) {
    const auto it = counters.find(key);
    if (it == counters.end() || units <= 0) continue;
    const bool warp_level =
        std::string(key).find("sectors") == std::string::npos && std::string(key) != "constant_ld";
    char item[96];
    std::snprintf(item, sizeof item, "%s %.2f %s", any ? "," : "",
                  it->second * (warp_level ? 32.0 : 1.0) / units, label);
    out += item;
    any = true;
  }
  return any ? out : "";
}

void require_technique(const std::vector<TechniqueVerdict>& verdicts) {
  std::string failed, unverified, passed;
  for (const auto& v : verdicts) {
    if (v.status == TechniqueVerdict::Status::fail) add_line(&failed, v.message);
    if (v.status == TechniqueVerdict::Status::unverified) add_line(&unverified, v.message);
    if (v.status == TechniqueVerdict::Status::pass) add_line(&passed, v.message);
  }
  if (!failed.empty()) FAIL(failed);
  if (!unverified.empty()) {
    skip_check(unverified);
    return;
  }
  if (!passed.empty()) note(passed);
}

}  // namespace cudalab::grade
