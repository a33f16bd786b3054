#include "traces/json_line.hpp"

#include <cstdint>

namespace lynx {

namespace {
bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

struct Scanner {
  std::string_view text;
  size_t i = 0;
  JsonLineError* error;

  bool fail(const char* reason) {
    error->column = i + 1;
    error->reason = reason;
    return false;
  }
  void skip_space() {
    while (i < text.size() && is_space(text[i])) ++i;
  }
  // At an opening quote: moves past the closing quote; `inner` is the text between them.
  bool string(std::string_view& inner) {
    size_t start = ++i;
    for (; i < text.size(); ++i) {
      char c = text[i];
      if (c == '"') {
        inner = text.substr(start, i - start);
        ++i;
        return true;
      }
      if (c == '\\') {
        if (++i >= text.size()) break;
      } else if (static_cast<unsigned char>(c) < 0x20) {
        return fail("control character in a string");
      }
    }
    return fail("unterminated string");
  }
  bool number() {
    if (i < text.size() && text[i] == '-') ++i;
    size_t digits = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    if (i == digits) return fail("expected a value");
    if (i < text.size() && text[i] == '.') {
      size_t f = ++i;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
      if (i == f) return fail("expected digits after '.'");
    }
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
      ++i;
      if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
      size_t e = i;
      while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
      if (i == e) return fail("expected digits in the exponent");
    }
    return true;
  }
  bool literal() {
    for (std::string_view word : {"true", "false", "null"})
      if (text.substr(i, word.size()) == word) {
        i += word.size();
        return true;
      }
    return fail("expected a value");
  }
  // A nested array or object, checked for balance and string syntax.
  bool nested() {
    char closers[64];
    size_t depth = 0;
    for (; i < text.size();) {
      char c = text[i];
      if (c == '[' || c == '{') {
        if (depth == sizeof closers) return fail("nested too deeply");
        closers[depth++] = c == '[' ? ']' : '}';
        ++i;
      } else if (c == ']' || c == '}') {
        if (depth == 0 || closers[depth - 1] != c) return fail("unbalanced brackets");
        --depth;
        ++i;
        if (depth == 0) return true;
      } else if (c == '"') {
        std::string_view ignored;
        if (!string(ignored)) return false;
      } else {
        ++i;
      }
    }
    return fail("unterminated array or object");
  }
  bool value(JsonMember& member) {
    skip_space();
    if (i >= text.size()) return fail("expected a value");
    size_t start = i;
    char c = text[i];
    if (c == '"') {
      member.kind = JsonKind::string;
      return string(member.value);
    }
    if (c == '[' || c == '{') {
      member.kind = c == '[' ? JsonKind::array : JsonKind::object;
      if (!nested()) return false;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      member.kind = JsonKind::number;
      if (!number()) return false;
    } else {
      member.kind = JsonKind::literal;
      if (!literal()) return false;
    }
    member.value = text.substr(start, i - start);
    return true;
  }
};

}  // namespace

bool json_line_scan(std::string_view line, std::vector<JsonMember>& members, JsonLineError& error) {
  members.clear();
  Scanner s{line, 0, &error};
  s.skip_space();
  if (s.i >= line.size() || line[s.i] != '{') return s.fail("expected '{' (one JSON object a line)");
  ++s.i;
  s.skip_space();
  if (s.i < line.size() && line[s.i] == '}') {
    ++s.i;
  } else {
    for (;;) {
      s.skip_space();
      if (s.i >= line.size() || line[s.i] != '"') return s.fail("expected a quoted member name");
      JsonMember member;
      if (!s.string(member.key)) return false;
      s.skip_space();
      if (s.i >= line.size() || line[s.i] != ':') return s.fail("expected ':'");
      ++s.i;
      if (!s.value(member)) return false;
      members.push_back(member);
      s.skip_space();
      if (s.i < line.size() && line[s.i] == ',') {
        ++s.i;
        continue;
      }
      if (s.i < line.size() && line[s.i] == '}') {
        ++s.i;
        break;
      }
      return s.fail("expected ',' or '}'");
    }
  }
  s.skip_space();
  if (s.i != line.size()) return s.fail("text after the object");
  return true;
}

const JsonMember* json_member_find(const std::vector<JsonMember>& members, std::string_view key) {
  for (const auto& m : members)
    if (m.key == key) return &m;
  return nullptr;
}

bool json_parse_id_array(std::string_view raw, std::vector<uint64_t>& values) {
  const char* p = raw.data();
  const char* const end = p + raw.size();
  auto skip = [&] {
    while (p < end && is_space(*p)) ++p;
  };
  skip();
  if (p == end || *p != '[') return false;
  ++p;
  skip();
  if (p < end && *p == ']') return ++p, skip(), p == end;
  for (;;) {
    skip();
    const char* const first = p;
    uint64_t v = 0;
    unsigned digit = 0;
    for (; p < end && (digit = static_cast<unsigned>(*p - '0')) < 10; ++p)
      if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, uint64_t{digit}, &v))
        return false;  // over 2^64 - 1
    if (p == first) return false;
    values.push_back(v);
    skip();
    if (p < end && *p == ',') {
      ++p;
      continue;
    }
    if (p < end && *p == ']') {
      ++p;
      skip();
      return p == end;
    }
    return false;
  }
}

}  // namespace lynx
