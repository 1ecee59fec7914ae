#include "audit.h"

#include <cxxabi.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <regex>
#include <sstream>

#include "process.h"

namespace cudalab::grade {

namespace {

namespace fs = std::filesystem;

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream in(line);
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f');
}

// "  1c:<tab>..." (objdump's instruction) or "  24: ..." (readelf's symbol): spaces, a number in
// `digit`s, a colon, then `after`.
bool numbered_line(const std::string& line, bool (*digit)(char), char after) {
  std::size_t i = line.find_first_not_of(' ');
  if (i == std::string::npos) return false;
  const std::size_t start = i;
  while (i < line.size() && digit(line[i])) ++i;
  return i > start && i + 1 < line.size() && line[i] == ':' && line[i + 1] == after;
}

// The name people read: demangled, and short enough for one line of a table.
std::string shown(const std::string& mangled) {
  std::string name = mangled;
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> demangled(
      abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), std::free);
  if (status == 0 && demangled) name = demangled.get();
  if (name.size() > 120) name = name.substr(0, 117) + "...";
  return "`" + name + "`";
}

// ---- A small part of the Itanium C++ ABI's mangling: enough to find a name's first two scopes.

struct Demangler {
  const std::string& s;
  std::size_t p = 0;

  bool at(char c) const { return p < s.size() && s[p] == c; }

  // <source-name> ::= <length> <identifier>; "" when there is none.
  std::string source_name() {
    std::size_t q = p, length = 0;
    while (q < s.size() && is_digit(s[q]) && length < 100000)
      length = length * 10 + static_cast<std::size_t>(s[q++] - '0');
    if (q == p || length == 0 || q + length > s.size()) return "";
    p = q + length;
    return s.substr(q, length);
  }

  void skip_abi_tags() {
    while (at('B')) {
      ++p;
      if (source_name().empty()) return;
    }
  }

  // <call-offset> ::= h <number> _ | v <number> _ <number> _   (<number> ::= [n] <digits>)
  bool skip_number_and_underscore() {
    if (at('n')) ++p;
    const std::size_t q = p;
    while (p < s.size() && is_digit(s[p])) ++p;
    if (p == q || !at('_')) return false;
    ++p;
    return true;
  }
  bool skip_call_offset() {
    if (!at('h') && !at('v')) return false;
    const bool virtual_offset = at('v');
    ++p;
    return skip_number_and_underscore() && (!virtual_offset || skip_number_and_underscore());
  }

  // The scope of the <encoding> (or <type>, for typeinfo and vtables) at p.
  SymbolScope encoding() {
    SymbolScope scope;
    scope.kind = SymbolScope::Kind::global;
    if (p >= s.size()) return scope;
    const char c = s[p];
    if (c == 'Z' || c == 'L') {  // a local entity sits in its function; L: internal linkage
      ++p;
      return encoding();
    }
    if (c == 'N') {
      ++p;
      return nested();
    }
    if (c == 'S') return std_name();
    if (is_digit(c)) {
      scope.outer = source_name();
      // nvcc's host stub of a kernel is __device_stub_ followed by the kernel's mangled name
      // (the "_Z" written as "_Z"): it lives where the kernel does.
      const std::string stub = "__device_stub_";
      if (starts_with(scope.outer, stub + "_Z") && scope.outer.size() > stub.size() + 2)
        return symbol_scope(scope.outer.substr(stub.size()));
      return scope;
    }
    if (std::islower(static_cast<unsigned char>(c)) && p + 1 < s.size())
      scope.outer = s.substr(p, 2);  // an operator: nw, dl, pl, cv, ...
    return scope;
  }

  // St <name>, or an abbreviation of a std:: class (Sa allocator, Ss string, ...).
  SymbolScope std_name() {
    SymbolScope scope;
    scope.kind = SymbolScope::Kind::nested;
    if (p + 1 >= s.size()) return scope;
    const char c = s[p + 1];
    static const std::map<char, std::string> abbreviations{
        {'a', "allocator"}, {'b', "basic_string"}, {'s', "string"},
        {'i', "istream"},   {'o', "ostream"},      {'d', "iostream"}};
    if (c == 't') {
      p += 2;
      scope.outer = "std";
      scope.inner = source_name();
    } else if (abbreviations.count(c)) {
      p += 2;
      scope.outer = "std";
      scope.inner = abbreviations.at(c);
    }
    return scope;  // S_, S0_, ...: a substitution cannot start a name; left unknown
  }

