// The audit of a candidate's compiled object, made by the grade command before a lab is graded
// (docs/grading.md, "What the grader guarantees"). It reads what the compiler made, not the
// source, so that no spelling of the source gets around it:
//   a. defined symbols: only the lab's namespace labNN::candidate, and what the compiler makes on
//      its own (library template instantiations in COMDAT groups, nvcc's stubs): a file cannot
//      replace a function of the CUDA runtime, the C library or the grader;
//   b. imported symbols: no dynamic loading, no file access, no process, no raw system call, and no
//      code but its own, the C and C++ libraries', the CUDA toolkit's and common/include's (not the
//      reference, another lab, the grader's support code or the grading and test frameworks);
//   c. host machine code: no system call instruction (inline asm cannot get around b);
//   d. sections: no constructor with a priority, no .preinit_array or .init code (they would run
//      before the grader takes its record channel);
//   e. includes (the compiler's dependency list): only the lab's folder, common/include, the
//      candidate's own source, the CUDA toolkit and the system folders.
// The parsers of the tools' output and the rules are pure functions (grader/tests/test_audit.cpp);
// audit_candidate() runs the tools.
#pragma once

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "record.h"

namespace cudalab::grade {

// A tool's output the audit cannot read (empty, truncated, not what was asked for).
class AuditError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One line of `readelf -sW`.
struct ElfSymbol {
  std::string name;
  std::string type;     // FUNC, OBJECT, NOTYPE, IFUNC, TLS, ...
  std::string bind;     // LOCAL, GLOBAL, WEAK, UNIQUE
  std::string section;  // UND, ABS, COM or the section's index
  bool undefined() const { return section == "UND"; }
};

// One line of `readelf -SW`.
struct ElfSection {
  int index = 0;
  std::string name;
  std::string flags;  // "AXG", ...
};

std::vector<ElfSymbol> parse_readelf_symbols(const std::string& text);
std::vector<ElfSection> parse_readelf_sections(const std::string& text);

// The files of `ninja -t deps <object>`; throws AuditError unless the list is there, whole and up
// to date.
std::vector<std::string> parse_ninja_deps(const std::string& text);

// Where a (mangled) symbol lives: a C name, a C++ name at global scope, or a C++ name nested in a
// namespace or class. `outer` and `inner` are the first two scopes ("lab01", "candidate"; "std"
// for std::), or for a global C++ name the identifier ("cudaFuncGetAttributes") or the operator's
// code ("nw" for operator new). Local entities and device stubs are placed where their function is.
struct SymbolScope {
  enum class Kind { c, global, nested } kind = Kind::c;
  std::string outer, inner;
};
SymbolScope symbol_scope(const std::string& mangled);

// Rules a and b: one finding ("banned: ...", one line) per symbol that breaks them. `lab`: "01".
std::vector<std::string> symbol_findings(const std::string& lab,
                                         const std::vector<ElfSymbol>& symbols,
                                         const std::vector<ElfSection>& sections);
// Rule c, on the text of `objdump -d`; throws AuditError when it is not a disassembly.
std::vector<std::string> instruction_findings(const std::string& objdump_text);
// Rule d.
std::vector<std::string> section_findings(const std::vector<ElfSection>& sections);
// Rule e. `allowed_prefixes`: folders with a trailing '/', or prefixes such as "/usr/local/cuda";
// `allowed_files`: the candidate's source. Paths are compared after lexical normalization;
// `source_dir` (the repository) shortens the names shown.
std::vector<std::string> include_findings(const std::vector<std::string>& deps,
                                          const std::vector<std::string>& allowed_prefixes,
                                          const std::vector<std::string>& allowed_files,
                                          const std::string& source_dir);

// What the audit of one candidate needs.
struct AuditSubject {
  std::string lab;                        // "01"
  std::vector<std::string> objects;       // the candidate's compiled object(s)
  std::string source;                     // the candidate's source file
  std::vector<std::string> include_dirs;  // the lab's folder and common/include
};

struct AuditTools {
  std::string readelf = "readelf", objdump = "objdump";
  std::string ninja;      // "" when the build was not made by Ninja: rule e is skipped
  std::string build_dir;  // where the objects' paths are relative to, for ninja -t deps
  std::string source_dir;
  std::vector<std::string> system_include_prefixes;  // the toolkit's and the compilers' folders
};

struct AuditResult {
  // "" when the candidate passes; else one line for every check of the lab: "banned: ..." (a
  // rule is broken) or "not graded: ..." (the audit could not be made: it fails closed).
  std::string verdict;
  std::vector<std::string> notes;  // rules not applied, and why
};

AuditResult audit_candidate(const AuditSubject& subject, const AuditTools& tools);

// The sanitizer gate's view of the records a grader sent while it ran under compute-sanitizer:
// each expected check exactly once, passed or partial; "skipped" only for a check whose plain run
// was skipped too (a candidate that skips its checks only under the tool must not pass the gate).
// "" when they are complete, else what is wrong ("check 'x' never finished").
std::string sanitizer_records_problem(const std::vector<std::string>& expected,
                                      const std::vector<CheckRecord>& records,
                                      const std::set<std::string>& skipped_in_plain_run);

}  // namespace cudalab::grade
