// requests.csv writes its times with std::to_chars(..., std::chars_format::fixed, 9) and promises printf's "%.9f"
// bytes (the golden files pin them): the two compared on every kind of value: exact half-nanosecond ties (k/1024 s),
// random values across 30 binary orders of magnitude, negative, zero and negative zero, subnormals, integers, 2^74
// and either side of 2^64 nanoseconds, and the largest doubles.
#include <doctest/doctest.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>
#include <random>
#include <string>

namespace {
std::string reference(double v) {
  char text[400];
  std::snprintf(text, sizeof text, "%.9f", v);
  return text;
}
constexpr size_t kRoom = 320;  // the longest "%.9f" of a double: -DBL_MAX
std::string ours(double v) {
  char text[kRoom];
  const std::to_chars_result r = std::to_chars(text, text + kRoom, v, std::chars_format::fixed, 9);
  REQUIRE(r.ec == std::errc());
  return std::string(text, r.ptr);
}
}  // namespace

TEST_CASE("std::to_chars, fixed with 9 decimals, writes what printf's %.9f writes") {
  int64_t mismatches = 0;
  auto check = [&](double v) {
    if (ours(v) != reference(v)) {
      if (++mismatches <= 5) FAIL_CHECK(v << ": " << ours(v) << " vs printf " << reference(v));
    }
  };
  for (double v : {0.0, -0.0, 1.0, -1.0, 0.5e-9, 1.5e-9, 2.5e-9, 1e-10, 4.9999999999e-10, 5e-10, 0.1, 0.3,
                   123456.789, 3599.999999999, 1e9, 1e15, 1e20, std::ldexp(1.0, 74), std::ldexp(1.0, 74) - 4096,
                   std::nextafter(std::ldexp(1.0, 74), 0.0), 4.9406564584124654e-324, 2.2250738585072014e-308,
                   std::nextafter(1.0, 2.0), std::nextafter(1.0, 0.0)})
    check(v);
  // Either side of 2^64 nanoseconds (1.8e10 s).
  for (double v = 18446744073.0; v < 18446744075.0; v += 0.0625) {
    check(v);
    check(std::nextafter(v, 0.0));
    check(-v);
  }
  // Every binary exponent from 2^-80 to 2^30, each with its smallest, largest and a few random significands.
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
  // The longest texts: exactly kRoom characters.
  constexpr double kMax = std::numeric_limits<double>::max();
  for (double v : {kMax, -kMax, 1e300, -1e300}) check(v);
  CHECK(ours(-kMax).size() == kRoom);
  CHECK(mismatches == 0);
}