  // N [<CV-qualifiers>] [<ref-qualifier>] <prefix> <unqualified-name> E
  SymbolScope nested() {
    while (p < s.size() && std::string("rVKROH").find(s[p]) != std::string::npos) ++p;
    if (at('S')) return std_name();
    SymbolScope scope;
    scope.kind = SymbolScope::Kind::nested;
    scope.outer = source_name();
    skip_abi_tags();
    if (!scope.outer.empty() && p < s.size() && is_digit(s[p])) scope.inner = source_name();
    return scope;
  }
};

// ---- What the compiler makes on its own.

bool reserved(const std::string& identifier) {
  return starts_with(identifier, "__");
}

// Scopes of the C++ library and the CUDA toolkit's headers, whose inline functions and templates
// a file instantiates (weakly, in COMDAT groups) as the grader's own objects do.
bool library_scope(const std::string& outer) {
  static const std::set<std::string> scopes{
      "std", "cuda", "thrust", "cub", "nvtx3", "dim3", "nvcuda", "cooperative_groups", "__gnu_cxx"};
  return scopes.count(outer) > 0 || reserved(outer);  // __half, __nv_bfloat16, __cxxabiv1, ...
}

// A weak definition in a COMDAT group that the compiler makes from the headers a lab file may
// include: the C++ library's and the toolkit's templates and inline functions (e.g. std::to_string,
// dim3's constructor), the inline functions of the lab's interface header, nvtx3's weak functions,
// the personality routine's reference.
bool compiler_made(const SymbolScope& scope, const std::string& name, const std::string& lab) {
  switch (scope.kind) {
    case SymbolScope::Kind::c:
      return name == "DW.ref.__gxx_personality_v0" || starts_with(name, "nvtx") ||
             starts_with(name, "InitializeInjectionNvtx") || starts_with(name, "hostRef");
    case SymbolScope::Kind::global: {
      // Placement new and delete (non-replaceable, inline in <new>).
      static const std::set<std::string> placement{"_ZnwmPv",  "_ZnamPv", "_ZdlPvS_",
                                                   "_ZdaPvS_", "_ZnwjPv", "_ZnajPv"};
      return placement.count(name) > 0 || reserved(scope.outer) || starts_with(scope.outer, "nvtx");
    }
    case SymbolScope::Kind::nested:
      return library_scope(scope.outer) ||
             (scope.outer == "lab" + lab && scope.inner != "reference");
  }
  return false;
}

// ---- Imports: the families a lab file has no use for.

struct Family {
  const char* name;
  const char* why;
};

const Family kDynamicLoading{
    "dynamic loading",
    "a lab file loads no library and looks up no symbol: call your own code, the CUDA runtime and "
    "the C and C++ libraries"};
const Family kFileAccess{"file access",
                         "a lab file does no file I/O and starts no process: it works on the "
                         "arguments it is given"};
const Family kMemory{"memory mapping",
                     "a lab file maps no memory and changes no protection: allocate with "
                     "cudaMalloc or new"};
const Family kProcesses{"processes",
                        "a lab file does no file I/O and starts (or signals) no process"};
const Family kSystemCalls{"raw system calls", "a lab file makes no system call of its own"};
const Family kNetwork{"network", "a lab file opens no connection"};

