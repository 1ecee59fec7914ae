// The GPU's clocks, temperature, power and throttle reasons while a performance check times
// (issue 28, item 4): read through NVML, the driver's management library (libnvidia-ml.so.1,
// opened at run time, so that a grader starts on a machine without it), in the judge's process.
// A performance verdict taken while the GPU slowed its clocks says so.
#pragma once

#include <string>
#include <vector>

namespace cudalab::grade {

// NVML's clock throttle reasons (nvmlClocksThrottleReason*, the same bits as
// nvidia-smi --query-gpu=clocks_throttle_reasons.active).
namespace throttle {
inline constexpr unsigned long long kGpuIdle = 0x1;
inline constexpr unsigned long long kApplicationsClocks = 0x2;
inline constexpr unsigned long long kSwPowerCap = 0x4;
inline constexpr unsigned long long kHwSlowdown = 0x8;
inline constexpr unsigned long long kSyncBoost = 0x10;
inline constexpr unsigned long long kSwThermal = 0x20;
inline constexpr unsigned long long kHwThermal = 0x40;
inline constexpr unsigned long long kHwPowerBrake = 0x80;
inline constexpr unsigned long long kDisplayClocks = 0x100;
// The reasons that slow a kernel down (idle, application clocks, sync boost and the display are
// not the kernel's conditions).
inline constexpr unsigned long long kSlowing =
    kSwPowerCap | kHwSlowdown | kSwThermal | kHwThermal | kHwPowerBrake;
}  // namespace throttle

// The reasons in `mask`, in words ("power cap (software), thermal slowdown (hardware)"); "none".
std::string throttle_reason_names(unsigned long long mask);

struct GpuReading {
  unsigned sm_mhz = 0, memory_mhz = 0, temperature_c = 0;
  double power_w = 0.0;
  unsigned long long reasons = 0;
};

// The readings of one timing, and what they say.
struct GpuReadings {
  std::vector<GpuReading> readings;
  unsigned long long slowing() const;  // the slowing reasons seen in any reading
  // "SM 1755 to 1980 MHz, memory 2619 MHz, 41 to 44 C, 120 to 310 W (12 readings)".
  std::string summary() const;
};

// Reads CUDA device `device` of this process through NVML. Without NVML (no driver, or a driver
// that does not give it), available() is false and why_not() says why; read() then does nothing.
class GpuMonitor {
 public:
  explicit GpuMonitor(int device = 0);
  bool available() const { return device_ != nullptr; }
  const std::string& why_not() const { return why_not_; }
  void read();  // one reading, added to readings()
  const GpuReadings& readings() const { return readings_; }

 private:
  void* device_ = nullptr;  // nvmlDevice_t
  std::string why_not_;
  GpuReadings readings_;
};

}  // namespace cudalab::grade
