// Check records: the one-line text format a grader writes and the grade command reads back.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "cudalab/catch.h"
#include "record.h"

using cudalab::grade::CheckRecord;
using cudalab::grade::format_record;
using cudalab::grade::parse_record;
using cudalab::grade::read_records;

namespace {

// A record with no message and no measurements.
CheckRecord record(const std::string& name, const std::string& tags, int points, double earned,
                   const std::string& status) {
  return {name, tags, points, earned, status, "", {}};
}

CheckRecord sample_record() {
  CheckRecord r =
      record("tricky\tname with \\ and\nnewline", "[lab01][perf]", 20, 13.3333333, "partial");
  r.message = "line one\nline two\twith tab\nC:\\path\\n (not a newline)";
  r.measurements = {{"ratio", 1.8765432109}, {"candidate_gbs", 1234.5678901}, {"samples", 40}};
  return r;
}

// A record line built by hand: "check" and the seven fields after it.
std::string line_of(const std::string& name, const std::string& points, const std::string& status,
                    const std::string& message, const std::string& measurements) {
  return "check\t" + name + "\t[lab01]\t" + points + "\t1\t" + status + "\t" + message + "\t" +
         measurements;
}

// A temporary file removed when the test ends, pass or fail.
class TempFile {
 public:
  TempFile() {
    char pattern[] = "/tmp/cudalab-record-test-XXXXXX";
    const int fd = mkstemp(pattern);
    if (fd < 0) throw std::runtime_error("mkstemp failed");
    close(fd);
    path_ = pattern;
  }
  ~TempFile() { std::remove(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace

TEST_CASE("a record survives format then parse, escapes included", "[grader][record]") {
  const CheckRecord r = sample_record();
  const std::string line = format_record(r);
  CAPTURE(line);
  REQUIRE(line.find('\n') == std::string::npos);  // one record, one line

  const CheckRecord back = parse_record(line);
  CHECK(back.name == r.name);
  CHECK(back.tags == r.tags);
  CHECK(back.points == r.points);
  CHECK(back.earned == Approx(r.earned).epsilon(1e-9));
  CHECK(back.status == r.status);
  CHECK(back.message == r.message);
  REQUIRE(back.measurements.size() == r.measurements.size());
  for (const auto& [key, value] : r.measurements) {
    CAPTURE(key, value);
    REQUIRE(back.measurements.count(key) == 1);
    CHECK(back.measurements.at(key) == Approx(value).epsilon(1e-9));
  }
}

TEST_CASE("a record with empty message and no measurements round-trips", "[grader][record]") {
  const CheckRecord r = record("worked example", "[lab01][correctness]", 10, 10, "passed");
  const CheckRecord back = parse_record(format_record(r));
  CHECK(back.name == r.name);
  CHECK(back.points == 10);
  CHECK(back.earned == 10.0);
  CHECK(back.status == "passed");
  CHECK(back.message.empty());
  CHECK(back.measurements.empty());
}

TEST_CASE("a NaN measurement round-trips as NaN", "[grader][record]") {
  CheckRecord r = sample_record();
  r.measurements = {{"ratio", std::numeric_limits<double>::quiet_NaN()}};
  const CheckRecord back = parse_record(format_record(r));
  REQUIRE(back.measurements.count("ratio") == 1);
  CHECK(std::isnan(back.measurements.at("ratio")));
}

TEST_CASE("parse_record rejects malformed lines", "[grader][record]") {
  const std::string valid = line_of("n", "5", "passed", "", "");
  REQUIRE_NOTHROW(parse_record(valid));  // the baseline is valid

  struct Malformed {
    std::string problem;
    std::vector<std::string> lines;
  };
  const auto measurements = [](const std::string& text) {
    return line_of("n", "5", "passed", "", text);
  };
  const std::vector<Malformed> cases = {
      {"wrong field count", {"check\tn\t[lab01]\t5\t1\tpassed\tmsg", valid + "\textra", ""}},
      {"first field is not 'check'", {"chek" + valid.substr(5)}},
      {"non-numeric points",
       {line_of("n", "five", "passed", "", ""), line_of("n", "5x", "passed", "", ""),
        line_of("n", "", "passed", "", "")}},
      {"unknown status", {line_of("n", "5", "ok", "", ""), line_of("n", "5", "PASSED", "", "")}},
      {"unknown escape", {line_of("n", "5", "passed", "bad \\q escape", "")}},
      {"dangling backslash", {line_of("n\\", "5", "passed", "", "")}},
      {"measurement without '=' or key",
       {measurements("ratio"), measurements("ratio=1.5,gbs"), measurements("=1.5")}},
      {"measurement value that is not a number",
       {measurements("ratio=fast"), measurements("ratio=")}},
  };
  for (const Malformed& c : cases)
    for (const std::string& line : c.lines) {
      CAPTURE(c.problem, line);
      CHECK_THROWS_AS(parse_record(line), std::invalid_argument);
    }
}

TEST_CASE("read_records reads every record of a file", "[grader][record]") {
  TempFile file;
  CheckRecord second = sample_record();
  second.name = "second";
  second.status = "failed";
  second.earned = 0;
  {
    std::ofstream out(file.path());
    out << format_record(sample_record()) << "\n\n" << format_record(second) << "\n";
  }
  const auto records = read_records(file.path());
  REQUIRE(records.size() == 2);  // the blank line is ignored
  CHECK(records[0].name == sample_record().name);
  CHECK(records[0].status == "partial");
  CHECK(records[1].name == "second");
  CHECK(records[1].status == "failed");
  CHECK(records[1].measurements.size() == 3);
}

TEST_CASE("read_records throws on a file with a malformed line", "[grader][record]") {
  TempFile file;
  {
    std::ofstream out(file.path());
    out << format_record(sample_record()) << "\n"
        << "check\tonly three\tfields\n";
  }
  REQUIRE_THROWS_AS(read_records(file.path()), std::invalid_argument);
}