// The family of an imported C function a lab file has no use for; nullptr for the others. Left
// out on purpose: getenv (the record channel's variable is scrubbed before any code of the file
// runs), write (a record without the run's key does not count) and _exit (a check that does not
// end with its record fails): the other defences answer those, and a file may use them.
const Family* c_family(const std::string& symbol) {
  // A versioned reference (".symver": "dlopen@GLIBC_2.2.5") is the function it names.
  const std::string name = symbol.substr(0, symbol.find('@'));
  static const std::map<std::string, const Family*> names = [] {
    const std::vector<std::pair<const Family*, const char*>> lists{
        {&kDynamicLoading,
         "dlopen dlmopen dlsym dlvsym dladdr dladdr1 dlinfo dlclose dlerror dl_iterate_phdr "
         "getauxval _r_debug _DYNAMIC __ehdr_start __executable_start cudaGetDriverEntryPoint "
         "cudaGetDriverEntryPointByVersion cuGetProcAddress cuGetProcAddress_v2 "
         "cudaGetExportTable cuGetExportTable"},
        {&kFileAccess,
         "open open64 __open __open64 __open_2 __open64_2 openat openat64 __openat_2 "
         "__openat64_2 creat creat64 fopen fopen64 freopen freopen64 readlink readlinkat opendir "
         "fdopendir scandir scandir64 scandirat name_to_handle_at open_by_handle_at tmpfile "
         "tmpfile64 mkstemp mkstemp64 mkostemp mkostemp64 mkstemps mkostemps mkdtemp unlink "
         "unlinkat rename renameat renameat2 remove truncate truncate64 link linkat symlink "
         "symlinkat shm_open cudaLibraryLoadFromFile cuLibraryLoadFromFile cuModuleLoad "
         "cuLinkAddFile cuLinkAddFile_v2"},
        {&kMemory, "mmap mmap64 __mmap mprotect __mprotect pkey_mprotect memfd_create mremap"},
        {&kProcesses,
         "fork _Fork __fork vfork __vfork clone clone3 __clone __clone2 execve execv execvp "
         "execvpe execl execle execlp fexecve execveat system popen posix_spawn posix_spawnp "
         "daemon ptrace process_vm_readv process_vm_writev prctl kill killpg tgkill tkill "
         "sigqueue pidfd_open pidfd_send_signal pidfd_getfd setsid setpgid setpgrp setns "
         "unshare"},
        {&kSystemCalls, "syscall ioctl __ioctl"},
        {&kNetwork, "socket socketpair connect"},
    };
    std::map<std::string, const Family*> m;
    for (const auto& [family, list] : lists)
      for (const std::string& n : words_of(list)) m[n] = family;
    return m;
  }();
  if (const auto it = names.find(name); it != names.end()) return it->second;
  if (starts_with(name, "_dl_") || starts_with(name, "__libc_dl")) return &kDynamicLoading;
  return nullptr;
}

// C++ names of the library's file streams and std::filesystem.
bool cxx_file_access(const std::string& name) {
  for (const char* part : {"basic_ifstream", "basic_ofstream", "basic_fstream", "basic_filebuf",
                           "12__basic_file", "10filesystem"})
    if (name.find(part) != std::string::npos) return true;
  return false;
}

bool lab_namespace(const std::string& scope) {
  return scope.size() == 5 && starts_with(scope, "lab") && is_digit(scope[3]) && is_digit(scope[4]);
}

// Whose code an imported C++ name is, when a lab file may not call it; nullptr when it may.
const char* foreign_code(const SymbolScope& scope, const std::string& lab) {
  if (scope.kind != SymbolScope::Kind::nested) return nullptr;  // operators, C++ overloads
  const std::string own = "lab" + lab;
  if (scope.outer == own && scope.inner == "candidate") return nullptr;
  if (scope.outer == own && scope.inner == "reference") return "the reference solution";
  if (scope.outer == own) return "the grader's code for this lab";
  if (lab_namespace(scope.outer)) return "another lab's code";
  if (scope.outer == "cudalab" && scope.inner == "grade") return "the grading framework";
  if (scope.outer == "cudalab") return nullptr;  // common/include
  if (scope.outer == "Catch") return "the test framework";
  if (library_scope(scope.outer)) return nullptr;
  return "code that is neither yours nor the C and C++ libraries', the CUDA toolkit's or "
         "common/include's";
}

std::string more(std::size_t n) {
  return n == 0 ? "" : " (and " + std::to_string(n) + " more finding" + (n > 1 ? "s" : "") + ")";
}

// Runs a tool with its standard output read apart from its messages (standard error).
std::string tool_output(const std::vector<std::string>& argv, const std::string& what) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw AuditError("cannot create a pipe for " + what);
  const std::vector<std::string>& command = argv;
  ProcessOptions options;
  options.inherit = {fds[1]};  // closed here by run_process
  options.stdout_fd = fds[1];
  options.capture_fd = fds[0];
  ProcessResult p;
  try {
    p = run_process(command, {"LC_ALL=C"}, 120, options);
  } catch (const std::exception& e) {
    close(fds[0]);
    throw AuditError(what + ": " + e.what());
  }
  close(fds[0]);
  if (p.timed_out || p.signal != 0 || p.exit_code != 0) {
    const std::string says = last_lines(p.output, 2);
    throw AuditError(what + " failed (" + describe_ending(p, 120) + ")" +
                     (says.empty() ? "" : ": " + says));
  }
  return p.captured;
}

