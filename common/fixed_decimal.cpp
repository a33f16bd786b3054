#include "common/fixed_decimal.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace lynx {

namespace {
__extension__ typedef unsigned __int128 u128;  // __extension__: GCC and Clang have it, ISO C++ does not

// Decimal digits of v (no sign), written at `p` (at most 39); returns their end.
char* write_u128(char* p, u128 v) {
  char digits[40];
  int n = 0;
  do {
    digits[n++] = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  while (n > 0) *p++ = digits[--n];
  return p;
}

// "00" to "99", two characters each.
struct DigitPairs {
  char text[200] = {};
  constexpr DigitPairs() {
    for (int i = 0; i < 100; ++i) {
      text[2 * i] = static_cast<char>('0' + i / 10);
      text[2 * i + 1] = static_cast<char>('0' + i % 10);
    }
  }
};
constexpr DigitPairs kDigitPairs;

// Appends two digits of `pair` (< 100).
inline char* put_pair(char* p, uint64_t pair) {
  std::memcpy(p, kDigitPairs.text + 2 * pair, 2);
  return p + 2;
}

// The whole seconds of a time (< 1.8e10): up to four digits written from the pairs table, more by to_chars.
inline char* put_whole(char* p, char* end, uint64_t whole) {
  if (whole < 10) {
    *p++ = static_cast<char>('0' + whole);
  } else if (whole < 100) {
    p = put_pair(p, whole);
  } else if (whole < 10000) {
    const uint64_t high = whole / 100u;
    if (high < 10) *p++ = static_cast<char>('0' + high);
    else p = put_pair(p, high);
    p = put_pair(p, whole % 100u);
  } else {
    p = std::to_chars(p, end, whole).ptr;
  }
  return p;
}
}  // namespace

char* write_fixed9(char* out, double value) {
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  const bool negative = (bits >> 63) != 0;
  const int biased_exponent = static_cast<int>((bits >> 52) & 0x7ff);
  uint64_t significand = bits & ((uint64_t{1} << 52) - 1);
  int exponent = 0;  // value = significand * 2^exponent
  if (biased_exponent == 0) {
    exponent = -1074;  // subnormal (or zero)
  } else {
    significand |= uint64_t{1} << 52;
    exponent = biased_exponent - 1075;
  }
  // Beyond what 128 bits hold exactly (|value| >= 2^74, 1.9e22 s), or not finite: printf itself.
  if (biased_exponent == 0x7ff || exponent > 74 - 53) {
    const int n = std::snprintf(out, kFixed9Room, "%.9f", value);
    return out + n;
  }
  const u128 scaled = static_cast<u128>(significand) * 1000000000u;  // < 2^83
  u128 nanos = 0;                                                    // round(|value| * 1e9), half to even
  if (exponent >= 0) {
    nanos = scaled << exponent;  // < 2^104
  } else if (-exponent < 128) {
    // The bits shifted out, moved to the top of 128 (none lost: scaled < 2^83, and those above bit 127 are nanos'):
    // above 2^127 is more than half a nanosecond, 2^127 exactly half.
    const int shift = -exponent;
    nanos = scaled >> shift;
    const u128 remainder_top = scaled << (128 - shift), half_top = u128{1} << 127;
    if (remainder_top > half_top || (remainder_top == half_top && (nanos & 1) != 0)) ++nanos;
  }  // else |value| * 1e9 < 2^-44: rounds to 0
  char* p = out;  // a sign, at most 23 whole digits (nanos < 2^104), the point, 9 digits
  if (negative) *p++ = '-';
  uint64_t f = 0;
  if (nanos <= UINT64_MAX) {  // under 1.8e10 s, every time a run writes: 64-bit division, not the 128-bit helper's
    const uint64_t n64 = static_cast<uint64_t>(nanos), whole = n64 / 1000000000u;
    p = put_whole(p, out + kFixed9Room, whole);
    f = n64 - whole * 1000000000u;
  } else {
    p = write_u128(p, nanos / 1000000000u);
    f = static_cast<uint64_t>(nanos % 1000000000u);
  }
  *p++ = '.';
  // The 9 digits of f: the first alone, then four pairs from the table (a digit at a time was a third of the call).
  const uint64_t first = f / 100000000u, rest = f - first * 100000000u;
  *p++ = static_cast<char>('0' + first);
  const uint64_t high = rest / 10000u, low = rest - high * 10000u;
  p = put_pair(p, high / 100u);
  p = put_pair(p, high % 100u);
  p = put_pair(p, low / 100u);
  return put_pair(p, low % 100u);
}

}  // namespace lynx
