#include "reverse_check.h"

#include <algorithm>
#include <set>

#include "cudalab/device_data.h"
#include "cudalab/random.h"
#include "grading.h"

namespace lab06 {

using cudalab::derive_seed;
using namespace cudalab::grade;

ReverseCase reverse_case(int n, int block_size, std::uint64_t seed) {
  return {"n = " + std::to_string(n) + ", block_size = " + std::to_string(block_size),
          reverse_input(static_cast<std::size_t>(n), seed), block_size, seed};
}

std::string check_int_output(const CaseInfo& c, const GuardedBuffer<int>& out,
                             const std::vector<int>& expected) {
  if (std::string guards = out.check_guards(); !guards.empty()) return c.header() + ": " + guards;
  const std::string wrong = describe_int_mismatches(out.download(), expected);
  if (wrong.empty()) return "";
  return c.header() + ": output " + out.name() + " is wrong: " + wrong;
}

std::string check_int_unchanged(const CaseInfo& c, const GuardedBuffer<int>& in,
                                const std::vector<int>& original) {
  if (std::string guards = in.check_guards(); !guards.empty()) return c.header() + ": " + guards;
  const std::vector<int> now = in.download();
  const auto diff = std::mismatch(now.begin(), now.end(), original.begin());
  if (diff.first == now.end()) return "";
  const auto i = static_cast<std::size_t>(diff.first - now.begin());
  return c.header() + ": input " + in.name() + " was modified (first at index " +
         std::to_string(i) + ": was " + std::to_string(original[i]) + ", now " +
         std::to_string(now[i]) + "); inputs are read-only";
}

std::string run_reverse_case(const ReverseCase& c, const ReverseVariant& v) {
  const int n = static_cast<int>(c.in.size());
  const CaseInfo info{c.name, c.seed,
                      "n=" + std::to_string(n) + " block_size=" + std::to_string(c.block_size)};
  GuardedBuffer<int> in("in", c.in.size()), out("out", c.in.size());
  in.upload(c.in);
  cudalab::Stream stream;
  try {
    v.run(in.data(), out.data(), n, c.block_size, stream.get());
  } catch (const std::exception& e) {
    return info.header() + ": " + e.what();
  }
  if (std::string p = check_cuda_errors(info); !p.empty()) return p;
  if (std::string p = check_int_output(info, out, reverse_cpu(c.in)); !p.empty()) return p;
  return check_int_unchanged(info, in, c.in);
}

void require_all_reverse(const std::vector<ReverseCase>& cases, const ReverseVariant& v) {
  require_cases_pass(cases, [&](const ReverseCase& c) { return run_reverse_case(c, v); });
}

std::vector<ReverseCase> reverse_size_cases(std::uint64_t s) {
  std::vector<ReverseCase> cases;
  std::uint64_t k = 700;
  // Explicit block sizes first (a warp, not a multiple of a warp, the usual, the largest, a single
  // thread), then the implementation's choice, whose chunk the grader does not know: sizes around
  // powers of two there.
  for (const int b : {32, 100, 256, 1024, 1}) {
    std::set<int> sizes{1, 2, 3, b - 1, b, b + 1, 2 * b - 1, 2 * b, 2 * b + 1, 4099, 65537};
    sizes.erase(0);
    for (const int n : sizes) cases.push_back(reverse_case(n, b, derive_seed(s, k++)));
  }
  for (const int n : {1, 2, 3, 255, 256, 257, 2047, 2048, 2049, 4099, 65537, 1000003})
    cases.push_back(reverse_case(n, 0, derive_seed(s, k++)));
  for (int r = 0; r < 4; ++r) {
    const std::uint64_t seed = derive_seed(s, 780 + r);
    const auto n = static_cast<int>(cudalab::random_int(seed, 1, 300000));
    const auto b = static_cast<int>(cudalab::random_int(seed + 1, 1, 1024));
    ReverseCase c = reverse_case(n, b, seed);
    c.name = "random #" + std::to_string(r) + ": " + c.name;
    cases.push_back(std::move(c));
  }
  return cases;
}

ReverseCase reverse_largest_case(std::uint64_t s) {
  return reverse_case((1 << 26) + 3, 0, derive_seed(s, 790));
}

namespace {
// `n` seeded 32-bit words in `p` on the device: the bit patterns of finite floats in [-1, 1),
// never the sentinel -1 (all-ones bytes, a NaN). The reverse only moves words.
void fill_words(int* p, std::size_t n, std::uint64_t seed, cudaStream_t stream) {
  static_assert(sizeof(int) == sizeof(float));
  cudalab::fill_uniform_async(reinterpret_cast<float*>(p), n, seed, -1.0f, 1.0f, stream);
}
}  // namespace

ReversePerfCase::ReversePerfCase(std::uint64_t seed) : in(kN), out(kN) {
  fill_words(in.data(), in.size(), derive_seed(seed, 791), nullptr);
  CUDA_CHECK(cudaDeviceSynchronize());  // non-blocking streams do not wait for the default one
}

cudalab::Launch ReversePerfCase::launch(const ReverseVariant& v) {
  return launch(v, out.data());
}

cudalab::Launch ReversePerfCase::launch(const ReverseVariant& v, int* output) {
  return
      [this, output, run = v.run](cudaStream_t stream) { run(in.data(), output, kN, 0, stream); };
}

Workload ReversePerfCase::workload() {
  // Minimum DRAM traffic: read in once, write out once, 4 bytes each.
  return {"n = 2^26 ints", 2.0 * sizeof(int) * kN, 0.0, true};
}

void grade_reverse_performance(const std::string& lab, const ReverseVariant& candidate,
                               const ReverseVariant& reference,
                               const ExecutionSignature& executed) {
  ReversePerfCase perf(base_seed());
  // Every sample reads a fresh `in` (the same for the candidate's sample and the reference's
  // after it) and each writes its own output, compared word for word with the other's (the
  // untimed run's first, then after every sample).
  cudalab::DeviceBuffer<int> out_reference(perf.out.size());
  const std::uint64_t seed = derive_seed(base_seed(), 792);
  TimedRunChecks checks;
  checks.executed = executed;
  checks.fresh_inputs = [&](std::uint64_t sample, cudaStream_t s) {
    fill_words(perf.in.data(), perf.in.size(), derive_seed(seed, sample), s);
  };
  checks.outputs = {{"out", perf.out.data(), out_reference.data(), perf.out.size(),
                     cudalab::Tolerance{}, /*exact=*/true}};
  grade_performance(lab, perf.launch(candidate), perf.launch(reference, out_reference.data()),
                    ReversePerfCase::workload(), checks);
}

}  // namespace lab06
