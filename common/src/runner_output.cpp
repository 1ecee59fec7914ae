#include "cudalab/runner_output.h"

#include <cstdio>
#include <fstream>
#include <iostream>

#include "cudalab/cli.h"

namespace cudalab {

DeviceInfo open_device() {
  require_cuda_device();
  const DeviceInfo dev = query_device(0);
  std::cout << describe_device(dev) << "\n";
  return dev;
}

void print_bandwidth_header_columns() {
  std::printf("%10s %9s %7s  %s\n", "ms", "GB/s", "% copy", "status");
}

void print_bandwidth_columns(const std::string& status, double ms, double gbs,
                             const DeviceInfo& dev) {
  if (status == "ok")
    std::printf("%10.4f %9.0f %6.1f%%  ok\n", ms, gbs, 100 * gbs / dev.copy_bandwidth_gbs);
  else
    std::printf("%10s %9s %7s  %s\n", "-", "-", "-", status.c_str());
}

void print_not_timed(const std::string& label, const std::string& wrong) {
  std::printf("%s: WRONG: %s (not timed)\n", label.c_str(), wrong.c_str());
}

void print_bandwidth_result(const std::string& label, const Timing& t, double gbs,
                            const DeviceInfo& dev) {
  std::printf("%s: correct, %.4f ms (rse %.1f%%), %.0f GB/s = %.1f%% of copy\n", label.c_str(),
              t.median_ms, 100 * t.rse, gbs, 100 * gbs / dev.copy_bandwidth_gbs);
}

void write_device_field(JsonWriter& w, const DeviceInfo& dev) {
  w.key("device");
  write_device_json(w, dev);
}

JsonWriter begin_lab_json(const std::string& lab, const DeviceInfo& dev) {
  JsonWriter w;
  w.begin_object().field("lab", lab);
  write_device_field(w, dev);
  return w;
}

void write_bandwidth_fields(JsonWriter& w, double ms, double rse, double gbs,
                            const DeviceInfo& dev) {
  w.field("ms", ms)
      .field("rse", rse)
      .field("gbs", gbs)
      .field("pct_copy", 100 * gbs / dev.copy_bandwidth_gbs);
}

void write_status_and_bandwidth(JsonWriter& w, const std::string& status, double ms, double rse,
                                double gbs, const DeviceInfo& dev) {
  w.field("status", status);
  if (status == "ok") write_bandwidth_fields(w, ms, rse, gbs, dev);
}

void save_json(const JsonWriter& w, const std::string& path) {
  std::ofstream(path) << w.str();
  std::cout << "\nwrote " << path << "\n";
}

}  // namespace cudalab