std::string canonical(const std::string& path) {
  std::error_code ec;
  const fs::path c = fs::weakly_canonical(fs::path(path), ec);
  return ec ? fs::path(path).lexically_normal().string() : c.string();
}

std::string as_folder(std::string path) {
  if (!path.empty() && path.back() != '/') path += '/';
  return path;
}

}  // namespace

// ---- Parsers.

std::vector<ElfSymbol> parse_readelf_symbols(const std::string& text) {
  static const std::regex header(R"(^Symbol table '([^']*)' contains (\d+) entr(y|ies):\s*$)");
  std::vector<ElfSymbol> symbols;
  long expected = -1, seen = 0;
  bool any_table = false;
  auto close_table = [&] {
    if (expected >= 0 && seen != expected)
      throw AuditError("readelf's symbol table is cut short: " + std::to_string(seen) + " of " +
                       std::to_string(expected) + " entries");
  };
  for (const std::string& line : lines_of(text)) {
    std::smatch m;
    if (std::regex_match(line, m, header)) {
      close_table();
      any_table = true;
      expected = std::stol(m[2].str());
      seen = 0;
      continue;
    }
    if (!numbered_line(line, is_digit, ' ')) continue;
    if (!any_table) throw AuditError("readelf printed a symbol before any symbol table");
    // Num: Value Size Type Bind Vis [<other>] Ndx Name
    auto w = words_of(line);
    std::size_t i = 6;
    while (i < w.size() && w[i].front() == '[') {  // "[<localentry>: 8]" on some targets
      while (i < w.size() && w[i].back() != ']') ++i;
      ++i;
    }
    if (w.size() < 7 || i >= w.size())
      throw AuditError("readelf printed a truncated symbol line: '" + line + "'");
    ElfSymbol s;
    s.type = w[3];
    s.bind = w[4];
    s.section = w[i];
    for (std::size_t k = i + 1; k < w.size(); ++k) s.name += (k > i + 1 ? " " : "") + w[k];
    symbols.push_back(s);
    ++seen;
  }
  if (!any_table) throw AuditError("readelf printed no symbol table");
  close_table();
  return symbols;
}

std::vector<ElfSection> parse_readelf_sections(const std::string& text) {
  static const std::regex count(R"(^There (are|is) (\d+) section headers?,)");
  // [Nr] Name Type Address Off Size ES Flg Lk Inf Al: the name may be empty, and so may the flags.
  static const std::regex row(
      R"(^\s*\[\s*(\d+)\]\s(.*?)\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([A-Za-z]*)\s+(\d+)\s+(\d+)\s+(\d+)\s*$)");
  static const std::regex row_start(R"(^\s*\[\s*\d+\])");
  std::vector<ElfSection> sections;
  long expected = -1;
  for (const std::string& line : lines_of(text)) {
    std::smatch m;
    if (std::regex_search(line, m, count)) {
      expected = std::stol(m[2].str());
      continue;
    }
    if (!std::regex_search(line, row_start)) continue;
    if (!std::regex_match(line, m, row))
      throw AuditError("readelf printed a section line it cannot be read from: '" + line + "'");
    ElfSection s;
    s.index = std::stoi(m[1].str());
    s.name = m[2].str();
    const auto b = s.name.find_first_not_of(' ');
    s.name = b == std::string::npos ? "" : s.name.substr(b);
    s.flags = m[8].str();
    sections.push_back(s);
  }
  if (expected < 0) throw AuditError("readelf printed no section headers");
  if (static_cast<long>(sections.size()) != expected)
    throw AuditError("readelf's section headers are cut short: " + std::to_string(sections.size()) +
                     " of " + std::to_string(expected));
  return sections;
}

