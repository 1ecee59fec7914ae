// What the runners print and write alike: the device line they start with, the bandwidth
// columns of their tables (ms, GB/s and "% copy", that rate over the copy bandwidth measured at
// start-up), the line of a single checked run, and their JSON files.
#pragma once

#include <cstdint>
#include <fstream>
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
// A runner's JSON document begun: {"lab": <lab>, "device": {...}; the runner writes the rest.
JsonWriter begin_lab_json(const std::string& lab, const DeviceInfo& dev);
// The fields of a timed bandwidth row: ms, rse, gbs and pct_copy.
void write_bandwidth_fields(JsonWriter& w, double ms, double rse, double gbs,
                            const DeviceInfo& dev);
// A bandwidth row's "status", then its write_bandwidth_fields() when the status is "ok".
void write_status_and_bandwidth(JsonWriter& w, const std::string& status, double ms, double rse,
                                double gbs, const DeviceInfo& dev);
// "rows": [...] in the object being written: an object a row, its fields written by `fields(row)`.
template <class Rows, class Fields>
void write_rows_field(JsonWriter& w, const Rows& rows, Fields fields) {
  w.key("rows").begin_array();
  for (const auto& r : rows) {
    w.begin_object();
    fields(r);
    w.end_object();
  }
  w.end_array();
}
// Writes the finished document to `path` and says so ("\nwrote <path>").
void save_json(const JsonWriter& w, const std::string& path);

// Writes the JSON file of a single timed run to `path`, without a word: begin_lab_json, the
// runner's own fields (`fields(w)`), then "seed", "ms" and "gbs".
template <class Fields>
void write_run_json(const std::string& path, const std::string& lab, const DeviceInfo& dev,
                    Fields fields, std::uint64_t seed, double ms, double gbs) {
  JsonWriter w = begin_lab_json(lab, dev);
  fields(w);
  w.field("seed", static_cast<std::int64_t>(seed)).field("ms", ms).field("gbs", gbs).end_object();
  std::ofstream(path) << w.str();
}

}  // namespace cudalab
