// nlohmann's SAX events for plain JSON, without nlohmann's lexer. A start-up reads one 55 KB entry of the accuracy
// file (json_member_scan.hpp) as SAX events, and nlohmann's lexer took about 180 instructions a byte of it (9.8 M
// of a one-request run's start-up; the entry is mostly histogram counts). This reader handles the plain subset of
// JSON: ASCII strings without escapes, integers of at most 18 digits, decimal numbers std::from_chars reads to a
// finite double. On that subset it gives the handler exactly the events nlohmann::json::sax_parse would, in the
// same order, with the same values (nlohmann reads numbers with strtod / strtoull, both correctly rounded like
// from_chars). At anything else (an escape, a byte over 0x7f, a control character, a leading zero, a long integer,
// a byte-order mark, text after the value, a syntax error) it stops and answers `unsure`, so that the caller runs
// nlohmann's own parse with a fresh handler: every text gets the library's answer, plain texts faster.
#pragma once
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lynx {

enum class PlainSax { accepted, handler_stopped, unsure };

template <class Sax>
PlainSax json_plain_sax_parse(std::string_view text, Sax& sax) {
  const char* p = text.data();
  const char* const end = p + text.size();
  auto skip_space = [&] {
    while (p < end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
  };
  std::string scratch;
  // A string at p (its opening quote): its text into `scratch`, p past the closing quote; false if not plain.
  auto string = [&]() -> bool {
    const char* const first = ++p;
    while (p < end) {
      const unsigned char c = static_cast<unsigned char>(*p);
      if (c == '"') break;
      if (c == '\\' || c < 0x20 || c >= 0x80) return false;
      ++p;
    }
    if (p == end) return false;
    scratch.assign(first, p);
    ++p;
    return true;
  };
  // A number at p: its event, or unsure; `stopped` set where the handler refused it.
  bool stopped = false;
  auto number = [&]() -> bool {
    const char* const first = p;
    const bool negative = *p == '-';
    if (negative) ++p;
    if (p == end || *p < '0' || *p > '9') return false;
    const char* const digits = p;
    if (*p == '0') {
      ++p;
      if (p < end && *p >= '0' && *p <= '9') return false;  // a leading zero: not JSON
    } else {
      while (p < end && *p >= '0' && *p <= '9') ++p;
    }
    const size_t integer_digits = static_cast<size_t>(p - digits);
    bool is_float = false;
    if (p < end && *p == '.') {
      is_float = true;
      ++p;
      if (p == end || *p < '0' || *p > '9') return false;
      while (p < end && *p >= '0' && *p <= '9') ++p;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
      is_float = true;
      ++p;
      if (p < end && (*p == '+' || *p == '-')) ++p;
      if (p == end || *p < '0' || *p > '9') return false;
      while (p < end && *p >= '0' && *p <= '9') ++p;
    }
    if (!is_float) {
      if (integer_digits > 18) return false;  // nlohmann may read it as a float (overflow): left to it
      uint64_t v = 0;
      for (const char* d = digits; d < p; ++d) v = v * 10 + static_cast<uint64_t>(*d - '0');
      stopped = negative ? !sax.number_integer(-static_cast<int64_t>(v)) : !sax.number_unsigned(v);
      return true;
    }
    double v = 0;
    const std::from_chars_result r = std::from_chars(first, p, v);
    if (r.ec != std::errc() || r.ptr != p || !std::isfinite(v)) return false;
    std::string token(first, p);  // nlohmann passes the number's text along with a float
    stopped = !sax.number_float(v, token);
    return true;
  };
  // A member's key at p, its colon and the space after it (accepted: p at its value).
  auto member_key = [&]() -> PlainSax {
    if (p == end || *p != '"' || !string()) return PlainSax::unsure;
    if (!sax.key(scratch)) return PlainSax::handler_stopped;
    skip_space();
    if (p == end || *p != ':') return PlainSax::unsure;
    ++p;
    skip_space();
    return PlainSax::accepted;
  };
  // Containers open: true for an object. After a value: a comma or the container's end; in an object, a key first.
  std::vector<bool> open;
  bool expect_value = true;
  skip_space();
  for (;;) {
    if (expect_value) {
      if (p == end) return PlainSax::unsure;
      const char c = *p;
      if (c == '{' || c == '[') {
        ++p;
        const bool object = c == '{';
        if (!(object ? sax.start_object(static_cast<std::size_t>(-1)) : sax.start_array(static_cast<std::size_t>(-1))))
          return PlainSax::handler_stopped;
        skip_space();
        if (p < end && *p == (object ? '}' : ']')) {  // empty
          ++p;
          if (!(object ? sax.end_object() : sax.end_array())) return PlainSax::handler_stopped;
          expect_value = false;
        } else {
          open.push_back(object);
          if (object) {
            const PlainSax k = member_key();
            if (k != PlainSax::accepted) return k;
          }
          continue;  // the first value
        }
      } else if (c == '"') {
        if (!string()) return PlainSax::unsure;
        if (!sax.string(scratch)) return PlainSax::handler_stopped;
        expect_value = false;
      } else if (c == '-' || (c >= '0' && c <= '9')) {
        if (!number()) return PlainSax::unsure;
        if (stopped) return PlainSax::handler_stopped;
        expect_value = false;
      } else {
        const std::string_view rest(p, static_cast<size_t>(end - p));
        bool ok = true;
        if (rest.substr(0, 4) == "true") ok = sax.boolean(true), p += 4;
        else if (rest.substr(0, 5) == "false") ok = sax.boolean(false), p += 5;
        else if (rest.substr(0, 4) == "null") ok = sax.null(), p += 4;
        else return PlainSax::unsure;
        if (!ok) return PlainSax::handler_stopped;
        expect_value = false;
      }
    }
    // After a value: its container goes on, or ends, or (none open) the text must end.
    skip_space();
    if (open.empty()) return p == end ? PlainSax::accepted : PlainSax::unsure;
    if (p == end) return PlainSax::unsure;
    const bool object = open.back();
    if (*p == ',') {
      ++p;
      skip_space();
      if (object) {
        const PlainSax k = member_key();
        if (k != PlainSax::accepted) return k;
      }
      expect_value = true;
      continue;
    }
    if (*p != (object ? '}' : ']')) return PlainSax::unsure;
    ++p;
    open.pop_back();
    if (!(object ? sax.end_object() : sax.end_array())) return PlainSax::handler_stopped;
    expect_value = false;
  }
}

}  // namespace lynx