std::vector<std::string> parse_ninja_deps(const std::string& text) {
  static const std::regex header(R"(^(.*): #deps (\d+), deps mtime (\d+) \((VALID|STALE)\)\s*$)");
  const auto lines = lines_of(text);
  std::size_t i = 0;
  while (i < lines.size() && lines[i].empty()) ++i;
  if (i == lines.size()) throw AuditError("ninja printed no dependency list");
  std::smatch m;
  if (!std::regex_match(lines[i], m, header)) {
    if (lines[i].find("deps not found") != std::string::npos)
      throw AuditError("ninja has no dependency list for it (was it built by this build?)");
    throw AuditError("ninja printed no dependency list: '" + lines[i] + "'");
  }
  if (m[4] == "STALE")
    throw AuditError("its dependency list is older than the object (rebuild the lab)");
  const long expected = std::stol(m[2].str());
  std::vector<std::string> deps;
  for (++i; i < lines.size() && !lines[i].empty(); ++i) {
    const auto b = lines[i].find_first_not_of(" \t");
    if (b == 0 || b == std::string::npos)  // entries are indented
      throw AuditError("ninja printed a line that is not a dependency: '" + lines[i] + "'");
    deps.push_back(lines[i].substr(b));
  }
  if (static_cast<long>(deps.size()) != expected)
    throw AuditError("ninja's dependency list is cut short: " + std::to_string(deps.size()) +
                     " of " + std::to_string(expected) + " files");
  return deps;
}

SymbolScope symbol_scope(const std::string& mangled) {
  SymbolScope scope;
  if (!starts_with(mangled, "_Z")) return scope;  // a C name
  Demangler d{mangled, 2};
  // Special names: typeinfo, vtables, guards, thunks, TLS wrappers name what they belong to.
  if (d.at('T') && d.p + 1 < mangled.size()) {
    const char c = mangled[d.p + 1];
    if (std::string("VTISHWC").find(c) != std::string::npos) {
      d.p += 2;
    } else if (c == 'h' || c == 'v') {
      ++d.p;
      if (!d.skip_call_offset()) return {SymbolScope::Kind::global, "", ""};
    } else if (c == 'c') {
      d.p += 2;
      if (!d.skip_call_offset() || !d.skip_call_offset())
        return {SymbolScope::Kind::global, "", ""};
    }
  } else if (d.at('G') && d.p + 1 < mangled.size() &&
             (mangled[d.p + 1] == 'V' || mangled[d.p + 1] == 'R')) {
    d.p += 2;
  }
  return d.encoding();
}

// ---- Rules.

std::vector<std::string> symbol_findings(const std::string& lab,
                                         const std::vector<ElfSymbol>& symbols,
                                         const std::vector<ElfSection>& sections) {
  std::map<std::string, std::string> flags;  // section index -> flags
  for (const auto& s : sections) flags[std::to_string(s.index)] = s.flags;
  const std::string home = "lab" + lab + "::candidate";
  std::vector<std::string> findings;
  for (const auto& sym : symbols) {
    if (sym.name.empty()) continue;
    if (sym.type == "IFUNC") {  // its resolver runs while the program is loaded
      findings.push_back("banned: the file defines " + shown(sym.name) +
                         " as an indirect function (ifunc), whose resolver runs before the "
                         "grader starts; a lab file has none");
      continue;
    }
    if (sym.bind == "LOCAL") continue;
    const SymbolScope scope = symbol_scope(sym.name);
    if (sym.undefined()) {
      const Family* family = scope.kind == SymbolScope::Kind::c ? c_family(sym.name)
                             : cxx_file_access(sym.name)        ? &kFileAccess
                                                                : nullptr;
      if (family != nullptr) {
        findings.push_back("banned: the file uses " + shown(sym.name) + " (" + family->name +
                           "): " + family->why);
      } else if (const char* whose = foreign_code(scope, lab)) {
        findings.push_back("banned: the file uses " + shown(sym.name) + " (" + whose +
                           "): a lab file calls only its own code, the C and C++ libraries, the "
                           "CUDA toolkit and common/include");
      }
      continue;
    }
    if (scope.kind == SymbolScope::Kind::nested && scope.outer == "lab" + lab &&
        scope.inner == "candidate")
      continue;
    const bool weak = sym.bind == "WEAK" || sym.bind == "UNIQUE";
    const auto f = flags.find(sym.section);
    const bool comdat = f != flags.end() && f->second.find('G') != std::string::npos;
    if (weak && comdat && compiler_made(scope, sym.name, lab)) continue;
    // nvcc's wrapper of the device code with -rdc.
    if (scope.kind == SymbolScope::Kind::c && starts_with(sym.name, "__fatbinwrap_")) continue;
    findings.push_back("banned: the file defines " + shown(sym.name) + " outside namespace " +
                       home +
                       " (it would replace the CUDA runtime's, the C library's or the grader's "
                       "own); put all of your code inside namespace lab" +
                       lab + "::CUDALAB_IMPL");
  }
  return findings;
}

