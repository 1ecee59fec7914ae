// What the runners print and write alike: the device line they start with, the bandwidth
// columns of their tables (ms, GB/s and "% copy", that rate over the copy bandwidth measured at
// start-up), the line of a single checked run, and their JSON files.
#pragma once

#include <string>

#include "cudalab/device_info.h"
#include "cudalab/json.h"
#include "cudalab/timing.h"

namespace cudalab {

// require_cuda_device(), then device 0 queried (copy bandwidth measured) and its one-line
// description printed: the first line of every runner's output.
DeviceInfo open_device();

// The last columns of a bandwidth table, after the runner's own ones and a space:
// "ms GB/s % copy status". A row whose status is not "ok" shows "-" and the status.
void print_bandwidth_header_columns();
void print_bandwidth_columns(const std::string& status, double ms, double gbs,
                             const DeviceInfo& dev);

// A single checked run: "<label>: WRONG: <problem> (not timed)", or
// "<label>: correct, <ms> ms (rse <%>), <GB/s> GB/s = <%> of copy".
void print_not_timed(const std::string& label, const std::string& wrong);
void print_bandwidth_result(const std::string& label, const Timing& t, double gbs,
                            const DeviceInfo& dev);

// "device": {...} (write_device_json) in the object being written.
void write_device_field(JsonWriter& w, const DeviceInfo& dev);
// The fields of a timed bandwidth row: ms, rse, gbs and pct_copy.
void write_bandwidth_fields(JsonWriter& w, double ms, double rse, double gbs,
                            const DeviceInfo& dev);
// Writes the finished document to `path` and says so ("\nwrote <path>").
void save_json(const JsonWriter& w, const std::string& path);

}  // namespace cudalab
