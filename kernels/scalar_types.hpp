// Bit-exact conversions between float and the narrow number types on the wire: IEEE half (fp16, used for
// group scales and zero points), bfloat16 and OCP fp8 E4M3 ("FN": max 448, no infinities).
// Plain inline functions on raw bits so the CPU reference and the CUDA kernels agree on every rounding.
// All conversions round to nearest, ties to even, unless the name says otherwise.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

namespace lynx {

inline uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float float_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// ---- IEEE half (fp16): max finite 65504 ----
constexpr float kHalfMax = 65504.0f;

inline float half_to_float(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1Fu;
  uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
    float magnitude = static_cast<float>(mantissa) * 5.9604644775390625e-8f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 31) return float_from_bits(sign | 0x7F800000u | (mantissa << 13));
  return float_from_bits(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

inline uint16_t float_to_half(float f) {
  uint32_t x = float_bits(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  x &= 0x7FFFFFFFu;
  if (x >= 0x7F800000u) return static_cast<uint16_t>(sign | 0x7C00u | (x > 0x7F800000u ? 0x200u : 0u));
  if (x >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520 rounds to infinity
  if (x < 0x38800000u) {  // below 2^-14: subnormal, in units of 2^-24 (the scaling is exact)
    float units = std::nearbyint(float_from_bits(x) * 16777216.0f);
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(units));
  }
  x += 0xFFFu + ((x >> 13) & 1u);  // round the 23-bit mantissa to 10 bits
  x -= (127u - 15u) << 23;
  return static_cast<uint16_t>(sign | (x >> 13));
}

// The neighbours of a finite half value.
inline uint16_t half_next_up(uint16_t h) {
  if (h == 0x8000u || h == 0x0000u) return 0x0001u;
  return static_cast<uint16_t>((h & 0x8000u) ? h - 1 : h + 1);
}
inline uint16_t half_next_down(uint16_t h) {
  if (h == 0x0000u || h == 0x8000u) return 0x8001u;
  return static_cast<uint16_t>((h & 0x8000u) ? h + 1 : h - 1);
}
// Largest half <= f and smallest half >= f (f finite, |f| <= 65504).
inline uint16_t float_to_half_down(float f) {
  uint16_t h = float_to_half(f);
  return half_to_float(h) > f ? half_next_down(h) : h;
}
inline uint16_t float_to_half_up(float f) {
  uint16_t h = float_to_half(f);
  return half_to_float(h) < f ? half_next_up(h) : h;
}

// ---- bfloat16 ----
inline uint16_t float_to_bf16(float f) {
  uint32_t u = float_bits(f);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}
inline float bf16_to_float(uint16_t b) { return float_from_bits(static_cast<uint32_t>(b) << 16); }

// ---- fp8 E4M3 (OCP "FN" variant: bias 7, max 448, 0x7F/0xFF are NaN, no infinity) ----
constexpr float kFp8E4m3Max = 448.0f;

inline float fp8_e4m3_to_float(uint8_t b) {
  uint32_t exponent = (b >> 3) & 0xFu;
  uint32_t mantissa = b & 0x7u;
  float magnitude = exponent == 0 ? static_cast<float>(mantissa) * 0.001953125f  // mantissa * 2^-9
                                  : std::ldexp(1.0f + static_cast<float>(mantissa) * 0.125f,
                                               static_cast<int>(exponent) - 7);
  return (b & 0x80u) ? -magnitude : magnitude;
}

// Saturates at +-448 (finite input assumed).
inline uint8_t float_to_fp8_e4m3(float v) {
  uint8_t sign = v < 0 ? 0x80 : 0x00;
  float a = std::fabs(v);
  if (a >= kFp8E4m3Max) return static_cast<uint8_t>(sign | 0x7E);
  if (a < 0.015625f) {  // below 2^-6: subnormal, in units of 2^-9 (8 units = the smallest normal)
    return static_cast<uint8_t>(sign | static_cast<uint8_t>(std::nearbyint(a * 512.0f)));
  }
  uint32_t x = float_bits(a);
  x += 0x7FFFFu + ((x >> 20) & 1u);  // round the mantissa to 3 bits
  uint32_t exponent = (x >> 23) - 127u + 7u;
  uint32_t mantissa = (x >> 20) & 0x7u;
  if (exponent > 15 || (exponent == 15 && mantissa == 7)) return static_cast<uint8_t>(sign | 0x7E);
  return static_cast<uint8_t>(sign | (exponent << 3) | mantissa);
}

}  // namespace lynx