std::vector<std::string> instruction_findings(const std::string& objdump_text) {
  // "<file>:     file format elf64-x86-64" heads a disassembly (an error says "file format not
  // recognized" after a single space).
  if (objdump_text.find(":     file format ") == std::string::npos)
    throw AuditError("objdump printed no disassembly (no 'file format' line)");
  std::vector<std::string> findings;
  std::string in;  // the function (or section) being read
  for (const std::string& line : lines_of(objdump_text)) {
    if (starts_with(line, "Disassembly of section ")) {
      in = line.substr(23);
      if (!in.empty() && in.back() == ':') in.pop_back();
      continue;
    }
    // "0000000000000010 <name>:" starts a function.
    const auto open = line.find(" <");
    if (open != std::string::npos && open > 0 && line.size() > open + 4 &&
        line.compare(line.size() - 2, 2, ">:") == 0 &&
        std::all_of(line.begin(), line.begin() + static_cast<long>(open), is_hex)) {
      in = line.substr(open + 2, line.size() - open - 4);
      continue;
    }
    if (!numbered_line(line, is_hex, '\t')) continue;
    // address:<tab>bytes<tab>instruction, or address:<tab>instruction without the bytes, where
    // some targets put a tab between the mnemonic and its operands ("svc<tab>#0x0"); a line of
    // bytes alone continues the instruction above. What follows '<' is objdump's note (a
    // symbol), not the instruction.
    std::vector<std::string> fields;
    std::istringstream in_line(line.substr(line.find(":\t") + 2));
    for (std::string field; std::getline(in_line, field, '\t');) fields.push_back(field);
    if (!fields.empty() && std::all_of(fields.front().begin(), fields.front().end(),
                                       [](char c) { return c == ' ' || is_hex(c); }))
      fields.erase(fields.begin());
    std::string text;
    for (const auto& field : fields) text += field + " ";
    text = text.substr(0, text.find('<'));
    std::replace(text.begin(), text.end(), ',', ' ');
    const auto w = words_of(text);
    std::string found;
    for (std::size_t k = 0; k < w.size() && found.empty(); ++k) {
      if (w[k] == "syscall" || w[k] == "sysenter" || w[k] == "svc" || w[k] == "scv")
        found = w[k];
      else if (w[k] == "int" && k + 1 < w.size() && w[k + 1] == "$0x80")
        found = "int $0x80";
    }
    if (!found.empty())
      findings.push_back("banned: the file's host code has a `" + found + "` instruction (in " +
                         shown(in) +
                         "): a lab file makes no system call of its own, in inline assembly "
                         "or otherwise");
  }
  return findings;
}

std::vector<std::string> section_findings(const std::vector<ElfSection>& sections) {
  std::vector<std::string> findings;
  for (const auto& s : sections) {
    const std::string& n = s.name;
    // The linker runs .preinit_array, .init and the prioritized constructors (.init_array.N,
    // .ctors.N) before the plain ones, in an order the file could choose.
    const bool early = n == ".init" || starts_with(n, ".preinit_array") ||
                       starts_with(n, ".init_array.") || starts_with(n, ".ctors.") ||
                       starts_with(n, ".fini_array.") || starts_with(n, ".dtors.");
    if (early)
      findings.push_back("banned: the file has a section `" + n +
                         "` (a constructor with a priority or early code, which would run before "
                         "the grader takes its record channel); give constructors no priority "
                         "and use no .preinit_array or .init code");
  }
  return findings;
}

std::vector<std::string> include_findings(const std::vector<std::string>& deps,
                                          const std::vector<std::string>& allowed_prefixes,
                                          const std::vector<std::string>& allowed_files,
                                          const std::string& source_dir) {
  std::set<std::string> files;
  for (const auto& f : allowed_files) files.insert(fs::path(f).lexically_normal().string());
  const std::string root = as_folder(fs::path(source_dir).lexically_normal().string());
  std::vector<std::string> findings;
  for (const auto& dep : deps) {
    const std::string path = fs::path(dep).lexically_normal().string();
    if (files.count(path)) continue;
    const bool allowed = !path.empty() && path.front() == '/' &&
                         std::any_of(allowed_prefixes.begin(), allowed_prefixes.end(),
                                     [&](const std::string& p) { return starts_with(path, p); });
    if (allowed) continue;
    const std::string name =
        !source_dir.empty() && starts_with(path, root) ? path.substr(root.size()) : path;
    findings.push_back("banned: the file includes " + name +
                       "; a lab file may include only its lab's folder, common/include and the "
                       "CUDA toolkit");
  }
  return findings;
}

