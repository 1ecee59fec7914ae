// The runner shared by the 1D convolution labs: runs one implementation on generated data,
// verifies it against the CPU reference and times it; --bench compares every variant over sizes
// and mask widths and writes JSON for scripts/plot_bench.py.
//
// Bandwidth counts the minimum DRAM traffic of one run: x read once + y written once
// (8 bytes per element); the mask is negligible. "% copy" is that rate over the copy bandwidth
// measured at start-up in the same process.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "conv1d_check.h"

namespace conv1d {

// Device copies of one generated problem (x from `seed`, the mask from a seed derived from it),
// and a variant run on them checked against `expected`; lab 06's runner uses it too.
struct Conv1dProblem {
  std::vector<float> hx, hmask;
  cudalab::DeviceBuffer<float> x, mask, y;
  Conv1dProblem(int width, int mask_width, std::uint64_t seed);
  Conv1dArgs args();
  // "" when within tolerance (scaled), else a short reason. Prepares the variant first.
  std::string verify(const Conv1dVariant& v, const std::vector<double>& expected,
                     double tolerance_scale, cudaStream_t stream);
};

struct RunnerSpec {
  std::string program;      // "lab02-conv1d-tiled"
  std::string lab;          // "02-conv1d-tiled", recorded in the JSON
  std::string description;  // first line of --help
  int max_mask_width = 0;   // 0: no limit
  std::string mask_limit;   // why the limit exists, for the error message
  // variants[0] is the student's, variants[1] the reference; --impl picks one of them, --bench
  // runs them all (baselines may follow). Above 2^24 elements the bench checks every variant
  // against variants[1].
  std::vector<Conv1dVariant> variants;
  bool bench_only = false;  // a benchmark program: always --bench, no --impl
};

int runner_main(int argc, char** argv, const RunnerSpec& spec);

}  // namespace conv1d
