#include "profile_cache.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

namespace cudalab::grade {

namespace {

namespace fs = std::filesystem;

constexpr const char* kHeader = "cudalab reference profile 1";

// The entry's file: the lab and the check's name, every character but letters and digits made '-'.
fs::path entry_path(const std::string& dir, const std::string& lab, const std::string& check) {
  std::string name = "lab" + lab + "-";
  for (const char ch : check) {
    const bool plain =
        (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9');
    name += plain ? ch : '-';
  }
  return fs::path(dir) / (name + ".txt");
}

// The key's lines, each prefixed so that no key line can pass for a figure.
std::string key_lines(const std::string& key) {
  std::string out;
  std::istringstream in(key);
  std::string line;
  while (std::getline(in, line)) out += "k " + line + "\n";
  return out;
}

}  // namespace

std::optional<ProfileFigures> load_profile(const std::string& dir, const std::string& lab,
                                           const std::string& check, const std::string& key) {
  if (dir.empty()) return std::nullopt;
  std::ifstream in(entry_path(dir, lab, check));
  if (!in) return std::nullopt;
  std::string line, keys;
  if (!std::getline(in, line) || line != kHeader) return std::nullopt;
  ProfileFigures figures;
  bool ended = false;
  while (std::getline(in, line)) {
    if (ended) return std::nullopt;  // nothing after the end line
    if (line.rfind("k ", 0) == 0) {
      if (!figures.empty()) return std::nullopt;  // the key comes first, whole
      keys += line + "\n";
    } else if (line.rfind("f ", 0) == 0) {
      const std::size_t space = line.rfind(' ');
      if (space <= 2) return std::nullopt;
      const std::string name = line.substr(2, space - 2), text = line.substr(space + 1);
      char* end = nullptr;
      errno = 0;
      const double value = std::strtod(text.c_str(), &end);
      if (text.empty() || end == nullptr || *end != '\0' || errno != 0) return std::nullopt;
      figures[name] = value;
    } else if (line == "end") {
      ended = true;
    } else {
      return std::nullopt;
    }
  }
  // Written whole (the end line) under exactly this key, with something in it.
  if (!ended || keys != key_lines(key) || figures.empty()) return std::nullopt;
  return figures;
}

bool store_profile(const std::string& dir, const std::string& lab, const std::string& check,
                   const std::string& key, const ProfileFigures& figures) {
  if (dir.empty() || figures.empty()) return false;
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path path = entry_path(dir, lab, check);
  const fs::path temporary = path.string() + ".tmp-" + std::to_string(getpid());
  {
    std::ofstream out(temporary, std::ios::trunc);
    if (!out) return false;
    out << kHeader << "\n" << key_lines(key);
    char value[64];
    for (const auto& [name, figure] : figures) {
      if (name.empty() || name.find_first_of(" \n") != std::string::npos) continue;
      std::snprintf(value, sizeof value, "%.17g", figure);
      out << "f " << name << " " << value << "\n";
    }
    out << "end\n";
    out.flush();
    if (!out) {
      fs::remove(temporary, ec);
      return false;
    }
  }
  std::error_code renamed;
  fs::rename(temporary, path, renamed);
  if (renamed) fs::remove(temporary, ec);
  return !renamed;
}

std::string file_identity(const std::string& path) {
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return path + " missing";
  const auto time = fs::last_write_time(path, ec);
  if (ec) return path + " missing";
  return path + " " + std::to_string(size) + " " + std::to_string(time.time_since_epoch().count());
}

}  // namespace cudalab::grade
