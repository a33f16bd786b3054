// "Did you mean" for a misspelt name: the known names closest to it by edit distance (Levenshtein: insertions,
// deletions and substitutions of one character, case-insensitive), within a third of the name's length. Written
// here because no packaged C++ library offers an edit distance for a handful of short names.
#pragma once
#include <string>
#include <vector>

namespace lynx {

// The edit distance between a and b, compared case-insensitively.
size_t edit_distance(const std::string& a, const std::string& b);

// "; did you mean \"x\"?" for the closest of `known` to `name` (several when tied, in `known`'s order), or "" when
// none is within max(1, name's length / 3) edits: to append to an error's "unknown NAME".
std::string did_you_mean(const std::string& name, const std::vector<std::string>& known);

}  // namespace lynx
