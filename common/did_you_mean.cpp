#include "common/did_you_mean.hpp"

#include <algorithm>
#include <cctype>

namespace lynx {

size_t edit_distance(const std::string& a, const std::string& b) {
  auto low = [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); };
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (low(a[i - 1]) == low(b[j - 1]) ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& known) {
  const size_t limit = std::max<size_t>(1, name.size() / 3);
  size_t best = limit + 1;
  std::vector<std::string> closest;
  for (const std::string& k : known) {
    const size_t d = edit_distance(name, k);
    if (d == 0 || d > limit) continue;  // equal (but for case): not a misspelling this can help with
    if (d < best) {
      best = d;
      closest.clear();
    }
    if (d == best) closest.push_back(k);
  }
  if (closest.empty()) return "";
  std::string text = "; did you mean ";
  for (size_t i = 0; i < closest.size(); ++i)
    text += (i == 0 ? "" : i + 1 == closest.size() ? " or " : ", ") + ("\"" + closest[i] + "\"");
  return text + "?";
}

}  // namespace lynx
