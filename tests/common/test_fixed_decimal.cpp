// requests.csv writes its times as printf's "%.9f" (the golden files pin the bytes), by write_fixed9 or its plain
// twin write_fixed9_plain (std::to_chars; common/fixed_decimal.hpp): both compared with printf on every kind of
// value: exact half-nanosecond ties (k/1024 s), random values across 30 binary orders of magnitude, negative, zero
// and negative zero, subnormals, integers, the 2^74 edge where write_fixed9 hands over to printf, either side of
// 2^64 nanoseconds, and the largest doubles.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>
#include <random>
#include <string>

#include "common/fixed_decimal.hpp"

using namespace lynx;

namespace {
std::string reference(double v) {
  char text[400];
  std::snprintf(text, sizeof text, "%.9f", v);
  return text;
}
std::string ours(double v) {
  char text[kFixed9Room];
  return std::string(text, write_fixed9(text, v));
}
std::string plain(double v) {
  char text[kFixed9Room];
  return std::string(text, write_fixed9_plain(text, v));
}
}  // namespace

TEST_CASE("write_fixed9 and its plain twin (std::to_chars) write what printf's %.9f writes") {
  int64_t mismatches = 0;
  auto check = [&](double v) {
    const std::string expected = reference(v);
    if (ours(v) != expected || plain(v) != expected) {
      if (++mismatches <= 5) FAIL_CHECK(v << ": " << ours(v) << " and " << plain(v) << " vs printf " << expected);
    }
  };
  for (double v : {0.0, -0.0, 1.0, -1.0, 0.5e-9, 1.5e-9, 2.5e-9, 1e-10, 4.9999999999e-10, 5e-10, 0.1, 0.3,
                   123456.789, 3599.999999999, 1e9, 1e15, 1e20, std::ldexp(1.0, 74), std::ldexp(1.0, 74) - 4096,
                   std::nextafter(std::ldexp(1.0, 74), 0.0), 4.9406564584124654e-324, 2.2250738585072014e-308,
                   std::nextafter(1.0, 2.0), std::nextafter(1.0, 0.0)})
    check(v);
  // Either side of 2^64 nanoseconds (1.8e10 s), where write_fixed9 leaves 64-bit arithmetic for 128-bit.
  for (double v = 18446744073.0; v < 18446744075.0; v += 0.0625) {
    check(v);
    check(std::nextafter(v, 0.0));
    check(-v);
  }
  // Every binary exponent from 2^-80 to 2^30 (the bits write_fixed9 shifts out of the rounding go from none to all
  // 128), each with its smallest, largest and a few random significands.
  std::mt19937_64 bits_rng(20261206);
  for (int e = -80; e <= 30; ++e) {
    check(std::ldexp(1.0, e));
    check(std::nextafter(std::ldexp(1.0, e + 1), 0.0));
    for (int i = 0; i < 64; ++i) check(std::ldexp(1.0 + static_cast<double>(bits_rng() >> 12) * 0x1p-52, e));
  }
  // Exact ties: k/1024 s is an odd number of half nanoseconds when k is odd.
  for (int64_t k = -5000; k <= 200000; ++k) check(static_cast<double>(k) / 1024.0);
  // Near-ties: one ulp either side of them.
  for (int64_t k = 1; k <= 20000; k += 2) {
    const double t = static_cast<double>(k) / 1024.0;
    check(std::nextafter(t, 0.0));
    check(std::nextafter(t, 1e9));
  }
  std::mt19937_64 rng(20261201);
  std::uniform_real_distribution<double> exponent(-30.0, 24.0), unit(0.0, 1.0);
  for (int i = 0; i < 2000000; ++i) {
    const double magnitude = std::exp2(exponent(rng)) * unit(rng);
    check(i % 7 == 0 ? -magnitude : magnitude);
  }
  // Times as the simulator makes them: sums of step times.
  double t = 0;
  for (int i = 0; i < 200000; ++i) {
    t += 0.0123456789 * unit(rng);
    check(t);
  }
  // The longest texts (printf's path): they fill kFixed9Room, checked below in a heap block of exactly that size
  // (AddressSanitizer sees a write past it).
  constexpr double kMax = std::numeric_limits<double>::max();
  for (double v : {kMax, -kMax, 1e300, -1e300}) check(v);
  std::vector<char> room(kFixed9Room);
  char* end = write_fixed9(room.data(), -kMax);
  CHECK(std::string(room.data(), end) == reference(-kMax));
  CHECK(end - room.data() == static_cast<std::ptrdiff_t>(kFixed9Room) - 1);
  CHECK(std::string(room.data(), write_fixed9_plain(room.data(), -kMax)) == reference(-kMax));
  CHECK(mismatches == 0);
}
