#include <doctest/doctest.h>

#include <cmath>

#include "kernels/scalar_types.hpp"

using namespace lynx;

TEST_CASE("fp16: every finite half survives float and back, rounding is to nearest, ties to even") {
  for (uint32_t h = 0; h < 0x10000; ++h) {
    if (((h >> 10) & 0x1F) == 0x1F) continue;  // inf/nan
    float f = half_to_float(static_cast<uint16_t>(h));
    if (h == 0x8000) {
      CHECK(float_to_half(f) == 0x8000);
      continue;
    }
    REQUIRE(float_to_half(f) == h);
  }
  CHECK(half_to_float(0x3C00) == 1.0f);
  CHECK(half_to_float(0x7BFF) == 65504.0f);
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: ties to even (1.0).
  CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);
  CHECK(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);
  CHECK(float_to_half(65520.0f) == 0x7C00);
  CHECK(float_to_half(65519.0f) == 0x7BFF);
}

TEST_CASE("fp16 directed rounding brackets the value") {
  const float samples[] = {0.1f, -0.1f, 1e-7f, -1e-7f, 3.14159f, -65500.3f, 0.0f, 1234.567f, 6.1e-5f};
  for (float x : samples) {
    float down = half_to_float(float_to_half_down(x)), up = half_to_float(float_to_half_up(x));
    CHECK(down <= x);
    CHECK(up >= x);
    CHECK(half_to_float(half_next_up(float_to_half_down(x))) >= x);
  }
}

TEST_CASE("bf16 rounds to nearest even and round-trips its own values") {
  CHECK(float_to_bf16(1.0f) == 0x3F80);
  CHECK(bf16_to_float(0x3F80) == 1.0f);
  CHECK(float_to_bf16(1.0f + std::ldexp(1.0f, -8)) == 0x3F80);          // tie -> even
  CHECK(float_to_bf16(1.0f + 3 * std::ldexp(1.0f, -8)) == 0x3F82);      // tie -> even (up)
  for (uint32_t b = 0; b < 0x10000; b += 7) {
    if (((b >> 7) & 0xFF) == 0xFF) continue;
    REQUIRE(float_to_bf16(bf16_to_float(static_cast<uint16_t>(b))) == b);
  }
}

TEST_CASE("fp8 e4m3: all finite codes round-trip, saturation at 448, subnormals") {
  for (int b = 0; b < 256; ++b) {
    if ((b & 0x7F) == 0x7F) continue;  // NaN
    float f = fp8_e4m3_to_float(static_cast<uint8_t>(b));
    if (b == 0x80) continue;  // -0
    REQUIRE(float_to_fp8_e4m3(f) == b);
  }
  CHECK(fp8_e4m3_to_float(0x7E) == 448.0f);
  CHECK(fp8_e4m3_to_float(0x01) == std::ldexp(1.0f, -9));
  CHECK(float_to_fp8_e4m3(1000.0f) == 0x7E);
  CHECK(float_to_fp8_e4m3(-1000.0f) == 0xFE);
  CHECK(float_to_fp8_e4m3(1.0625f) == 0x38);   // tie between 1.0 and 1.125 -> even (1.0)
  CHECK(float_to_fp8_e4m3(1.1875f) == 0x3A);   // tie between 1.125 and 1.25 -> even (1.25)
}