// ---- Running the tools.

AuditResult audit_candidate(const AuditSubject& subject, const AuditTools& tools) {
  AuditResult result;
  if (subject.objects.empty()) {
    result.verdict = "not graded: the build names no object file for lab " + subject.lab +
                     "'s candidate (re-run cmake)";
    return result;
  }
  std::vector<std::string> findings;
  try {
    for (const auto& object : subject.objects) {
      const std::string name = fs::path(object).filename().string();
      const auto symbols =
          parse_readelf_symbols(tool_output({tools.readelf, "-sW", object}, "readelf -s " + name));
      const auto sections =
          parse_readelf_sections(tool_output({tools.readelf, "-SW", object}, "readelf -S " + name));
      const auto code = tool_output({tools.objdump, "-d", object}, "objdump -d " + name);
      for (auto&& f : symbol_findings(subject.lab, symbols, sections)) findings.push_back(f);
      for (auto&& f : instruction_findings(code)) findings.push_back(f);
      for (auto&& f : section_findings(sections)) findings.push_back(f);

      if (tools.ninja.empty()) {
        result.notes.push_back("includes not checked: the build was not made by Ninja");
        continue;
      }
      std::string build_dir = fs::path(tools.build_dir).lexically_normal().string();
      while (build_dir.size() > 1 && build_dir.back() == '/') build_dir.pop_back();
      const std::string target =
          fs::path(object).lexically_normal().lexically_relative(build_dir).string();
      std::vector<std::string> deps;
      try {
        deps = parse_ninja_deps(
            tool_output({tools.ninja, "-C", build_dir, "-t", "deps", target}, "ninja -t deps"));
      } catch (const AuditError& e) {
        throw AuditError("the dependency list of " + name + " cannot be read: " + e.what());
      }
      // Where the build's files really are (a symbolic link in the lab's folder must not lead
      // out of it).
      for (auto& d : deps)
        d = canonical(fs::path(d).is_absolute() ? d : (fs::path(build_dir) / d).string());
      const std::string source = canonical(subject.source);
      if (std::find(deps.begin(), deps.end(), source) == deps.end())
        throw AuditError("the dependency list of " + name + " does not name its source " +
                         subject.source + " (rebuild the lab)");
      std::vector<std::string> prefixes{"/usr/include/", "/usr/lib/gcc/", "/usr/local/include/",
                                        "/usr/local/cuda"};
      for (const auto& dir : subject.include_dirs) prefixes.push_back(as_folder(canonical(dir)));
      for (const auto& dir : tools.system_include_prefixes) {
        if (dir.empty()) continue;
        prefixes.push_back(as_folder(dir));
        prefixes.push_back(as_folder(canonical(dir)));
      }
      for (auto&& f : include_findings(deps, prefixes, {source}, canonical(tools.source_dir)))
        findings.push_back(f);
    }
  } catch (const AuditError& e) {
    result.verdict = std::string("not graded: the audit of the lab's file could not be made (") +
                     e.what() + "); a file that cannot be audited is not graded";
    return result;
  }
  if (!findings.empty()) result.verdict = findings.front() + more(findings.size() - 1);
  return result;
}

std::string sanitizer_records_problem(const std::vector<std::string>& expected,
                                      const std::vector<CheckRecord>& records,
                                      const std::set<std::string>& skipped_in_plain_run) {
  for (const std::string& name : expected) {
    const auto n = std::count_if(records.begin(), records.end(),
                                 [&](const CheckRecord& c) { return c.name == name; });
    if (n != 1) return "check '" + name + "' " + (n == 0 ? "never finished" : "reported twice");
    const auto c = std::find_if(records.begin(), records.end(),
                                [&](const CheckRecord& x) { return x.name == name; });
    if (c->status == "passed" || c->status == "partial") continue;
    if (c->status == "skipped" && skipped_in_plain_run.count(name)) continue;
    if (c->status == "skipped")
      return "check '" + name + "' was skipped under the tool but not in its plain run (" +
             last_lines(c->message, 1) + ")";
    return "check '" + name + "' failed under the tool: " + last_lines(c->message, 2);
  }
  return "";
}

}  // namespace cudalab::grade
