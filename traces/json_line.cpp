#include "traces/json_line.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace lynx {

namespace {
constexpr bool kLittleEndian = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The characters nested() stops at: brackets, braces and quotes (an id array's digits, commas and spaces are skipped
// by one table lookup each).
struct NestedStops {
  bool stop[256] = {};
  constexpr NestedStops() {
    for (unsigned char c : {'[', ']', '{', '}', '"'}) stop[c] = true;
  }
};
constexpr NestedStops kNestedStops;

// The first position from `i` on that holds one of kNestedStops (text.size() if none): 16 bytes a step where SSE2
// is there (every x86-64), so that a trace's id array (Mooncake's hash_ids, most of a row) costs a few instructions
// per 16 bytes, not per byte; the table for the tail and elsewhere.
size_t next_nested_stop(std::string_view text, size_t i) {
#if defined(__SSE2__)
  const __m128i open_bracket = _mm_set1_epi8('['), close_bracket = _mm_set1_epi8(']');
  const __m128i open_brace = _mm_set1_epi8('{'), close_brace = _mm_set1_epi8('}'), quote = _mm_set1_epi8('"');
  for (; i + 16 <= text.size(); i += 16) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    const __m128i brackets = _mm_or_si128(_mm_cmpeq_epi8(v, open_bracket), _mm_cmpeq_epi8(v, close_bracket));
    const __m128i braces = _mm_or_si128(_mm_cmpeq_epi8(v, open_brace), _mm_cmpeq_epi8(v, close_brace));
    const int mask = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(brackets, braces), _mm_cmpeq_epi8(v, quote)));
    if (mask != 0) return i + static_cast<size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  while (i < text.size() && !kNestedStops.stop[static_cast<unsigned char>(text[i])]) ++i;
  return i;
}

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
        i = next_nested_stop(text, i + 1);
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

// The decimal digits at the start of p[0, 8) (which must be readable), at most 8: their count, and their value in
// `value`. Eight bytes at once (a trace's ids are a few digits each): a byte is a digit when, XORed with '0', it is at
// most 9 (its high nibble 0 and adding 6 does not carry into bit 4; a carry out of a byte that is not a digit can
// only reach bytes after it). The digits, moved to the top of the word (zeros before them), are combined pairwise.
int leading_digits(const char* p, uint64_t& value) {
  uint64_t word;
  std::memcpy(&word, p, sizeof word);
  if constexpr (!kLittleEndian) word = __builtin_bswap64(word);  // the first character in the low byte
  const uint64_t t = word ^ 0x3030303030303030u;
  const uint64_t not_digit = (t & 0xf0f0f0f0f0f0f0f0u) | ((t + 0x0606060606060606u) & 0x1010101010101010u);
  const int n = not_digit == 0 ? 8 : __builtin_ctzll(not_digit) / 8;
  if (n == 0) return 0;
  uint64_t d = t << (64 - 8 * n);                                     // n digits, the last in the top byte
  d = (d * 10 + (d >> 8)) & 0x00ff00ff00ff00ffu;                      // pairs: 2-digit values
  d = (d * 100 + (d >> 16)) & 0x0000ffff0000ffffu;                    // 4-digit values
  d = (d * 10000 + (d >> 32)) & 0x00000000ffffffffu;                  // the 8-digit value
  value = d;
  return n;
}
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
    // The leading digits, up to 8, in one step where 8 bytes are left (leading_digits); the rest one at a time: 19
    // digits never overflow 64 bits, from the 20th on each is checked.
    const bool by_word = end - p >= 8;
    const int word_digits = by_word ? leading_digits(p, v) : 0;
    p += word_digits;
    if (!by_word || word_digits == 8) {
      unsigned digit;
      for (const char* const unchecked_end = end - first > 19 ? first + 19 : end;
           p < unchecked_end && (digit = static_cast<unsigned>(*p - '0')) < 10; ++p)
        v = v * 10 + digit;
      for (; p < end && (digit = static_cast<unsigned>(*p - '0')) < 10; ++p)
        if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, uint64_t{digit}, &v))
          return false;  // over 2^64 - 1
    }
    if (p == first) return false;
    values.push_back(v);
    if (p < end && *p == ',') {  // "1, 2": the comma right after the digits, the usual case
      ++p;
      continue;
    }
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

namespace {
#if defined(__SSE2__)
// Bit k of each mask: byte k of p[0, 64) is a digit, a comma, a space.
struct ByteClasses {
  uint64_t digit = 0, comma = 0, space = 0;
};
ByteClasses classify64(const char* p) {
  const __m128i zero = _mm_set1_epi8('0'), nine = _mm_set1_epi8('9');
  const __m128i comma = _mm_set1_epi8(','), space = _mm_set1_epi8(' ');
  ByteClasses c;
  for (int part = 0; part < 4; ++part) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * part));
    // A digit: '0' <= byte <= '9' (signed compares; bytes over 0x7f are negative and so not digits).
    const __m128i not_digit = _mm_or_si128(_mm_cmplt_epi8(v, zero), _mm_cmpgt_epi8(v, nine));
    const int shift = 16 * part;
    c.digit |= static_cast<uint64_t>(static_cast<uint16_t>(~_mm_movemask_epi8(not_digit))) << shift;
    c.comma |= static_cast<uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, comma)))) << shift;
    c.space |= static_cast<uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, space)))) << shift;
  }
  return c;
}
#endif

