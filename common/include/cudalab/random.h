// Seeded input generators. Every generator takes the seed explicitly so a failure can print it
// and a student can replay it. std::mt19937_64 is specified by the standard, so a seed gives the
// same numbers on every platform; the distributions below are our own for the same reason
// (std::uniform_real_distribution may differ between standard libraries).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudalab {

// Uniform floats in [lo, hi), bit-identical on every platform for a given seed.
std::vector<float> random_floats(std::size_t count, std::uint64_t seed, float lo = -1.0f,
                                 float hi = 1.0f);

// Uniform integers in [lo, hi] stored as float: sums and products of small integers are exact in
// float, so results can be compared exactly and index mistakes cannot hide behind a tolerance.
std::vector<float> random_small_ints(std::size_t count, std::uint64_t seed, int lo, int hi);

// Uniform integer in [lo, hi].
std::int64_t random_int(std::uint64_t seed, std::int64_t lo, std::int64_t hi);

// The seed for this run: CUDALAB_SEED from the environment when set (an instructor's secret
// seed), otherwise `fallback`. Throws std::invalid_argument when the variable is not a number.
std::uint64_t seed_from_env(std::uint64_t fallback);

// Mixes a base seed with a case number so that cases are independent but reproducible.
std::uint64_t derive_seed(std::uint64_t base, std::uint64_t case_id);

}  // namespace cudalab
