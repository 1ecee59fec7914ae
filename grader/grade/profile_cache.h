// The reference's profile of a performance check, kept from one grade to the next (the grade
// command's schedule_profiles, grade.cpp). Each profiled performance check runs its case twice more
// with a process's counters read: once the candidate's, once the reference's. The reference's
// figures depend only on the reference, the case and the GPU, so a grade on the same GPU with the
// same build and seed reuses them: one counted process less per profiled lab, in the lane where the
// counted processes take turns (a class batch grades every submission's labs; a student grades the
// same lab again and again). The candidate's side is always measured.
//
// A cache entry is a small text file named after the lab and the check, holding the key it was
// made under (any text: what the figures depend on) and the figures. An entry whose key differs, or
// that cannot be read whole, is a miss; the grade then runs the reference's profile as before and
// stores what it measured. Entries are written to a temporary name and renamed, so a reader never
// sees half of one.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace cudalab::grade {

using ProfileFigures = std::map<std::string, double>;

// The figures kept for `lab`'s check `check` in `dir`, if they were stored under exactly `key`.
std::optional<ProfileFigures> load_profile(const std::string& dir, const std::string& lab,
                                           const std::string& check, const std::string& key);

// Keeps `figures` for `lab`'s check `check` in `dir` (created if missing) under `key`. Whether
// they were written; a folder that cannot be written is not an error (the next grade measures
// again).
bool store_profile(const std::string& dir, const std::string& lab, const std::string& check,
                   const std::string& key, const ProfileFigures& figures);

// What a file is, for a key: its path, size and modification time ("<path> missing" when it is
// not there), so that a rebuilt file makes a new key.
std::string file_identity(const std::string& path);

}  // namespace cudalab::grade
