// The GPU's state during timing (framework/gpu_state.h): the throttle reasons in words, the summary
// of readings, and a monitor without NVML that says why and reads nothing.
#include <string>

#include "cudalab/catch.h"
#include "gpu_state.h"

using namespace cudalab::grade;

TEST_CASE("throttle reasons in words; only power and thermal limits count as slowing",
          "[grader][gpu-state]") {
  CHECK(throttle_reason_names(0) == "none");
  CHECK(throttle_reason_names(throttle::kGpuIdle) == "idle");
  CHECK(throttle_reason_names(throttle::kSwPowerCap | throttle::kHwThermal) ==
        "power cap (software), thermal slowdown (hardware)");
  CHECK(throttle_reason_names(0x1000) == "other (0x1000)");
  GpuReadings r;
  r.readings = {{1980, 2619, 41, 120.0, throttle::kGpuIdle},
                {1755, 2619, 44, 310.4, throttle::kSwPowerCap}};
  CHECK(r.slowing() == throttle::kSwPowerCap);
  CHECK(r.summary() ==
        "SM 1755 to 1980 MHz, memory 2619 MHz, 41 to 44 C, 120 to 310 W (2 readings)");
  r.readings.pop_back();
  CHECK(r.slowing() == 0);  // idle between samples is not a slowdown
  CHECK(GpuReadings{}.summary().empty());
}

TEST_CASE("a monitor without the device says why and reads nothing", "[grader][gpu-state]") {
  // On a machine without a driver NVML is absent; with one, device 99 does not exist. Either way
  // nothing is read and the reason is one line.
  GpuMonitor m(99);
  CHECK_FALSE(m.available());
  CHECK_FALSE(m.why_not().empty());
  CHECK(m.why_not().find('\n') == std::string::npos);
  m.read();
  CHECK(m.readings().readings.empty());
}
