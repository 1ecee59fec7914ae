// What a lab's remote.cpp includes: its serve half (CUDALAB_SERVE, linked into the candidate
// library) gets the dispatch's side, its judge half the stubs' side (grader/framework/remote.h).
#pragma once

#include <cstdint>

#if defined(CUDALAB_SERVE)
#include "serve_api.h"
#else
#include "remote.h"
#endif
