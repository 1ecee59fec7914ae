#include "cudalab/device_info.h"

#include <algorithm>
#include <cstdio>

#include "cudalab/check.h"
#include "cudalab/device_buffer.h"
#include "cudalab/json.h"
#include "cudalab/timing.h"

namespace cudalab {

bool has_cuda_device(std::string* reason) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess || count == 0) {
    if (reason != nullptr) {
      *reason = "no CUDA device";
      if (status != cudaSuccess) *reason += std::string(" (") + cudaGetErrorString(status) + ")";
    }
    cudaGetLastError();  // clear the non-sticky error so later queries start clean
    return false;
  }
  return true;
}

int fp32_lanes_per_sm(int cc_major, int cc_minor) {
  switch (cc_major) {
    case 6: return cc_minor == 0 ? 64 : 128;
    case 7: return 64;                        // Volta, Turing
    case 8: return cc_minor == 0 ? 64 : 128;  // A100: 64; GA10x, Ada: 128
    default: return 128;                      // Hopper, Blackwell and later
  }
}

double fp32_peak_gflops(int sm_count, int sm_clock_khz, int lanes_per_sm) {
  // 2 flops per FMA per lane per clock.
  return 2.0 * sm_count * lanes_per_sm * (sm_clock_khz * 1e3) / 1e9;
}

double dram_theoretical_gbs(int memory_clock_khz, int bus_bits) {
  // Double data rate: two transfers per memory clock, bus_bits / 8 bytes each.
  return 2.0 * (memory_clock_khz * 1e3) * (bus_bits / 8.0) / 1e9;
}

namespace detail {
void launch_copy_float4(const void* src, void* dst, std::size_t bytes, int sm_count,
                        cudaStream_t stream);
}  // namespace detail

double measure_copy_bandwidth_gbs(std::size_t bytes) {
  int device = 0, l2 = 0, sms = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  if (bytes == 0) {
    // Large enough that launch and ramp-up costs vanish (1 GiB, at least 4x the L2), small
    // enough to fit twice in what is free.
    std::size_t free = 0, total = 0;
    CUDA_CHECK(cudaMemGetInfo(&free, &total));
    bytes =
        std::max<std::size_t>(std::size_t{4} * static_cast<std::size_t>(l2), std::size_t{1} << 30);
    bytes = std::min(bytes, free / 3);
  }
  bytes = bytes / 16 * 16;
  DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  CUDA_CHECK(cudaMemset(src.data(), 1, bytes));
  Stream stream;
  // Two ways to copy; the faster one is the practical limit a memory-bound kernel can reach.
  const Launch ways[] = {
      [&](cudaStream_t s) {
        CUDA_CHECK(cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, s));
      },
      [&](cudaStream_t s) { detail::launch_copy_float4(src.data(), dst.data(), bytes, sms, s); },
  };
  TimingOptions options;
  options.min_samples = 10;
  options.max_samples = 10;
  options.flush_l2 = false;  // the buffers are 4x the L2: nothing useful stays cached
  const auto t = time_interleaved({ways[0], ways[1]}, stream.get(), options);
  CUDA_CHECK(cudaGetLastError());
  const double best_ms = std::min(t[0].median_ms, t[1].median_ms);
  return 2.0 * static_cast<double>(bytes) / (best_ms * 1e-3) / 1e9;
}

DeviceInfo query_device(int id, bool measure_copy) {
  DeviceInfo d;
  d.id = id;
  cudaDeviceProp prop{};
  CUDA_CHECK(cudaGetDeviceProperties(&prop, id));
  d.name = prop.name;
  char hex[3];
  d.uuid = "GPU-";
  for (int i = 0; i < 16; ++i) {
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(prop.uuid.bytes[i]));
    d.uuid += hex;
    if (i == 3 || i == 5 || i == 7 || i == 9) d.uuid += '-';
  }
  CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  d.cc_major = prop.major;
  d.cc_minor = prop.minor;
  d.sm_count = prop.multiProcessorCount;
  d.l2_bytes = static_cast<std::size_t>(prop.l2CacheSize);
  d.global_memory_bytes = prop.totalGlobalMem;
  d.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
  d.memory_bus_bits = prop.memoryBusWidth;
  // Clocks through attributes: cudaDeviceProp lost its clock fields in CUDA 13.
  CUDA_CHECK(cudaDeviceGetAttribute(&d.sm_clock_khz, cudaDevAttrClockRate, id));
  CUDA_CHECK(cudaDeviceGetAttribute(&d.memory_clock_khz, cudaDevAttrMemoryClockRate, id));
  d.fp32_peak_gflops =
      fp32_peak_gflops(d.sm_count, d.sm_clock_khz, fp32_lanes_per_sm(d.cc_major, d.cc_minor));
  d.dram_theoretical_gbs = dram_theoretical_gbs(d.memory_clock_khz, d.memory_bus_bits);
  if (measure_copy) {
    CUDA_CHECK(cudaSetDevice(id));
    d.copy_bandwidth_gbs = measure_copy_bandwidth_gbs();
  }
  return d;
}

}  // namespace cudalab

namespace cudalab {

void write_device_json(JsonWriter& w, const DeviceInfo& d) {
  w.begin_object()
      .field("name", d.name)
      .field("compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor))
      .field("sm_count", d.sm_count)
      .field("sm_clock_mhz", d.sm_clock_khz / 1000.0)
      .field("memory_clock_mhz", d.memory_clock_khz / 1000.0)
      .field("memory_bus_bits", d.memory_bus_bits)
      .field("l2_bytes", d.l2_bytes)
      .field("global_memory_bytes", d.global_memory_bytes)
      .field("copy_bandwidth_gbs", d.copy_bandwidth_gbs)
      .field("dram_theoretical_gbs", d.dram_theoretical_gbs)
      .field("fp32_peak_gflops", d.fp32_peak_gflops)
      .end_object();
}

std::string describe_device(const DeviceInfo& d) {
  char line[512];
  std::snprintf(line, sizeof line,
                "%s (sm_%d%d, %d SMs at %.0f MHz, %.0f MiB L2): measured copy bandwidth %.0f GB/s "
                "(DRAM theoretical %.0f GB/s), FP32 peak %.1f TFLOP/s",
                d.name.c_str(), d.cc_major, d.cc_minor, d.sm_count, d.sm_clock_khz / 1000.0,
                d.l2_bytes / 1048576.0, d.copy_bandwidth_gbs, d.dram_theoretical_gbs,
                d.fp32_peak_gflops / 1000.0);
  return line;
}

}  // namespace cudalab
