// A string- and bracket-aware scan for one member's text (common/json_member_scan.hpp).
#include "common/json_member_scan.hpp"

namespace lynx {

namespace {
// The index just past the string that starts at text[at] == '"', or npos if it does not close.
size_t skip_string(std::string_view text, size_t at) {
  for (size_t i = at + 1; i < text.size(); ++i) {
    if (text[i] == '\\') ++i;
    else if (text[i] == '"') return i + 1;
  }
  return std::string_view::npos;
}

size_t skip_space(std::string_view text, size_t at) {
  while (at < text.size() && (text[at] == ' ' || text[at] == '\t' || text[at] == '\n' || text[at] == '\r')) ++at;
  return at;
}

// The index just past the object or array that starts at text[at], or npos.
size_t skip_container(std::string_view text, size_t at) {
  size_t depth = 0;
  for (size_t i = at; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      i = skip_string(text, i);
      if (i == std::string_view::npos) return i;
      --i;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (c == '}' || c == ']') {
      if (--depth == 0) return i + 1;
    }
  }
  return std::string_view::npos;
}

// The value of member `key` of the object that starts at text[at] == '{': its start, or npos.
size_t member_value(std::string_view text, size_t at, const std::string& key) {
  size_t i = skip_space(text, at + 1);
  while (i < text.size() && text[i] == '"') {
    const size_t key_end = skip_string(text, i);
    if (key_end == std::string_view::npos) return key_end;
    const std::string_view name = text.substr(i + 1, key_end - i - 2);
    i = skip_space(text, key_end);
    if (i >= text.size() || text[i] != ':') return std::string_view::npos;
    i = skip_space(text, i + 1);
    if (i >= text.size()) return std::string_view::npos;
    if (name == key) return i;
    // Skip the value: a container, a string or a scalar up to the next ',' or '}'.
    if (text[i] == '{' || text[i] == '[') i = skip_container(text, i);
    else if (text[i] == '"') i = skip_string(text, i);
    else
      while (i < text.size() && text[i] != ',' && text[i] != '}') ++i;
    if (i == std::string_view::npos) return i;
    i = skip_space(text, i);
    if (i >= text.size() || text[i] != ',') return std::string_view::npos;
    i = skip_space(text, i + 1);
  }
  return std::string_view::npos;
}
}  // namespace

std::string_view json_member_text(std::string_view text, const std::vector<std::string>& keys) {
  size_t at = skip_space(text, 0);
  for (const std::string& key : keys) {
    if (at >= text.size() || text[at] != '{') return {};
    at = member_value(text, at, key);
    if (at == std::string_view::npos) return {};
  }
  if (at >= text.size() || (text[at] != '{' && text[at] != '[')) return {};
  const size_t end = skip_container(text, at);
  if (end == std::string_view::npos) return {};
  return text.substr(at, end - at);
}

}  // namespace lynx
