// The audit of a candidate's object (grade/audit.h): the parsers of readelf, objdump and ninja
// output (real and malformed), and each rule on the symbols, sections, instructions and includes
// a compiled lab file can have. The samples are cut from what nvcc and binutils print.
#include <fcntl.h>
#include <unistd.h>

#include <set>
#include <string>
#include <vector>

#include "audit.h"
#include "cudalab/catch.h"
#include "variant.h"

using namespace cudalab::grade;  // the whole of audit.h is under test

namespace {

const std::string kSymbols =
    "\n"
    "Symbol table '.symtab' contains 8 entries:\n"
    "   Num:    Value          Size Type    Bind   Vis      Ndx Name\n"
    "     0: 0000000000000000     0 NOTYPE  LOCAL  DEFAULT  UND \n"
    "    19: 0000000000000000    97 FUNC    LOCAL  DEFAULT   12 _ZL24__sti____cudaRegisterAllv\n"
    "    23: 0000000000000000     0 NOTYPE  GLOBAL DEFAULT  UND __cudaUnregisterFatBinary\n"
    "    24: 0000000000000010   315 FUNC    GLOBAL HIDDEN     2 "
    "_ZN5lab019candidate19conv1d_basic_kernelEPKfS2_Pfii\n"
    "    25: 0000000000000000     8 OBJECT  WEAK   HIDDEN    19 DW.ref.__gxx_personality_v0\n"
    "    26: 0000000000000150   307 FUNC    GLOBAL DEFAULT    2 "
    "_Z65__device_stub__ZN5lab019candidate19conv1d_basic_kernelEPKfS2_PfiiPKfS0_Pfii\n"
    "    27: 0000000000000000   507 FUNC    WEAK   DEFAULT   16 _ZNSt7__cxx119to_stringEi\n"
    "    28: 0000000000000000     0 NOTYPE  GLOBAL DEFAULT  UND "
    "_ZN7cudalab16throw_cuda_errorE9cudaErrorPKcS2_i\n";

const std::string kSections =
    "There are 6 section headers, starting at offset 0x44a0:\n"
    "\n"
    "Section Headers:\n"
    "  [Nr] Name              Type            Address          Off    Size   ES Flg Lk Inf Al\n"
    "  [ 0]                   NULL            0000000000000000 000000 000000 00      0   0  0\n"
    "  [ 2] .text             PROGBITS        0000000000000000 000050 00032f 00  AX  0   0 16\n"
    "  [12] .text.startup     PROGBITS        0000000000000000 008c80 0000b4 00  AX  0   0 16\n"
    "  [16] .text._ZNSt7__cxx119to_stringEi PROGBITS        0000000000000000 008900 0001fb 00 "
    "AXG  0   0 16\n"
    "  [19] .data.rel.local.DW.ref.__gxx_personality_v0 PROGBITS        0000000000000000 009c58 "
    "000008 00 WAG  0   0  8\n"
    "  [22] .init_array       INIT_ARRAY      0000000000000000 008d38 000008 08  WA  0   0  8\n"
    "Key to Flags:\n"
    "  W (write), A (alloc), X (execute), M (merge), S (strings), I (info),\n";

ElfSymbol sym(const std::string& name, const std::string& bind, const std::string& section,
              const std::string& type = "FUNC") {
  return ElfSymbol{name, type, bind, section};
}

std::vector<ElfSection> sections() {
  return {{2, ".text", "AX"}, {16, ".text._ZNSt6vectorIfSaIfEE", "AXG"}, {7, ".data", "WA"}};
}

// The findings for one symbol of lab 01 (section 2: .text, 16: a COMDAT group, 7: .data).
std::vector<std::string> findings(const ElfSymbol& s, const std::string& lab = "01") {
  return symbol_findings(lab, {s}, sections());
}

std::string one_finding(const ElfSymbol& s, const std::string& lab = "01") {
  const auto f = findings(s, lab);
  return f.size() == 1 ? f.front() : "(" + std::to_string(f.size()) + " findings)";
}

template <typename F>
std::string audit_error(F&& f) {
  try {
    f();
  } catch (const AuditError& e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

CheckRecord record(const std::string& name, const std::string& status,
                   const std::string& message = "") {
  CheckRecord r;
  r.name = name;
  r.status = status;
  r.message = message;
  return r;
}

}  // namespace

// ---- Parsers.

TEST_CASE("readelf's symbol table is read", "[audit]") {
  const auto s = parse_readelf_symbols(kSymbols);
  REQUIRE(s.size() == 8);
  CHECK(s[0].name.empty());
  CHECK(s[0].undefined());
  CHECK(s[2].name == "__cudaUnregisterFatBinary");
  CHECK(s[2].bind == "GLOBAL");
  CHECK(s[2].undefined());
  CHECK(s[3].type == "FUNC");
  CHECK(s[3].section == "2");
  CHECK(s[4].bind == "WEAK");
  CHECK_FALSE(s[4].undefined());
}

TEST_CASE("readelf's symbol table: [<other>] fields before the section are skipped", "[audit]") {
  const auto s = parse_readelf_symbols(
      "Symbol table '.symtab' contains 1 entry:\n"
      "     1: 0000000000000000    8 FUNC    GLOBAL DEFAULT [<localentry>: 8]     2 f\n");
  REQUIRE(s.size() == 1);
  CHECK(s[0].section == "2");
  CHECK(s[0].name == "f");
}

TEST_CASE("malformed readelf symbol output is refused", "[audit]") {
  CHECK(contains(audit_error([] { parse_readelf_symbols(""); }), "no symbol table"));
  CHECK(contains(audit_error([] { parse_readelf_symbols("readelf: Error: not an ELF file\n"); }),
                 "no symbol table"));
  // A line cut after the binding.
  CHECK(contains(audit_error([] {
                   parse_readelf_symbols(
                       "Symbol table '.symtab' contains 1 entry:\n"
                       "    24: 0000000000000010   315 FUNC    GLOBAL\n");
                 }),
                 "truncated"));
  // Fewer entries than the table announces (the output was cut).
  const std::string cut = kSymbols.substr(0, kSymbols.find("    26:"));
  CHECK(contains(audit_error([&] { parse_readelf_symbols(cut); }), "5 of 8"));
  CHECK(contains(audit_error([] { parse_readelf_symbols("    1: 0 0 FUNC GLOBAL DEFAULT 2 f\n"); }),
                 "before any symbol table"));
}

TEST_CASE("readelf's section headers are read", "[audit]") {
  const auto s = parse_readelf_sections(kSections);
  REQUIRE(s.size() == 6);
  CHECK(s[0].index == 0);
  CHECK(s[0].name.empty());
  CHECK(s[0].flags.empty());
  CHECK(s[1].name == ".text");
  CHECK(s[1].flags == "AX");
  CHECK(s[3].index == 16);
  CHECK(s[3].name == ".text._ZNSt7__cxx119to_stringEi");
  CHECK(s[3].flags == "AXG");
  CHECK(s[5].name == ".init_array");
}

TEST_CASE("a section name with spaces is read whole", "[audit]") {
  const auto s = parse_readelf_sections(
      "There are 1 section headers, starting at offset 0x0:\n"
      "  [ 1] .init_array.00101 x PROGBITS 0000000000000000 000040 000008 00  WA  0   0  8\n");
  REQUIRE(s.size() == 1);
  CHECK(s[0].name == ".init_array.00101 x");
  CHECK(section_findings(s).size() == 1);
}

TEST_CASE("malformed readelf section output is refused", "[audit]") {
  CHECK(contains(audit_error([] { parse_readelf_sections(""); }), "no section headers"));
  CHECK(contains(audit_error([] {
                   parse_readelf_sections(
                       "There are 1 section headers, starting at offset 0x0:\n"
                       "  [ 2] .text             PROGBITS        0000000000000000 000050\n");
                 }),
                 "cannot be read"));
  const std::string cut = kSections.substr(0, kSections.find("  [22]"));
  CHECK(contains(audit_error([&] { parse_readelf_sections(cut); }), "5 of 6"));
}

TEST_CASE("ninja's dependency list is read", "[audit]") {
  const auto deps = parse_ninja_deps(
      "CMakeFiles/lab01_student.dir/labs/01/a.cu.o: #deps 2, deps mtime 17956 (VALID)\n"
      "    /src/labs/01/a.cu\n"
      "    /usr/include/stdio.h\n"
      "\n");
  CHECK(deps == std::vector<std::string>{"/src/labs/01/a.cu", "/usr/include/stdio.h"});
}

TEST_CASE("an unreadable dependency list is refused", "[audit]") {
  CHECK(contains(audit_error([] { parse_ninja_deps(""); }), "no dependency list"));
  CHECK(contains(audit_error([] { parse_ninja_deps("a.o: deps not found\n"); }), "has no"));
  CHECK(contains(
      audit_error([] { parse_ninja_deps("a.o: #deps 1, deps mtime 5 (STALE)\n    /src/a.cu\n"); }),
      "older than the object"));
  CHECK(contains(
      audit_error([] { parse_ninja_deps("a.o: #deps 3, deps mtime 5 (VALID)\n    /src/a.cu\n"); }),
      "1 of 3"));
  CHECK(contains(
      audit_error([] { parse_ninja_deps("a.o: #deps 1, deps mtime 5 (VALID)\n/src/a.cu\n"); }),
      "not a dependency"));
  CHECK(contains(audit_error([] { parse_ninja_deps("ninja: error: unknown target 'a.o'\n"); }),
                 "no dependency list"));
}

TEST_CASE("a symbol's scope is read from its mangled name", "[audit]") {
  using K = SymbolScope::Kind;
  struct Case {
    std::string mangled;
    K kind;
    std::string outer, inner;
  };
  for (const Case& c : std::vector<Case>{
           {"cudaEventElapsedTime", K::c, "", ""},
           {"_ZN5lab019candidate12conv1d_basicEPKfS2_PfiiP11CUstream_st", K::nested, "lab01",
            "candidate"},
           {"_ZNK5lab079candidate4viewEv", K::nested, "lab07", "candidate"},
           {"_ZTIN5lab019candidate3FooE", K::nested, "lab01", "candidate"},
           {"_ZTVN5lab019candidate3FooE", K::nested, "lab01", "candidate"},
           {"_ZGVZN5lab019candidate1fEvE1x", K::nested, "lab01", "candidate"},
           {"_ZZN5lab079candidate12panel_configILi2EEEvvE7allowed", K::nested, "lab07",
            "candidate"},
           {"_ZThn8_N5lab019candidate3Foo1fEv", K::nested, "lab01", "candidate"},
           {"_ZTv0_n24_N5lab019candidate3Foo1fEv", K::nested, "lab01", "candidate"},
           {"_Z65__device_stub__ZN5lab019candidate19conv1d_basic_kernelEPKfS2_PfiiPKfS0_Pfii",
            K::nested, "lab01", "candidate"},
           {"_ZN5lab019reference12conv1d_basicEPKfS2_PfiiP11CUstream_st", K::nested, "lab01",
            "reference"},
           {"_ZNSt7__cxx119to_stringEi", K::nested, "std", "__cxx11"},
           {"_ZStplIcSt11char_traitsIcESaIcEENSt7__cxx1112basic_stringIT_T0_T1_EEOS8_S9_",
            K::nested, "std", ""},
           {"_ZTISt16invalid_argument", K::nested, "std", "invalid_argument"},
           {"_ZNSaIcED1Ev", K::nested, "std", "allocator"},
           {"_ZN9__gnu_cxx11char_traitsIcE6lengthEPKc", K::nested, "__gnu_cxx", "char_traits"},
           {"_ZN7cudalab5grade10set_creditEd", K::nested, "cudalab", "grade"},
           {"_ZN4dim3C1Ejjj", K::nested, "dim3", ""},
           {"_Z21__device_stub__Z2gkPfPf", K::global, "gk", ""},
           {"_Z12cpu_conv1d_xPKf", K::global, "cpu_conv1d_x", ""},
           {"_Znwm", K::global, "nw", ""},
           {"_ZZ33nvtxInitializeInjectionLibrary_v3E12initFuncName", K::global,
            "nvtxInitializeInjectionLibrary_v3", ""},
           {"_Z", K::global, "", ""},
           {"_ZN", K::nested, "", ""},
           {"_ZN99lab", K::nested, "", ""},
       }) {
    CAPTURE(c.mangled);
    const SymbolScope s = symbol_scope(c.mangled);
    CHECK(s.kind == c.kind);
    CHECK(s.outer == c.outer);
    CHECK(s.inner == c.inner);
  }
}

// ---- Rule a: what a file may define.

TEST_CASE("a plain answer's symbols are clean", "[audit]") {
  CHECK(symbol_findings("01", parse_readelf_symbols(kSymbols), parse_readelf_sections(kSections))
            .empty());
}

TEST_CASE("what the compiler makes outside the namespace is allowed", "[audit]") {
  for (const ElfSymbol& s : std::vector<ElfSymbol>{
           sym("_ZN5lab019candidate1fEv", "GLOBAL", "2"),
           sym("_ZN5lab019candidate1gE", "GLOBAL", "7", "OBJECT"),
           sym("_ZN5lab019candidate6launchIffEEvv", "WEAK", "16"),
           sym("_Z65__device_stub__ZN5lab019candidate19conv1d_basic_kernelEPKfS2_PfiiPKfS0_Pfii",
               "GLOBAL", "2"),
           sym("_ZNSt7__cxx119to_stringEi", "WEAK", "16"),
           sym("_ZZNSt8__detail18__to_chars_10_implIjEEvPcjT_E8__digits", "UNIQUE", "16", "OBJECT"),
           sym("_ZN4cuda3std3__48in_placeE", "UNIQUE", "16", "OBJECT"),
           sym("_ZN6thrust6detail1fEv", "WEAK", "16"),
           sym("_ZN4dim3C1Ejjj", "WEAK", "16"),
           sym("_ZN6__halfaSERKS_", "WEAK", "16"),
           sym("_ZnwmPv", "WEAK", "16"),
           sym("DW.ref.__gxx_personality_v0", "WEAK", "16", "OBJECT"),
           sym("nvtxMarkA_impl_init_v3", "WEAK", "16"),
           sym("__fatbinwrap_6041ec19_4_k_cu_b4dbe8cb", "GLOBAL", "7", "OBJECT"),
       }) {
    CAPTURE(s.name);
    CHECK(findings(s).empty());
  }
}

TEST_CASE("the inline functions of the lab's own interface header are allowed", "[audit]") {
  CHECK(findings(sym("_ZN5lab0513TextureObject5resetEy", "WEAK", "16"), "05").empty());
  // ...but not when made strong, or in another lab's namespace.
  CHECK(findings(sym("_ZN5lab0513TextureObject5resetEy", "GLOBAL", "2"), "05").size() == 1);
  CHECK(findings(sym("_ZN5lab0413TextureObject5resetEy", "WEAK", "16"), "05").size() == 1);
}

TEST_CASE("a runtime function defined by the file is banned", "[audit]") {
  CHECK(one_finding(sym("cudaEventElapsedTime", "GLOBAL", "2")) ==
        "banned: the file defines `cudaEventElapsedTime` outside namespace lab01::candidate (it "
        "would replace the CUDA runtime's, the C library's or the grader's own); put all of your "
        "code inside namespace lab01::CUDALAB_IMPL");
  // Weak does not help: a weak definition still wins over a library's.
  CHECK(findings(sym("cudaEventElapsedTime", "WEAK", "16")).size() == 1);
}

TEST_CASE("definitions outside the lab's namespace are banned", "[audit]") {
  for (const ElfSymbol& s : std::vector<ElfSymbol>{
           sym("write", "GLOBAL", "2"),
           sym("getenv", "GLOBAL", "2"),
           sym("main", "GLOBAL", "2"),
           sym("_ZN7cudalab5grade10set_creditEd", "GLOBAL", "2"),
           sym("_ZN7cudalab5grade10set_creditEd", "WEAK", "16"),
           sym("_ZN5Catch7Session3runEv", "GLOBAL", "2"),
           sym("_ZN5lab019reference12conv1d_basicEPKfS2_PfiiP11CUstream_st", "GLOBAL", "2"),
           sym("_ZN5lab029candidate12conv1d_tiledEv", "GLOBAL", "2"),
           sym("_ZN6conv1d10conv1d_cpuEv", "GLOBAL", "2"),
           sym("_Z6helperv", "GLOBAL", "2"),
           sym("_Z6helperv", "WEAK", "16"),  // a global inline function
           sym("_Z2gkPf", "GLOBAL", "2"),    // a kernel outside the namespace
           sym("_Z21__device_stub__Z2gkPfPf", "GLOBAL", "2"),
           sym("_Znwm", "GLOBAL", "2"),  // a replacement of operator new
           sym("_Znwm", "WEAK", "16"),
           sym("_ZNSt6chrono3_V212steady_clock3nowEv", "GLOBAL", "2"),
           // Weak but not in a COMDAT group: __attribute__((weak)), not a template instance.
           sym("_ZNSt6chrono3_V212steady_clock3nowEv", "WEAK", "2"),
           sym("_ZTIN7cudalab5grade5ErrorE", "WEAK", "16", "OBJECT"),
           sym("common_symbol", "GLOBAL", "COM", "OBJECT"),
       }) {
    CAPTURE(s.name, s.bind, s.section);
    const auto f = findings(s);
    REQUIRE(f.size() == 1);
    CHECK(contains(f.front(), "banned: the file defines `"));
    CHECK(contains(f.front(), "outside namespace lab01::candidate"));
  }
  CHECK(contains(one_finding(sym("_ZN7cudalab5grade10set_creditEd", "GLOBAL", "2")),
                 "`cudalab::grade::set_credit(double)`"));
}

TEST_CASE("an indirect function is banned wherever it is", "[audit]") {
  const std::string f = one_finding(sym("_ZN5lab019candidate1fEv", "GLOBAL", "2", "IFUNC"));
  CHECK(contains(f, "banned: the file defines `lab01::candidate::f()` as an indirect function"));
  CHECK(findings(sym("_ZN5lab019candidate1fEv", "LOCAL", "2", "IFUNC")).size() == 1);
}

TEST_CASE("local symbols are the file's own business", "[audit]") {
  CHECK(findings(sym("_ZL6helperv", "LOCAL", "2")).empty());
  CHECK(findings(sym("cudaEventElapsedTime", "LOCAL", "2")).empty());
}

// ---- Rule b: what a file may use.

TEST_CASE("what a lab file calls is allowed", "[audit]") {
  for (const std::string name :
       {"cudaGetLastError", "__cudaLaunchKernel", "memcpy", "getenv", "write", "_exit", "snprintf",
        "__cxa_guard_acquire", "_Znwm", "_ZdlPvm",
        "_ZN7cudalab16throw_cuda_errorE9cudaErrorPKcS2_i",
        "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE9_M_createERmm",
        "_ZTISt16invalid_argument", "_ZSt20__throw_length_errorPKc",
        "_ZN5lab019candidate9declaredEv", "_ZTVN10__cxxabiv117__class_type_infoE",
        "_GLOBAL_OFFSET_TABLE_"}) {
    CAPTURE(name);
    CHECK(findings(sym(name, "GLOBAL", "UND", "NOTYPE")).empty());
  }
}

TEST_CASE("banned imports: loading, files, processes, system calls", "[audit]") {
  struct Case {
    std::string name, family;
  };
  for (const Case& c : std::vector<Case>{
           {"dlopen", "(dynamic loading): a lab file loads no library"},
           {"dlsym", "(dynamic loading)"},
           {"dlopen@GLIBC_2.2.5", "(dynamic loading)"},
           {"dl_iterate_phdr", "(dynamic loading)"},
           {"_r_debug", "(dynamic loading)"},
           {"cudaGetDriverEntryPoint", "(dynamic loading)"},
           {"_dl_find_object", "(dynamic loading)"},
           {"open", "(file access): a lab file does no file I/O and starts no process"},
           {"open64", "(file access)"},
           {"__open_2", "(file access)"},
           {"openat", "(file access)"},
           {"fopen", "(file access)"},
           {"readlink", "(file access)"},
           {"cudaLibraryLoadFromFile", "(file access)"},
           {"_ZNSt14basic_ifstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode", "(file access)"},
           {"_ZTVSt14basic_ofstreamIcSt11char_traitsIcEE", "(file access)"},
           {"_ZNSt13basic_filebufIcSt11char_traitsIcEE4openEPKcSt13_Ios_Openmode", "(file access)"},
           {"_ZNSt10filesystem4copyERKNS_7__cxx114pathES3_", "(file access)"},
           {"mprotect", "(memory mapping)"},
           {"fork", "(processes): a lab file does no file I/O and starts (or signals) no process"},
           {"execve", "(processes)"},
           {"system", "(processes)"},
           {"posix_spawn", "(processes)"},
           {"popen", "(processes)"},
           {"ptrace", "(processes)"},
           {"process_vm_readv", "(processes)"},
           {"kill", "(processes)"},
           {"syscall", "(raw system calls): a lab file makes no system call of its own"},
           {"socket", "(network)"},
       }) {
    CAPTURE(c.name);
    for (const char* bind : {"GLOBAL", "WEAK"}) {
      const std::string f = one_finding(sym(c.name, bind, "UND", "NOTYPE"));
      CHECK(contains(f, "banned: the file uses `"));
      CHECK(contains(f, c.family));
    }
  }
  CHECK(one_finding(sym("dlsym", "GLOBAL", "UND", "NOTYPE")) ==
        "banned: the file uses `dlsym` (dynamic loading): a lab file loads no library and looks "
        "up no symbol: call your own code, the CUDA runtime and the C and C++ libraries");
}

TEST_CASE("banned imports: the reference, other labs, the grader and the frameworks", "[audit]") {
  struct Case {
    std::string name, whose;
  };
  for (const Case& c : std::vector<Case>{
           {"_ZN5lab019reference12conv1d_basicEPKfS2_PfiiP11CUstream_st",
            "(the reference solution)"},
           {"_ZN5lab029candidate12conv1d_tiledEv", "(another lab's code)"},
           {"_ZN5lab029reference12conv1d_tiledEv", "(another lab's code)"},
           {"_ZN5lab018baseline6kernelEv", "(the grader's code for this lab)"},
           {"_ZN5lab0110conv1d_cpuEv", "(the grader's code for this lab)"},
           {"_ZN7cudalab5grade10set_creditEd", "(the grading framework)"},
           {"_ZNK7cudalab5grade5Check4nameEv", "(the grading framework)"},
           {"_ZN5Catch7Session3runEv", "(the test framework)"},
           {"_ZN6conv1d10conv1d_cpuERKSt6vectorIfSaIfEE", "(code that is neither yours"},
       }) {
    CAPTURE(c.name);
    const std::string f = one_finding(sym(c.name, "GLOBAL", "UND", "NOTYPE"));
    CHECK(contains(f, "banned: the file uses `"));
    CHECK(contains(f, c.whose));
    CHECK(contains(f,
                   "a lab file calls only its own code, the C and C++ libraries, the CUDA "
                   "toolkit and common/include"));
  }
  CHECK(contains(one_finding(sym("_ZN5lab019reference12conv1d_basicEPKfS2_PfiiP11CUstream_st",
                                 "GLOBAL", "UND", "NOTYPE")),
                 "`lab01::reference::conv1d_basic(float const*, float const*, float*, int, int, "
                 "CUstream_st*)`"));
}

// ---- Rule c: system call instructions.

const std::string kDisassembly =
    "\n"
    "answer.cu.o:     file format elf64-x86-64\n"
    "\n"
    "\n"
    "Disassembly of section .text:\n"
    "\n"
    "0000000000000000 <_ZN5lab019candidate1fEv>:\n"
    "   0:\t48 8b 3d 00 00 00 00 \tmov    0x0(%rip),%rdi        # 7 <_ZN5lab019candidate1fEv+0x7>\n"
    "   7:\te9 00 00 00 00       \tjmp    c <syscall_helper+0xc>\n"
    "   c:\t0f 1f 40 00          \tnopl   0x0(%rax)\n"
    "  10:\t48 b8 01 02 03 04 05 \tmovabs $0x807060504030201,%rax\n"
    "  17:\t06 07 08 \n";

TEST_CASE("a clean disassembly has no findings", "[audit]") {
  CHECK(instruction_findings(kDisassembly).empty());
  // Without the raw bytes (objdump --no-show-raw-insn) the instruction follows the address.
  CHECK(instruction_findings("a.o:     file format elf64-x86-64\n   0:\tret\n").empty());
}

TEST_CASE("system call instructions are banned", "[audit]") {
  struct Case {
    std::string line, found;
  };
  for (const Case& c : std::vector<Case>{
           {"  1c:\t0f 05                \tsyscall", "`syscall`"},
           {"  1c:\t0f 34                \tsysenter", "`sysenter`"},
           {"  1c:\tcd 80                \tint    $0x80", "`int $0x80`"},
           {"  1c:\t01 00 00 d4 \tsvc\t#0x0", "`svc`"},
           {"  1c:\tsyscall", "`syscall`"},
       }) {
    CAPTURE(c.line);
    const auto f =
        instruction_findings(kDisassembly + "\n0000000000000020 <_Z6escapev>:\n" + c.line + "\n");
    REQUIRE(f.size() == 1);
    CHECK(f.front() == "banned: the file's host code has a " + c.found +
                           " instruction (in `escape()`): a lab file makes no system call of its "
                           "own, in inline assembly or otherwise");
  }
  // A plain int is no system call.
  CHECK(instruction_findings(kDisassembly + "  1c:\tcd 03 \tint    $0x3\n").empty());
}

TEST_CASE("malformed objdump output is refused", "[audit]") {
  CHECK(contains(audit_error([] { instruction_findings(""); }), "no disassembly"));
  CHECK(contains(audit_error([] { instruction_findings("objdump: a.o: file format not recog"); }),
                 "no disassembly"));
  // A truncated line is no instruction, and no finding.
  CHECK(instruction_findings(kDisassembly + "  1c:").empty());
  CHECK(instruction_findings(kDisassembly + "  1c:\t0f").empty());
}

// ---- Rule d: early code.

TEST_CASE("prioritized constructors and early sections are banned", "[audit]") {
  for (const std::string name : {".init_array.00101", ".init_array.00100", ".ctors.65434",
                                 ".preinit_array", ".init", ".fini_array.00101", ".dtors.00001"}) {
    CAPTURE(name);
    const auto f = section_findings({{1, name, "WA"}});
    REQUIRE(f.size() == 1);
    CHECK(f.front() == "banned: the file has a section `" + name +
                           "` (a constructor with a priority or early code, which would run "
                           "before the grader takes its record channel); give constructors no "
                           "priority and use no .preinit_array or .init code");
  }
  CHECK(section_findings(parse_readelf_sections(kSections)).empty());  // .init_array is fine
  CHECK(section_findings({{1, ".initialize", "AX"}, {2, ".fini_array", "WA"}}).empty());
}

// ---- Rule e: includes.

TEST_CASE("includes from the lab's folder, common/include and the toolkit are allowed", "[audit]") {
  const std::vector<std::string> deps{"/src/labs/01-conv1d-basic/conv1d_basic.cu",
                                      "/src/labs/01-conv1d-basic/conv1d_basic.h",
                                      "/src/common/include/cudalab/check.h",
                                      "/usr/include/stdio.h",
                                      "/usr/local/cuda-13.0/targets/x86_64-linux/include/cuda.h",
                                      "/usr/lib/gcc/x86_64-linux-gnu/12/include/stddef.h",
                                      "/usr/include/c++/12/../../../include/c++/12/vector",
                                      "/opt/cuda/include/cuda_runtime.h"};
  CHECK(include_findings(deps,
                         {"/src/labs/01-conv1d-basic/", "/src/common/include/", "/usr/include/",
                          "/usr/lib/gcc/", "/usr/local/cuda", "/opt/cuda/include/"},
                         {"/src/labs/01-conv1d-basic/conv1d_basic.cu"}, "/src")
            .empty());
}

TEST_CASE("includes from elsewhere are banned", "[audit]") {
  const std::vector<std::string> prefixes{"/src/labs/01-conv1d-basic/", "/src/common/include/",
                                          "/usr/include/", "/usr/local/cuda"};
  const std::vector<std::string> sources{"/build/variants/01-conv1d-basic/x.cu"};
  struct Case {
    std::string dep, shown;
  };
  for (const Case& c : std::vector<Case>{
           {"/src/labs/01-conv1d-basic/../../solutions/01-conv1d-basic/conv1d_basic.cu",
            "solutions/01-conv1d-basic/conv1d_basic.cu"},
           {"/src/grader/labs/01-conv1d-basic/baselines.h",
            "grader/labs/01-conv1d-basic/baselines.h"},
           {"/src/labs/02-conv1d-tiled/conv1d_tiled.h", "labs/02-conv1d-tiled/conv1d_tiled.h"},
           {"/src/labs/01-conv1d-basicX/a.h", "labs/01-conv1d-basicX/a.h"},
           {"/build/variants/01-conv1d-basic/other.cu", "/build/variants/01-conv1d-basic/other.cu"},
           {"/proc/self/exe", "/proc/self/exe"},
           {"/home/me/stolen.cuh", "/home/me/stolen.cuh"},
           {"relative.h", "relative.h"},
       }) {
    CAPTURE(c.dep);
    const auto f = include_findings({c.dep}, prefixes, sources, "/src/");
    REQUIRE(f.size() == 1);
    CHECK(f.front() == "banned: the file includes " + c.shown +
                           "; a lab file may include only its lab's folder, common/include and "
                           "the CUDA toolkit");
  }
}

// ---- Running the tools.

TEST_CASE("an audit with no object fails closed", "[audit]") {
  const AuditResult r = audit_candidate({"01", {}, "a.cu", {}}, {});
  CHECK(contains(r.verdict, "not graded: the build names no object file"));
}

TEST_CASE("an object the tools cannot read fails closed", "[audit]") {
  AuditTools tools;
  tools.build_dir = "/nonexistent";
  const AuditResult r = audit_candidate({"01", {"/nonexistent/a.cu.o"}, "a.cu", {}}, tools);
  CHECK(contains(r.verdict, "not graded: the audit of the lab's file could not be made (readelf"));
}

TEST_CASE("the tools run whatever descriptors the grade command has open", "[audit]") {
  // On a GPU machine the CUDA driver holds descriptors above 9, which a shell redirection such as
  // dash's ">&12" cannot name: the tools' output must not go through a shell.
  std::vector<int> held;
  for (int i = 0; i < 16; ++i) held.push_back(open("/dev/null", O_RDONLY | O_CLOEXEC));
  AuditTools tools;  // no ninja: the include rule is skipped
  const AuditResult r = audit_candidate({"01", {"/bin/true"}, "a.cu", {}}, tools);
  for (const int fd : held) close(fd);
  CHECK(held.back() > 9);
  CHECK(!contains(r.verdict, "could not be made"));
}

// ---- The sanitizer gate's view of the records.

TEST_CASE("a check skipped only under compute-sanitizer fails the gate", "[audit][sanitize]") {
  const std::vector<std::string> expected{"a", "b"};
  CHECK(sanitizer_records_problem(expected, {record("a", "passed"), record("b", "partial")}, {})
            .empty());
  CHECK(sanitizer_records_problem(expected, {record("a", "passed"), record("b", "skipped", "x")},
                                  {"b"})
            .empty());
  CHECK(sanitizer_records_problem(expected,
                                  {record("a", "passed"), record("b", "skipped", "no GPU")}, {}) ==
        "check 'b' was skipped under the tool but not in its plain run (no GPU)");
  CHECK(sanitizer_records_problem(expected, {record("a", "passed")}, {}) ==
        "check 'b' never finished");
  CHECK(sanitizer_records_problem(
            expected, {record("a", "passed"), record("b", "passed"), record("b", "passed")}, {}) ==
        "check 'b' reported twice");
  CHECK(sanitizer_records_problem(expected,
                                  {record("a", "failed", "y differs"), record("b", "passed")},
                                  {}) == "check 'a' failed under the tool: y differs");
  CHECK(sanitizer_records_problem(expected, {record("a", "listed"), record("b", "passed")}, {}) ==
        "check 'a' failed under the tool: ");
}

// ---- Cheats are left out of the lab page.

TEST_CASE("cheats are left out of the Common mistakes section", "[audit][variant]") {
  Variant mistake, cheat;
  mistake.name = "halo-not-loaded";
  mistake.symptom = "edge outputs are 0";
  mistake.cause = "the halo is not loaded";
  mistake.fix = "load it";
  cheat = mistake;
  cheat.name = "cheat-dlsym-reference";
  cheat.symptom = "banned: the file uses `dlsym`";
  const std::string page = mistakes_markdown({mistake, cheat});
  CHECK(contains(page, "edge outputs are 0"));
  CHECK_FALSE(contains(page, "dlsym"));
}
