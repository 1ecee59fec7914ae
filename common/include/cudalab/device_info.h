// What the roofline view needs to know about the GPU: its name and size, and two limits:
//   - copy bandwidth, MEASURED in the same run: the faster of cudaMemcpy device-to-device and a
//     float4 copy kernel, on a 1 GiB buffer (bytes read + bytes written over time); the
//     practical limit of a memory-bound kernel;
//   - FP32 peak = SMs x FP32 lanes per SM x 2 flops per FMA x SM clock.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

namespace cudalab {

// True when a CUDA device can be used; otherwise false and `reason` says why
// ("no CUDA device" followed by the runtime's explanation).
bool has_cuda_device(std::string* reason = nullptr);

struct DeviceInfo {
  int id = 0;
  std::string name;
  std::string uuid;        // "GPU-" and the device's 16 bytes in hex, as nvidia-smi -L shows it
  int driver_version = 0;  // cudaDriverGetVersion: 13000 for CUDA 13.0
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int sm_clock_khz = 0;
  int memory_clock_khz = 0;
  int memory_bus_bits = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_memory_bytes = 0;
  std::size_t shared_memory_per_block_optin = 0;
  double copy_bandwidth_gbs = 0.0;    // measured; 0 when not measured
  double dram_theoretical_gbs = 0.0;  // 2 x memory clock x bus width (double data rate)
  double fp32_peak_gflops = 0.0;
};

// FP32 lanes (CUDA cores) per SM for a compute capability; 64 for unknown future parts is not
// guessed: unknown capabilities return 128, the value of every architecture since 8.6.
int fp32_lanes_per_sm(int cc_major, int cc_minor);
double fp32_peak_gflops(int sm_count, int sm_clock_khz, int lanes_per_sm);
double dram_theoretical_gbs(int memory_clock_khz, int bus_bits);

// Queries device `id`; measures copy bandwidth when `measure_copy` (takes ~0.1 s).
DeviceInfo query_device(int id = 0, bool measure_copy = true);

// Copy bandwidth in GB/s (1e9 bytes/s), counting bytes read plus written: the faster of
// cudaMemcpy and a copy kernel, median of 10 copies of `bytes` bytes each (0 = 1 GiB or 4 x L2,
// whichever is larger, at most a third of the free memory).
double measure_copy_bandwidth_gbs(std::size_t bytes = 0);

}  // namespace cudalab

namespace cudalab {
class JsonWriter;
// Writes `d` as a JSON object (name, sizes, clocks, limits).
void write_device_json(JsonWriter& w, const DeviceInfo& d);
// One line for people: "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 50 MiB L2): copy 3010 GB/s ..."
std::string describe_device(const DeviceInfo& d);
}  // namespace cudalab
