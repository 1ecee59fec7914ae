// Part 1 of lab 06, the reverse: one implementation as the graders and the runner call it, the
// seeded integer inputs, the CPU reference and the exact comparison of integer outputs. No test
// framework here: the runner links it too.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace lab06 {

// One implementation of reverse(in, out, n, block_size, stream).
struct ReverseVariant {
  std::string name;
  std::function<void(const int* in, int* out, int n, int block_size, cudaStream_t)> run;
};

// Values in [0, 2^30), all different in practice: never the sentinel -1 (all-ones bytes) that
// marks an output element as unwritten, and an element in the wrong place shows.
std::vector<int> reverse_input(std::size_t n, std::uint64_t seed);
// out[n - 1 - i] = in[i].
std::vector<int> reverse_cpu(const std::vector<int>& in);

// Exact comparison: "" when equal, otherwise how many differ, how many hold the sentinel -1
// (never written?) and the first `max_report` as (index, expected, got).
std::string describe_int_mismatches(const std::vector<int>& got, const std::vector<int>& expected,
                                    std::size_t max_report = 10);

}  // namespace lab06
