#include "variant.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <sstream>

namespace cudalab::grade {

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

constexpr const char* kKeys =
    "(Cause, Symptom, Fix, Base, Run, Link, Timeout, Judged, Expect, Points)";

[[noreturn]] void fail_at(int line, const std::string& what) {
  throw VariantError("line " + std::to_string(line) + ": " + what);
}

Expectation::Status parse_status(const std::string& word, int line) {
  if (word == "pass") return Expectation::Status::pass;
  if (word == "fail") return Expectation::Status::fail;
  if (word == "partial") return Expectation::Status::partial;
  if (word == "lose") return Expectation::Status::lose;
  fail_at(line, "Expect: unknown status '" + word + "' (pass, fail, partial or lose)");
}

const char* status_word(Expectation::Status s) {
  switch (s) {
    case Expectation::Status::pass: return "pass";
    case Expectation::Status::fail: return "fail";
    case Expectation::Status::partial: return "partial";
    case Expectation::Status::lose: return "lose";
  }
  return "?";
}

// Expect: <status> "<check>" [/<regex>/]
Expectation parse_expect(const std::string& value, int line) {
  Expectation e;
  e.line = line;
  const auto space = value.find(' ');
  e.status = parse_status(value.substr(0, space), line);
  const std::string rest = space == std::string::npos ? "" : trim(value.substr(space));
  if (rest.empty() || rest[0] != '"')
    fail_at(line, "Expect: the check's name must follow the status, in double quotes");
  const auto close = rest.find('"', 1);
  if (close == std::string::npos) fail_at(line, "Expect: the check's name has no closing quote");
  e.check = rest.substr(1, close - 1);
  if (e.check.empty()) fail_at(line, "Expect: empty check name");
  const std::string tail = trim(rest.substr(close + 1));
  if (!tail.empty()) {
    if (tail.size() < 3 || tail.front() != '/' || tail.back() != '/')
      fail_at(line, "Expect: after the check's name, only a /regular expression/");
    e.pattern = tail.substr(1, tail.size() - 2);
    try {
      e.regex = std::regex(e.pattern, std::regex::ECMAScript);
    } catch (const std::regex_error& err) {
      fail_at(line, "Expect: bad regular expression /" + e.pattern + "/: " + err.what());
    }
  }
  return e;
}

// Points: <op> <number>
PointsBound parse_points(const std::string& value, int line) {
  PointsBound b;
  b.line = line;
  for (const char* op : {"<=", ">=", "<", ">", "="}) {
    if (value.rfind(op, 0) == 0) {
      b.op = op;
      break;
    }
  }
  if (b.op.empty())
    fail_at(line, "Points: needs <=, <, >=, > or = and a number, e.g. 'Points: <= 90'");
  const std::string number = trim(value.substr(b.op.size()));
  char* end = nullptr;
  b.value = std::strtod(number.c_str(), &end);
  if (number.empty() || *end != '\0' || !std::isfinite(b.value) || b.value < 0 || b.value > 1e6)
    fail_at(line, "Points: '" + number + "' is not a number of points");
  return b;
}

// The message on one line (a regular expression's '.' does not cross lines).
std::string flat(const std::string& s) {
  std::string out = s;
  std::replace(out.begin(), out.end(), '\n', ' ');
  return out;
}

std::string first_lines(const std::string& s, int n) {
  std::string out;
  std::istringstream in(s);
  std::string line;
  int kept = 0;
  while (kept < n && std::getline(in, line)) out += (kept++ ? "\n    " : "") + line;
  if (std::getline(in, line)) out += "\n    ...";
  return out.empty() ? "(no message)" : out;
}

bool status_matches(Expectation::Status want, const std::string& seen) {
  switch (want) {
    case Expectation::Status::pass: return seen == "passed";
    case Expectation::Status::fail: return seen == "failed";
    case Expectation::Status::partial: return seen == "partial";
    case Expectation::Status::lose: return seen == "failed" || seen == "partial";
  }
  return false;
}

std::string describe(const Expectation& e) {
  return std::string(status_word(e.status)) + (e.pattern.empty() ? "" : " /" + e.pattern + "/");
}

std::string points_text(double p) {
  std::ostringstream out;
  out << p;
  return out.str();
}

// Glob match with '*' only, on the whole text.
bool glob(const std::string& pattern, const std::string& text) {
  std::size_t p = 0, t = 0, star = std::string::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string cell(const std::string& s) {
  std::string out;
  for (const char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

}  // namespace

Variant parse_variant(const std::string& text, const std::string& name) {
  Variant v;
  v.name = name;
  const auto lines = lines_of(text);
  std::string* last = nullptr;  // the value a continuation line extends
  bool seen_base = false, seen_run = false, seen_link = false, seen_timeout = false,
       seen_judged = false;
  std::size_t i = 0;
  for (; i < lines.size(); ++i) {
    const std::string& l = lines[i];
    const int n = static_cast<int>(i) + 1;
    if (l.rfind("--- ", 0) == 0) break;
    if (trim(l).empty() || l[0] == '#') {
      last = nullptr;
      continue;
    }
    if (l[0] == ' ' || l[0] == '\t') {
      if (last == nullptr)
        fail_at(n, "a continuation line (it starts with a space) follows no Symptom, Cause or Fix");
      *last += " " + trim(l);
      continue;
    }
    const auto colon = l.find(':');
    const std::string key = colon == std::string::npos ? "" : l.substr(0, colon);
    if (key.empty() || !std::all_of(key.begin(), key.end(), [](char c) {
          return std::isalpha(static_cast<unsigned char>(c));
        }))
      fail_at(n, std::string("expected 'Key: value' ") + kKeys + ", got '" + l + "'");
    const std::string value = trim(l.substr(colon + 1));
    if (value.empty()) fail_at(n, key + ": no value");
    last = nullptr;
    auto once = [&](bool& seen) {
      if (seen) fail_at(n, key + ": given twice");
      seen = true;
    };
    auto text_field = [&](std::string& field) {
      if (!field.empty()) fail_at(n, key + ": given twice");
      field = value;
      last = &field;
    };
    if (key == "Cause") {
      text_field(v.cause);
    } else if (key == "Symptom") {
      text_field(v.symptom);
    } else if (key == "Fix") {
      text_field(v.fix);
    } else if (key == "Base") {
      once(seen_base);
      if (value != "answer" && value != "skeleton")
        fail_at(n, "Base: '" + value + "' (answer or skeleton)");
      v.base = value;
    } else if (key == "Run") {
      once(seen_run);
      v.run = value;
    } else if (key == "Link") {
      once(seen_link);
      if (value != "rejected" && value != "ok")
        fail_at(n, "Link: '" + value + "' (ok or rejected)");
      v.link_rejected = value == "rejected";
    } else if (key == "Timeout") {
      once(seen_timeout);
      char* end_of_number = nullptr;
      const long t = std::strtol(value.c_str(), &end_of_number, 10);
      if (*end_of_number != '\0' || t < 1 || t > 3600)
        fail_at(n, "Timeout: '" + value + "' (seconds per check, 1 to 3600)");
      v.timeout_s = static_cast<int>(t);
    } else if (key == "Judged") {
      once(seen_judged);
      if (value != "gpu" && value != "anywhere")
        fail_at(n, "Judged: '" + value + "' (gpu or anywhere)");
      v.gpu_only = value == "gpu";
    } else if (key == "Expect") {
      v.expectations.push_back(parse_expect(value, n));
    } else if (key == "Points") {
      v.points.push_back(parse_points(value, n));
    } else {
      fail_at(n, "unknown key '" + key + "' " + kKeys);
    }
  }
  const int end = static_cast<int>(i) + 1;
  if (i == lines.size())
    fail_at(end, "no diff: the variant's change starts at a line '--- <file>'");
  int files = 0, hunks = 0;
  for (std::size_t j = i; j < lines.size(); ++j) {
    v.diff += lines[j] + "\n";
    files += lines[j].rfind("+++ ", 0) == 0;
    hunks += lines[j].rfind("@@ ", 0) == 0;
  }
  if (files != 1 || hunks == 0)
    fail_at(end, "the diff must change one file ('--- ', '+++ ' and at least one '@@' hunk)");
  if (v.cause.empty()) fail_at(end, "no Cause: say what this variant does wrong (or differently)");
  if (v.expectations.empty() && v.points.empty())
    fail_at(end, "no Expect or Points: say what the grade must conclude");
  const bool broken =
      std::any_of(v.expectations.begin(), v.expectations.end(),
                  [](const Expectation& e) { return e.status != Expectation::Status::pass; });
  if (broken && (v.symptom.empty() || v.fix.empty()))
    fail_at(end,
            "a variant that must lose points needs a Symptom and a Fix (the lab page's table)");
  return v;
}

Variant plain_answer_variant() {
  Variant v;
  v.name = "answer";
  v.cause = "the lab's plain correct answer";
  Expectation all;
  all.status = Expectation::Status::pass;
  all.check = "*";
  v.expectations.push_back(all);
  return v;
}

std::vector<std::string> sanitizers_named(const Variant& v) {
  std::vector<std::string> tools;
  const std::string prefix = "compute-sanitizer ";
  for (const auto& e : v.expectations) {
    if (e.check.rfind(prefix, 0) != 0) continue;
    const std::string tool = e.check.substr(prefix.size());
    if (std::find(tools.begin(), tools.end(), tool) == tools.end()) tools.push_back(tool);
  }
  return tools;
}

bool check_matches(const std::string& pattern, const std::string& name, const std::string& tags) {
  if (pattern.size() > 2 && pattern.front() == '[' && pattern.back() == ']')
    return tags.find(pattern) != std::string::npos;
  return glob(pattern, name);
}

Judgement judge(const Variant& v, const std::vector<CheckRecord>& checks) {
  Judgement j;
  bool grading_expected = false;
  for (const auto& e : v.expectations) grading_expected |= e.check == "grading";
  for (const auto& c : checks)
    if (c.name == "grading" && !grading_expected)
      j.violated.push_back("the grade command could not grade the lab: " +
                           first_lines(c.message, 4));

  for (const auto& e : v.expectations) {
    const std::string where = "Expect (line " + std::to_string(e.line) + ") ";
    std::vector<const CheckRecord*> matched;
    for (const auto& c : checks)
      if (check_matches(e.check, c.name, c.tags)) matched.push_back(&c);
    if (matched.empty()) {
      std::string names;
      for (const auto& c : checks) names += (names.empty() ? "" : "; ") + c.name;
      j.violated.push_back(where + "no check matches \"" + e.check + "\" (the checks: " + names +
                           ")");
      continue;
    }
    for (const CheckRecord* c : matched) {
      const std::string check = "check '" + c->name + "'";
      const std::string seen = c->status + " (" + points_text(c->earned) + "/" +
                               std::to_string(c->points) + "): " + first_lines(c->message, 6);
      if (c->status == "skipped") {
        if (c->message.rfind(kNotSelected, 0) == 0)
          j.violated.push_back(where + check + " was not run: Run does not select it");
        else
          j.unverifiable.push_back(check + " skipped: " + first_lines(c->message, 1));
      } else if (!status_matches(e.status, c->status) ||
                 (!e.pattern.empty() && !std::regex_search(flat(c->message), e.regex))) {
        j.violated.push_back(check + ": expected " + describe(e) + ", seen " + seen);
      } else {
        j.verified.push_back(check + ": " + describe(e));
        if (e.status != Expectation::Status::pass) ++j.decisive;
      }
    }
  }

  // Points of the full grade: a skipped check may earn anything from 0 to its maximum.
  double known = 0.0, unknown = 0.0, total = 0.0;
  for (const auto& c : checks) {
    if (c.status == "skipped")
      unknown += c.points;
    else
      known += c.earned;
    total += c.points;
  }
  const double eps = 1e-9;
  // Whether bound `b` holds for every total in [lo, hi], and whether it fails for all of them.
  const auto bound_on = [eps](const PointsBound& b, double lo, double hi, bool* broken) {
    bool holds = false;
    if (b.op == "<=")
      holds = hi <= b.value + eps, *broken = lo > b.value + eps;
    else if (b.op == "<")
      holds = hi < b.value - eps, *broken = lo >= b.value - eps;
    else if (b.op == ">=")
      holds = lo >= b.value - eps, *broken = hi < b.value - eps;
    else if (b.op == ">")
      holds = lo > b.value + eps, *broken = hi <= b.value + eps;
    else
      holds = std::abs(lo - b.value) <= eps && std::abs(hi - b.value) <= eps,
      *broken = b.value < lo - eps || b.value > hi + eps;
    return holds;
  };
  const double lo = known, hi = known + unknown;
  for (const auto& b : v.points) {
    bool broken = false, unused = false;
    const bool holds = bound_on(b, lo, hi, &broken);
    const std::string bound = "Points " + b.op + " " + points_text(b.value);
    const std::string seen =
        lo == hi ? points_text(lo)
                 : "between " + points_text(lo) + " and " + points_text(hi) + " (skipped checks)";
    if (broken) {
      j.violated.push_back("the lab's points: expected " + bound + ", seen " + seen);
    } else if (holds) {
      j.verified.push_back("the lab's points: " + bound + " (" + seen + ")");
      // Decisive unless any grade of the lab would keep it (Points <= the lab's total).
      if (!bound_on(b, 0.0, total, &unused)) ++j.decisive;
    } else {
      j.unverifiable.push_back("the lab's points: " + bound + " depends on skipped checks (" +
                               seen + ")");
    }
  }
  return j;
}

std::string mistakes_markdown(const std::vector<Variant>& variants) {
  std::string table = "| What the grader says | Cause | Fix |\n| --- | --- | --- |\n";
  std::string code;
  for (const auto& v : variants) {
    // A cheat (cheat-*) attacks the grader: it is no mistake a student makes by accident.
    if (v.symptom.empty() || v.name.rfind("cheat-", 0) == 0) continue;
    table += "| " + cell(v.symptom) + " | " + cell(v.cause) + " | " + cell(v.fix) + " |\n";
    std::string hunks;
    bool in_hunks = false;
    for (const auto& l : lines_of(v.diff)) {
      in_hunks |= l.rfind("@@ ", 0) == 0;
      if (in_hunks) hunks += l + "\n";
    }
    code += "\n`" + v.name + "`" + (v.base == "skeleton" ? " (from the skeleton)" : "") +
            ":\n\n```diff\n" + hunks + "```\n";
  }
  return table +
         "\n<details><summary>Each mistake in code (a diff against a correct answer: it shows "
         "parts of one)</summary>\n" +
         code + "\n</details>\n";
}

}  // namespace cudalab::grade
