#include "traces/text_parse.hpp"

#include <cstdio>

#include "common/error.hpp"

namespace lynx {

namespace {
bool is_digit(char c) { return c >= '0' && c <= '9'; }

constexpr uint64_t kPow10[20] = {1ull,
                                 10ull,
                                 100ull,
                                 1000ull,
                                 10000ull,
                                 100000ull,
                                 1000000ull,
                                 10000000ull,
                                 100000000ull,
                                 1000000000ull,
                                 10000000000ull,
                                 100000000000ull,
                                 1000000000000ull,
                                 10000000000000ull,
                                 100000000000000ull,
                                 1000000000000000ull,
                                 10000000000000000ull,
                                 100000000000000000ull,
                                 1000000000000000000ull,
                                 10000000000000000000ull};

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

int64_t days_in_month(int64_t y, int64_t m) {
  static const int64_t days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : days[m - 1];
}

// Reads exactly `n` digits at text[i...] into value.
bool fixed_digits(std::string_view text, size_t& i, size_t n, int64_t& value) {
  if (i + n > text.size()) return false;
  value = 0;
  for (size_t k = 0; k < n; ++k) {
    if (!is_digit(text[i + k])) return false;
    value = value * 10 + (text[i + k] - '0');
  }
  i += n;
  return true;
}
}  // namespace

const char* time_unit_name(TimeUnit unit) { return kTimeUnitNames.name(unit); }

TimeUnit time_unit_parse(const std::string& name) {
  if (const auto unit = kTimeUnitNames.parse(name)) return *unit;
  throw_error("unknown time unit \"%s\" (expected one of %s)", name.c_str(), kTimeUnitNames.names_text().c_str());
}

std::string_view text_trim(std::string_view text) {
  size_t b = 0, e = text.size();
  while (b < e && (text[b] == ' ' || text[b] == '\t')) ++b;
  while (e > b && (text[e - 1] == ' ' || text[e - 1] == '\t')) --e;
  return text.substr(b, e - b);
}

ParseStatus parse_count(std::string_view text, int64_t& value) {
  text = text_trim(text);
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  size_t first_digit = i;
  uint64_t v = 0;
  bool overflow = false;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    uint64_t d = static_cast<uint64_t>(text[i] - '0');
    if (v > (static_cast<uint64_t>(INT64_MAX) - d) / 10) overflow = true;
    else v = v * 10 + d;
  }
  if (i == first_digit) return ParseStatus::not_a_number;
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && text[i] == '0'; ++i) {
    }
  }
  if (i != text.size()) return ParseStatus::not_a_number;
  if (negative && v != 0) return ParseStatus::negative;
  if (overflow) return ParseStatus::out_of_range;
  value = static_cast<int64_t>(v);
  return ParseStatus::ok;
}

ParseStatus parse_decimal_ns(std::string_view text, int unit_exp10, int64_t& ns) {
  text = text_trim(text);
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  uint64_t mantissa = 0;
  int64_t exp10 = 0;
  bool any_digit = false;
  for (; i < text.size() && is_digit(text[i]); ++i) {
    any_digit = true;
    if (mantissa < kPow10[18]) mantissa = mantissa * 10 + static_cast<uint64_t>(text[i] - '0');
    else ++exp10;  // digits beyond 19 significant ones are dropped (truncated)
  }
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && is_digit(text[i]); ++i) {
      any_digit = true;
      if (mantissa < kPow10[18]) {
        mantissa = mantissa * 10 + static_cast<uint64_t>(text[i] - '0');
        --exp10;
      }
    }
  }
  if (!any_digit) return ParseStatus::not_a_number;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) exp_negative = text[i++] == '-';
    size_t first = i;
    int64_t e = 0;
    for (; i < text.size() && is_digit(text[i]); ++i)
      if (e < 100000) e = e * 10 + (text[i] - '0');
    if (i == first) return ParseStatus::not_a_number;
    exp10 += exp_negative ? -e : e;
  }
  if (i != text.size()) return ParseStatus::not_a_number;
  if (mantissa == 0) {
    ns = 0;
    return ParseStatus::ok;
  }
  if (negative) return ParseStatus::negative;
  int64_t power = exp10 + unit_exp10;
  if (power >= 0) {
    if (power > 18 || mantissa > static_cast<uint64_t>(INT64_MAX) / kPow10[power]) return ParseStatus::out_of_range;
    ns = static_cast<int64_t>(mantissa * kPow10[power]);
    return ParseStatus::ok;
  }
  if (-power > 19) {  // mantissa < 10^19 <= half of 10^(-power): rounds to 0
    ns = 0;
    return ParseStatus::ok;
  }
  uint64_t divisor = kPow10[-power];
  uint64_t quotient = mantissa / divisor, remainder = mantissa % divisor;
  if (remainder >= divisor - remainder) ++quotient;  // half up
  if (quotient > static_cast<uint64_t>(INT64_MAX)) return ParseStatus::out_of_range;
  ns = static_cast<int64_t>(quotient);
  return ParseStatus::ok;
}

