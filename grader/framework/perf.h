// The performance check: candidate and reference timed interleaved (cudalab::time_interleaved),
// credit from the ratio of medians (policy.h), and the roofline view recorded with the verdict.
// Where the lab's candidate and reference run in processes of their own (remote.h), both are
// timed on this process's clock, from the call to the fence's answer, each less its process's
// empty round; otherwise by events on the same stream in this process.
//
// What is timed is what is checked (docs/grading.md, "What the grader guarantees"):
//   - every sample is also timed device-wide (a device fence before and after it, on the host's
//     clock): a candidate whose work is not all on the given stream (the legacy default stream, a
//     stream of its own, a callback, the host) fails with "work launched outside the given
//     stream";
//   - with TimedRunChecks, every sample gets fresh inputs (the reference's sample that follows
//     gets the same ones) and poisoned outputs, and every output of every candidate sample is
//     compared on the device with the reference's on the same inputs: a candidate that skips work
//     when timed, returns a cached result or computes part of the output fails;
//   - a candidate faster than the hardware allows (more than 1.5x the measured copy bandwidth, or
//     the FP32 peak) fails as implausible.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cudalab/compare.h"
#include "cudalab/timing.h"
#include "technique.h"

namespace cudalab::grade {

struct Workload {
  std::string description;  // "width 2^26, mask 9"
  double bytes = 0.0;       // minimum DRAM traffic of one run (inputs read once + outputs written)
  double flops = 0.0;       // 0 when not meaningful
  bool flush_l2 = true;     // memory-bound work starts each sample with a cold L2
};

// One output of the timed call. The candidate's launch writes `candidate`, the reference's launch
// writes `reference` (device buffers of `count` elements); both are filled with `poison` bytes
// before each sample and compared after every reference sample: floats within `tol` (NaN is the
// sentinel, so an element left unwritten differs), or, with `exact`, as 32-bit words that must be
// equal (integer outputs; `count` is then the number of 32-bit words).
struct TimedOutput {
  std::string name;  // "y", "levels", ... for the message
  void* candidate = nullptr;
  void* reference = nullptr;
  std::size_t count = 0;
  cudalab::Tolerance tol;
  bool exact = false;
  // 0xFF: NaN, or -1 for integers. An integer output that may legitimately hold -1 needs a value
  // it never holds (lab 08's depths: 0x7E7E7E7E), or an element left unwritten would pass.
  unsigned char poison = 0xFF;
  // When set: a tolerance per element (a device array of `count` floats) in place of tol.atol
  // (lab 07: each row's bound, where one tolerance for rows of 1 to 4096 entries would let a file
  // skip an entry of every short row). Last, so that the labs' positional initializers stay.
  const float* atol_each = nullptr;
};

// The tolerance between the candidate's and the reference's outputs when each is within `exact` of
// the exact result: twice it.
inline cudalab::Tolerance between_results(cudalab::Tolerance exact) {
  return {2.0 * exact.atol, 2.0 * exact.rtol};
}

// A new sample's key, from the system's random source (getrandom): nothing the candidate has seen
// (an earlier sample's inputs, the grade's seed, the sample's number) tells a later sample's
// inputs, so no call of its can compute a later sample's outputs ahead of its timing. (Inputs made
// from the seed and the sample's number could be foreseen: the generator is invertible, and an
// earlier sample's values give its seed back.) Throws std::runtime_error when the source fails.
std::uint64_t sample_key();

// The rounds of a timing in which the judge counts what the GPU executes
// (TimedRunChecks::executed): `calls` distinct rounds among the first `first` (every timing has
// them: its fewest samples), in an order drawn from `key` (sample_key(): nothing the candidate
// sees tells it which). Fewer when `first` is smaller.
std::vector<std::size_t> counted_rounds(std::size_t calls, std::size_t first, std::uint64_t key);

// What a lab adds so that the timed runs are checked runs.
struct TimedRunChecks {
  // Called before each sample of either launch, outside the timed interval, with the key of the
  // candidate sample it belongs to (sample_key(): the reference's sample after the candidate's
  // gets the same key): write inputs derived from `key` alone, so both see the same data.
  // Empty: the inputs stay as they are (the outputs are still poisoned and compared).
  std::function<void(std::uint64_t key, cudaStream_t)> fresh_inputs;
  std::vector<TimedOutput> outputs;
  // Device inputs that stay the same through the timing (a matrix, an image, weights): copied
  // before the first sample; before each of the reference's samples compared byte for byte with
  // that copy and written back from it, and compared once more after the last. A candidate cannot
  // change what the reference reads (e.g. zero a const input, then "match" the reference's zeros),
  // and a change fails the check.
  struct Region {
    std::string name;
    const void* data = nullptr;
    std::size_t bytes = 0;  // a multiple of 4
  };
  std::vector<Region> unchanged;
  // What the timed kernels must execute: the lab's technique at the timed size (an execution
  // signature, technique.h, over this case's units of work). Where the grade command gives the
  // timed checks the GPU to themselves (CUDALAB_DEVICE_COUNTS=1), the grader's process counts
  // what the GPU executed during a few of the timed rounds, chosen at random after the timing
  // began (device_counts.h, CallCounter: a call cannot tell whether it is counted), and a
  // signature that fails fails the check: the performance points are for the lesson's kernel.
  // Null: not judged.
  ExecutionSignature executed;
};

// The message of a timed run whose outputs differed from the reference's: "" when `elements` is 0;
// `samples_compared` 0 for the untimed run before the timing.
// `first_output`/`first_index` locate the first difference, `got`/`expected` its values (from the
// last sample, when it differed there; NaN otherwise).
std::string timed_output_problem(unsigned long long elements, std::size_t samples_compared,
                                 const std::string& first_output, unsigned long long first_index,
                                 double got, double expected);

// Fails the check when the candidate's device-wide time exceeds its time on the stream by more
// than the reference's does, beyond noise (pure, for the host tests): "" or the message.
std::string outside_stream_problem(double candidate_ms, double candidate_fenced_ms,
                                   double reference_ms, double reference_fenced_ms);
// "" or why a rate is beyond what the hardware does (1.5x the measured copy bandwidth, or the
// FP32 peak).
std::string implausible_problem(double gbs, double copy_gbs, double gflops, double peak_gflops);

// Runs each once, untimed, on the same fresh inputs and FAILs ("not timed: ...") unless the
// outputs match (correctness first, on this workload, without a CPU result: the correctness
// checks compared the same code with the CPU's); then times both, records measurements, sets
// partial credit, and FAILs the check when the credit is zero.
void grade_performance(const std::string& lab, const Launch& candidate, const Launch& reference,
                       const Workload& work, const TimedRunChecks& checks = {});

// make() returns a launch after a lab's untimed preparation (a texture made, a mask set); an
// exception from it fails the check with "not timed: <what>" (e.g. a prepare step that wrote to
// its const host input).
Launch prepared_launch(const std::function<Launch()>& make);

// The harness self-check: the reference against itself must give r in [0.9, 1.1].
void check_timing_harness(const Launch& reference, const Workload& work);

}  // namespace cudalab::grade
