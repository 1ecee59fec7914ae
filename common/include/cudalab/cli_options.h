// Command-line parsing with cxxopts for runners and the grade command, with one policy: any
// parse error, a stray argument or a bad value is a UsageError (one line, exit code 2 through
// guarded_main), and --help is HelpRequested (the help text, exit code 0).
#pragma once

#include <cxxopts.hpp>

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

}  // namespace cudalab