bool parse_datetime_ns(std::string_view text, int64_t& ns) {
  text = text_trim(text);
  size_t i = 0;
  int64_t year, month, day, hour, minute, second;
  if (!fixed_digits(text, i, 4, year) || i >= text.size() || text[i++] != '-') return false;
  if (!fixed_digits(text, i, 2, month) || i >= text.size() || text[i++] != '-') return false;
  if (!fixed_digits(text, i, 2, day) || i >= text.size() || (text[i] != ' ' && text[i] != 'T')) return false;
  ++i;
  if (!fixed_digits(text, i, 2, hour) || i >= text.size() || text[i++] != ':') return false;
  if (!fixed_digits(text, i, 2, minute) || i >= text.size() || text[i++] != ':') return false;
  if (!fixed_digits(text, i, 2, second)) return false;
  if (month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) || hour > 23 || minute > 59 ||
      second > 59)
    return false;
  // Nanoseconds from 1970 fit int64 for years 1678-2261 only, and a reader subtracts two of them: keep to years
  // 1970-2199, where every difference fits too (found by fuzz/fuzz_trace.cpp: year 1016 overflowed).
  if (year < 1970 || year > 2199) return false;
  int64_t fraction_ns = 0;
  if (i < text.size() && text[i] == '.') {
    ++i;
    size_t digits = 0;
    for (; i < text.size() && is_digit(text[i]); ++i, ++digits) {
      if (digits >= 9) return false;
      fraction_ns = fraction_ns * 10 + (text[i] - '0');
    }
    if (digits == 0) return false;
    fraction_ns *= static_cast<int64_t>(kPow10[9 - digits]);
  }
  int64_t offset_s = 0;
  if (i < text.size() && text[i] == 'Z') {
    ++i;
  } else if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    int64_t sign = text[i++] == '-' ? -1 : 1;
    int64_t oh, om;
    if (!fixed_digits(text, i, 2, oh)) return false;
    if (i < text.size() && text[i] == ':') ++i;
    if (!fixed_digits(text, i, 2, om) || oh > 23 || om > 59) return false;
    offset_s = sign * (oh * 3600 + om * 60);
  }
  if (i != text.size()) return false;
  int64_t seconds = days_from_civil(year, month, day) * 86400 + hour * 3600 + minute * 60 + second - offset_s;
  ns = seconds * 1000000000 + fraction_ns;
  return true;
}

bool csv_split(std::string_view line, std::vector<std::string_view>& fields) {
  fields.clear();
  size_t i = 0, n = line.size();
  for (;;) {
    if (i < n && line[i] == '"') {
      size_t start = ++i;
      for (;;) {
        if (i >= n) return false;
        if (line[i] == '"') {
          if (i + 1 < n && line[i + 1] == '"') {
            i += 2;
            continue;
          }
          break;
        }
        ++i;
      }
      fields.push_back(line.substr(start, i - start));
      ++i;  // closing quote
      while (i < n && line[i] != ',') ++i;  // text after the closing quote is ignored
    } else {
      size_t start = i;
      while (i < n && line[i] != ',') ++i;
      fields.push_back(line.substr(start, i - start));
    }
    if (i >= n) return true;
    ++i;  // the comma
  }
}

std::string text_excerpt(std::string_view text, size_t limit) {
  // Control bytes (a terminal escape, a NUL) are shown as \xNN, so that a bad row can neither drive the user's
  // terminal nor cut the message.
  std::string out;
  const bool cut = text.size() > limit;
  if (cut) text = text.substr(0, limit - 3);
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
      out += escaped;
    } else {
      out += c;
    }
  }
  return cut ? out + "..." : out;
}

}  // namespace lynx
