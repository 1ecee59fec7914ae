// What a lab's remote.cpp includes: its serve half (CUDALAB_SERVE, linked into the candidate
// library) gets the dispatch's side, its judge half the stubs' side (grader/framework/remote.h).
#pragma once

#include <cstdint>

#if defined(CUDALAB_SERVE)
#include "serve_api.h"
#else
#include <string_view>

#include "remote.h"

#define CUDALAB_REMOTE_STR2(x) #x
#define CUDALAB_REMOTE_STR(x) CUDALAB_REMOTE_STR2(x)
namespace {
// The process this file's stubs call: the file is compiled once as labNN::candidate, once as
// labNN::reference.
[[maybe_unused]] const cudalab::remote::Endpoint kHere =
    std::string_view(CUDALAB_REMOTE_STR(CUDALAB_IMPL)) == "reference"
        ? cudalab::remote::Endpoint::reference
        : cudalab::remote::Endpoint::candidate;
}  // namespace
#endif
