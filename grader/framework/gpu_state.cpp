#include "gpu_state.h"

#include <cuda_runtime.h>
#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <mutex>

namespace cudalab::grade {

namespace {

// The few NVML entry points used, by their documented C signatures (nvml.h is not part of every
// toolkit install; the library is the driver's).
using nvmlReturn = int;  // NVML_SUCCESS is 0
using nvmlDevice = void*;
constexpr unsigned kClockSm = 1, kClockMemory = 2;  // nvmlClockType_t
constexpr unsigned kTemperatureGpu = 0;             // nvmlTemperatureSensors_t

struct Nvml {
  nvmlReturn (*init)() = nullptr;
  nvmlReturn (*by_pci_bus_id)(const char*, nvmlDevice*) = nullptr;
  nvmlReturn (*clock)(nvmlDevice, unsigned, unsigned*) = nullptr;
  nvmlReturn (*temperature)(nvmlDevice, unsigned, unsigned*) = nullptr;
  nvmlReturn (*power)(nvmlDevice, unsigned*) = nullptr;  // milliwatts
  nvmlReturn (*reasons)(nvmlDevice, unsigned long long*) = nullptr;
  std::string error;  // why it cannot be used; empty when it can
};

template <typename Fn>
void find(void* lib, const char* name, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
}

const Nvml& nvml() {
  static Nvml n;
  static std::once_flag once;
  std::call_once(once, [] {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      n.error = "NVML (libnvidia-ml.so.1) not found";
      return;
    }
    find(lib, "nvmlInit_v2", &n.init);
    find(lib, "nvmlDeviceGetHandleByPciBusId_v2", &n.by_pci_bus_id);
    find(lib, "nvmlDeviceGetClockInfo", &n.clock);
    find(lib, "nvmlDeviceGetTemperature", &n.temperature);
    find(lib, "nvmlDeviceGetPowerUsage", &n.power);
    // Renamed "clocks event reasons" in newer drivers; the old name stays.
    find(lib, "nvmlDeviceGetCurrentClocksThrottleReasons", &n.reasons);
    if (n.reasons == nullptr) find(lib, "nvmlDeviceGetCurrentClocksEventReasons", &n.reasons);
    if (n.init == nullptr || n.by_pci_bus_id == nullptr || n.clock == nullptr ||
        n.temperature == nullptr || n.power == nullptr || n.reasons == nullptr) {
      n.error = "NVML lacks a function the grader reads";
      return;
    }
    if (const nvmlReturn r = n.init(); r != 0)
      n.error = "NVML did not start (error " + std::to_string(r) + ")";
  });
  return n;
}

}  // namespace

std::string throttle_reason_names(unsigned long long mask) {
  static const std::pair<unsigned long long, const char*> names[] = {
      {throttle::kGpuIdle, "idle"},
      {throttle::kApplicationsClocks, "application clocks"},
      {throttle::kSwPowerCap, "power cap (software)"},
      {throttle::kHwSlowdown, "slowdown (hardware)"},
      {throttle::kSyncBoost, "sync boost"},
      {throttle::kSwThermal, "thermal slowdown (software)"},
      {throttle::kHwThermal, "thermal slowdown (hardware)"},
      {throttle::kHwPowerBrake, "power brake (hardware)"},
      {throttle::kDisplayClocks, "display clocks"}};
  std::string text;
  for (const auto& [bit, name] : names)
    if ((mask & bit) != 0) text += (text.empty() ? "" : ", ") + std::string(name);
  const unsigned long long known = 0x1ff;
  if ((mask & ~known) != 0) {
    char other[40];
    std::snprintf(other, sizeof other, "other (0x%llx)", mask & ~known);
    text += (text.empty() ? "" : ", ") + std::string(other);
  }
  return text.empty() ? "none" : text;
}

unsigned long long GpuReadings::slowing() const {
  unsigned long long seen = 0;
  for (const GpuReading& r : readings) seen |= r.reasons;
  return seen & throttle::kSlowing;
}

std::string GpuReadings::summary() const {
  if (readings.empty()) return "";
  const auto range = [this](auto field, const char* unit, int digits) {
    double lo = 1e300, hi = -1e300;
    for (const GpuReading& r : readings) {
      lo = std::min(lo, static_cast<double>(field(r)));
      hi = std::max(hi, static_cast<double>(field(r)));
    }
    char text[64];
    if (lo == hi)
      std::snprintf(text, sizeof text, "%.*f %s", digits, lo, unit);
    else
      std::snprintf(text, sizeof text, "%.*f to %.*f %s", digits, lo, digits, hi, unit);
    return std::string(text);
  };
  return "SM " + range([](const GpuReading& r) { return r.sm_mhz; }, "MHz", 0) + ", memory " +
         range([](const GpuReading& r) { return r.memory_mhz; }, "MHz", 0) + ", " +
         range([](const GpuReading& r) { return r.temperature_c; }, "C", 0) + ", " +
         range([](const GpuReading& r) { return r.power_w; }, "W", 0) + " (" +
         std::to_string(readings.size()) + " readings)";
}

GpuMonitor::GpuMonitor(int device) {
  const Nvml& n = nvml();
  if (!n.error.empty()) {
    why_not_ = n.error;
    return;
  }
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, device) != cudaSuccess) {
    why_not_ = "the CUDA device's PCI bus id is not known";
    return;
  }
  nvmlDevice d = nullptr;
  if (n.by_pci_bus_id(bus_id, &d) != 0 || d == nullptr) {
    why_not_ = std::string("NVML does not know the device at ") + bus_id;
    return;
  }
  device_ = d;
}

void GpuMonitor::read() {
  if (device_ == nullptr) return;
  const Nvml& n = nvml();
  GpuReading r;
  unsigned milliwatts = 0;
  // A reading NVML refuses stays 0 (some boards give no power reading).
  n.clock(device_, kClockSm, &r.sm_mhz);
  n.clock(device_, kClockMemory, &r.memory_mhz);
  n.temperature(device_, kTemperatureGpu, &r.temperature_c);
  if (n.power(device_, &milliwatts) == 0) r.power_w = milliwatts / 1000.0;
  n.reasons(device_, &r.reasons);
  readings_.readings.push_back(r);
}

}  // namespace cudalab::grade