// The common form's inside (between the brackets): ids of at most 19 digits (which cannot overflow), each comma right
// after an id, a space only right after a comma, an id first and last. As bit masks of the bytes (bit k: byte k),
// 64 at a time: every byte a digit, comma or space; a comma's previous byte a digit; a space's previous byte a
// comma; and no run of digits over 19 long, inside a step and across steps. False means "not this form", not
// "invalid": the caller parses it then.
bool common_id_array_inside(std::string_view inside) {
#if defined(__SSE2__)
  if (inside.empty() || static_cast<unsigned>(inside.front() - '0') >= 10 ||
      static_cast<unsigned>(inside.back() - '0') >= 10)
    return false;
  uint64_t previous_digit = 0, previous_comma = 0;  // the last byte of the previous step (bit 0)
  int digits_carried = 0;                            // the digit run that ends the previous step
  for (size_t i = 0; i < inside.size(); i += 64) {
    const size_t n = std::min<size_t>(64, inside.size() - i);
    ByteClasses c;
    uint64_t valid = ~uint64_t{0};
    if (n == 64) {
      c = classify64(inside.data() + i);
    } else {
      char tail[64] = {};  // zeros: no class; masked off by `valid` anyway
      std::memcpy(tail, inside.data() + i, n);
      c = classify64(tail);
      valid = (uint64_t{1} << n) - 1;
      c.digit &= valid;
    }
    if ((c.digit | c.comma | c.space) != valid) return false;
    if ((c.comma & ~((c.digit << 1) | previous_digit)) != 0) return false;
    if ((c.space & ~((c.comma << 1) | previous_comma)) != 0) return false;
    // A run of 20 digits or more inside the step: bit k of `run` ends set where bits k to k + 19 are all digits
    // (runs of 2, 4, 8, 16, then 16 and 16 four apart).
    uint64_t run = c.digit;
    run &= run >> 1;
    run &= run >> 2;
    run &= run >> 4;
    run &= run >> 8;
    run &= run >> 4;
    if (run != 0) return false;
    if (c.digit == valid) {
      digits_carried += static_cast<int>(n);
    } else {
      digits_carried += __builtin_ctzll(~c.digit);  // the run crossing into this step ends at its first non-digit
      if (digits_carried > 19) return false;
      digits_carried = __builtin_clzll(~(c.digit << (64 - n)));  // the run ending this step
    }
    if (digits_carried > 19) return false;
    previous_digit = (c.digit >> (n - 1)) & 1;
    previous_comma = (c.comma >> (n - 1)) & 1;
  }
  return true;
#else
  (void)inside;
  return false;
#endif
}
}  // namespace

bool json_id_array_common_form(std::string_view raw) {
  return raw.size() >= 3 && raw.front() == '[' && raw.back() == ']' &&
         common_id_array_inside(raw.substr(1, raw.size() - 2));
}

bool json_check_id_array(std::string_view raw, std::vector<uint64_t>& scratch) {
  if (json_id_array_common_form(raw)) return true;
  scratch.clear();
  return json_parse_id_array(raw, scratch);
}

JsonLineLayout::JsonLineLayout(std::vector<std::string> keys, bool ids_last)
    : keys_(std::move(keys)), ids_last_(ids_last), usable_(!keys_.empty()) {
  for (const std::string& key : keys_)
    for (const char c : key)
      if (c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20) usable_ = false;
}

bool JsonLineLayout::match(std::string_view line, std::string_view* values) const {
  if (!usable_) return false;
  const char* p = line.data();
  const char* const end = p + line.size();
  if (p == end || *p++ != '{') return false;
  for (size_t k = 0; k < keys_.size(); ++k) {
    const std::string& key = keys_[k];
    // '"' key '"' ':' ' '
    if (static_cast<size_t>(end - p) < key.size() + 4 || p[0] != '"' ||
        std::memcmp(p + 1, key.data(), key.size()) != 0 || p[key.size() + 1] != '"' || p[key.size() + 2] != ':' ||
        p[key.size() + 3] != ' ')
      return false;
    p += key.size() + 4;
    const char* const start = p;
    if (ids_last_ && k + 1 == keys_.size()) {
      if (p == end || *p != '[') return false;
      const void* close = std::memchr(p, ']', static_cast<size_t>(end - p));  // the common form holds no other
      if (close == nullptr) return false;
      p = static_cast<const char*>(close) + 1;
      values[k] = std::string_view(start, static_cast<size_t>(p - start));
      if (!json_id_array_common_form(values[k])) return false;
    } else {
      while (p < end && static_cast<unsigned>(*p - '0') < 10) ++p;
      if (p == start) return false;
      values[k] = std::string_view(start, static_cast<size_t>(p - start));
    }
    if (k + 1 < keys_.size()) {
      if (end - p < 2 || p[0] != ',' || p[1] != ' ') return false;
      p += 2;
    }
  }
  return end - p == 1 && *p == '}';
}

}  // namespace lynx
