// Roofline arithmetic (FP32 lanes, peak GFLOP/s, DRAM bandwidth) and GPU detection.
#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "cudalab/catch.h"
#include "cudalab/device_info.h"
#include "cudalab/json.h"
#include "test_support.h"

namespace {

// What query_device would report on an H100 SXM, without asking a device.
cudalab::DeviceInfo h100_sxm() {
  cudalab::DeviceInfo d;
  d.name = "NVIDIA H100 80GB HBM3";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.sm_clock_khz = 1980000;
  d.memory_clock_khz = 2619000;
  d.memory_bus_bits = 5120;
  d.l2_bytes = std::size_t{50} << 20;
  d.global_memory_bytes = 85029158912;
  d.copy_bandwidth_gbs = 3010.25;
  d.dram_theoretical_gbs = cudalab::dram_theoretical_gbs(d.memory_clock_khz, d.memory_bus_bits);
  d.fp32_peak_gflops =
      cudalab::fp32_peak_gflops(d.sm_count, d.sm_clock_khz, cudalab::fp32_lanes_per_sm(9, 0));
  return d;
}

struct LanesCase {
  int cc_major;
  int cc_minor;
  int lanes;
};

}  // namespace

TEST_CASE("fp32_lanes_per_sm follows the compute capability", "[common][device_info]") {
  const LanesCase c = GENERATE(LanesCase{7, 0, 64},    // Volta
                               LanesCase{7, 5, 64},    // Turing
                               LanesCase{8, 0, 64},    // A100
                               LanesCase{8, 6, 128},   // GA10x
                               LanesCase{8, 9, 128},   // Ada
                               LanesCase{9, 0, 128},   // Hopper
                               LanesCase{10, 0, 128},  // Blackwell
                               LanesCase{12, 0, 128});
  CAPTURE(c.cc_major, c.cc_minor, c.lanes);
  CHECK(cudalab::fp32_lanes_per_sm(c.cc_major, c.cc_minor) == c.lanes);
}

TEST_CASE("fp32_peak_gflops = SMs x lanes x 2 flops per FMA x clock", "[common][device_info]") {
  // H100 SXM: 132 SMs x 128 lanes x 2 x 1.98 GHz = 66908.16 GFLOP/s.
  CHECK(cudalab::fp32_peak_gflops(132, 1980000, 128) == Approx(66908.16));
  // A100: 108 SMs x 64 lanes x 2 x 1.41 GHz = 19491.84 GFLOP/s.
  CHECK(cudalab::fp32_peak_gflops(108, 1410000, 64) == Approx(19491.84));
  CHECK(cudalab::fp32_peak_gflops(0, 1980000, 128) == 0.0);
}

TEST_CASE("dram_theoretical_gbs = 2 x memory clock x bus bytes", "[common][device_info]") {
  // H100 SXM: 2 x 2.619 GHz x 5120 / 8 bytes = 3352.32 GB/s.
  CHECK(cudalab::dram_theoretical_gbs(2619000, 5120) == Approx(3352.32));
  // A100 40 GB: 2 x 1.215 GHz x 5120 / 8 bytes = 1555.2 GB/s.
  CHECK(cudalab::dram_theoretical_gbs(1215000, 5120) == Approx(1555.2));
  // No integer truncation of bus_bits / 8 for odd widths: 2 x 1 GHz x 12 / 8 = 3 GB/s.
  CHECK(cudalab::dram_theoretical_gbs(1000000, 12) == Approx(3.0));
}

TEST_CASE("has_cuda_device says why no GPU is usable and answers consistently",
          "[common][device_info]") {
  std::string reason = "untouched";
  const bool available = cudalab::has_cuda_device(&reason);
  CAPTURE(available, reason);

  if (available) {
    CHECK(reason == "untouched");
    // No error left pending for the next CUDA call to report. (Without a driver every runtime
    // call, cudaGetLastError included, keeps returning the initialisation error, so this is
    // checked only where a device exists.)
    CHECK(cudaGetLastError() == cudaSuccess);
  } else {
    CHECK(reason.rfind("no CUDA device", 0) == 0);
  }
  CHECK(cudalab::has_cuda_device() == available);
  CHECK_NOTHROW(cudalab::has_cuda_device(nullptr));
}

TEST_CASE("write_device_json writes one object with the roofline fields", "[common][device_info]") {
  cudalab::JsonWriter w;
  w.begin_object().key("device");
  cudalab::write_device_json(w, h100_sxm());
  w.end_object();
  std::string text;
  REQUIRE_NOTHROW(text = w.str());  // balanced
  CAPTURE(text);

  test_support::check_contains_all(
      text, {"\"device\": {\n", "\"name\": \"NVIDIA H100 80GB HBM3\"",
             "\"compute_capability\": \"9.0\"", "\"sm_count\": 132", "\"sm_clock_mhz\": 1980",
             "\"memory_clock_mhz\": 2619", "\"memory_bus_bits\": 5120", "\"l2_bytes\": 52428800",
             "\"global_memory_bytes\": 85029158912", "\"copy_bandwidth_gbs\": 3010.25",
             "\"dram_theoretical_gbs\": 3352.32", "\"fp32_peak_gflops\": 66908.16"});
}

TEST_CASE("describe_device gives one line with the name and size and limits",
          "[common][device_info]") {
  const std::string line = cudalab::describe_device(h100_sxm());
  CAPTURE(line);
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line.rfind("NVIDIA H100 80GB HBM3 (", 0) == 0);
  test_support::check_contains_all(line, {"sm_90", "132 SMs", "1980 MHz", "50 MiB L2",
                                          "copy bandwidth 3010 GB/s", "3352 GB/s", "66.9 TFLOP/s"});
}
