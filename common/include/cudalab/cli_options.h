// Command-line parsing with cxxopts for runners and the grade command, with one policy: any
// parse error, a stray argument or a bad value is a UsageError (one line, exit code 2 through
// guarded_main), and --help is HelpRequested (the help text, exit code 0).
#pragma once

#include <cxxopts.hpp>

#include <cstdint>
#include <string>

#include "cudalab/cli.h"

namespace cudalab {

// `spec` must define "h,help".
inline cxxopts::ParseResult parse_command_line(cxxopts::Options& spec, int argc, char** argv) {
  cxxopts::ParseResult result;
  try {
    result = spec.parse(argc, argv);
  } catch (const std::exception& e) {  // cxxopts 2.x and 3.x name their exceptions differently
    throw UsageError(e.what());
  }
  if (result.count("help")) throw HelpRequested(spec.help());
  if (!result.unmatched().empty())
    throw UsageError("unexpected argument '" + result.unmatched().front() + "'");
  return result;
}

// parse_command_line for a runner: first adds the two options every runner ends with, --json
// (described by `json_help`) and --help.
inline cxxopts::ParseResult parse_runner_command_line(cxxopts::Options& spec,
                                                      const std::string& json_help, int argc,
                                                      char** argv) {
  spec.add_options()("json", json_help, cxxopts::value<std::string>())("h,help", "show this help");
  return parse_command_line(spec, argc, argv);
}

// A runner's --impl: "student" (the candidate) or "reference".
inline std::string parse_impl(const cxxopts::ParseResult& r) {
  return parse_choice(r["impl"].as<std::string>(), "--impl", {"student", "reference"});
}

// The integer option `name`, given as text, in [lo, hi] (parse_int_in_range); messages name it
// `what`, by default "--<name>".
inline int int_option(const cxxopts::ParseResult& r, const std::string& name, int lo, int hi,
                      const std::string& what = "") {
  return static_cast<int>(
      parse_int_in_range(r[name].as<std::string>(), what.empty() ? "--" + name : what, lo, hi));
}

// --seed: a whole number from 0 to 2^63 - 1.
inline std::uint64_t parse_seed(const cxxopts::ParseResult& r) {
  return static_cast<std::uint64_t>(
      parse_int_in_range(r["seed"].as<std::string>(), "--seed", 0, INT64_MAX));
}

// The file named by the output option `name`, "" when it is not given; checked writable
// (require_writable), so that a bad path is a usage error before any GPU work.
inline std::string writable_path_option(const cxxopts::ParseResult& r, const std::string& name) {
  if (!r.count(name)) return "";
  const std::string path = r[name].as<std::string>();
  require_writable(path, "--" + name);
  return path;
}

}  // namespace cudalab
