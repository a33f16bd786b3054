// Bit-exact conversions between float and the narrow number types on the wire: IEEE half (fp16, used for
// group scales and zero points), bfloat16 and OCP fp8 E4M3 ("FN": max 448, no infinities).
// Plain inline functions on raw bits so the CPU reference and the CUDA kernels agree on every rounding: compiled by
// nvcc they are __host__ __device__ (LYNX_HD) and use no std:: function that device code lacks.
// All conversions round to nearest, ties to even, unless the name says otherwise.
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define LYNX_HD __host__ __device__
#else
#define LYNX_HD
#endif

namespace lynx {

LYNX_HD inline uint32_t float_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}
LYNX_HD inline float float_from_bits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}
LYNX_HD inline float abs_float(float f) { return float_from_bits(float_bits(f) & 0x7FFFFFFFu); }

// Rounds 0 <= v < 2^22 to the nearest integer, ties to even (std::nearbyint in the default rounding mode, except
// that it returns +0 where nearbyint could return -0). On the CPU the sum with 1.5 * 2^23 has a unit last place of
// exactly 1, so the addition itself rounds; unlike nearbyint this vectorises without SSE4.1.
LYNX_HD inline float round_small_even(float v) {
#if defined(__CUDA_ARCH__)
  return rintf(v);
#else
  return (v + 12582912.0f) - 12582912.0f;
#endif
}

// ---- IEEE half (fp16): max finite 65504 ----
constexpr float kHalfMax = 65504.0f;

LYNX_HD inline float half_to_float(uint16_t h) {
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

LYNX_HD inline uint16_t float_to_half(float f) {
  uint32_t x = float_bits(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
  x &= 0x7FFFFFFFu;
  if (x >= 0x7F800000u) return static_cast<uint16_t>(sign | 0x7C00u | (x > 0x7F800000u ? 0x200u : 0u));
  if (x >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);  // >= 65520 rounds to infinity
  if (x < 0x38800000u) {  // below 2^-14: subnormal, in units of 2^-24 (the scaling is exact)
    float units = round_small_even(float_from_bits(x) * 16777216.0f);
    return static_cast<uint16_t>(sign | static_cast<uint16_t>(units));
  }
  x += 0xFFFu + ((x >> 13) & 1u);  // round the 23-bit mantissa to 10 bits
  x -= (127u - 15u) << 23;
  return static_cast<uint16_t>(sign | (x >> 13));
}

// The neighbours of a finite half value (written as selects: the quantizer calls these once per group, on data
// whose directions a branch predictor cannot guess).
LYNX_HD inline uint16_t half_next_up(uint16_t h) {
  const uint32_t negative = static_cast<uint32_t>(h) >> 15;
  const uint32_t stepped = static_cast<uint32_t>(h) + 1u - 2u * negative;  // toward +infinity
  return static_cast<uint16_t>((h & 0x7FFFu) == 0 ? 0x0001u : stepped);
}
LYNX_HD inline uint16_t half_next_down(uint16_t h) {
  const uint32_t negative = static_cast<uint32_t>(h) >> 15;
  const uint32_t stepped = static_cast<uint32_t>(h) - 1u + 2u * negative;  // toward -infinity
  return static_cast<uint16_t>((h & 0x7FFFu) == 0 ? 0x8001u : stepped);
}
// Largest half <= f and smallest half >= f (f finite, |f| <= 65504).
LYNX_HD inline uint16_t float_to_half_down(float f) {
  const uint16_t h = float_to_half(f);
  const uint16_t below = half_next_down(h);
  return half_to_float(h) > f ? below : h;
}
LYNX_HD inline uint16_t float_to_half_up(float f) {
  const uint16_t h = float_to_half(f);
  const uint16_t above = half_next_up(h);
  return half_to_float(h) < f ? above : h;
}

// ---- bfloat16 ----
LYNX_HD inline uint16_t float_to_bf16(float f) {
  uint32_t u = float_bits(f);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}
LYNX_HD inline float bf16_to_float(uint16_t b) { return float_from_bits(static_cast<uint32_t>(b) << 16); }

// ---- fp8 E4M3 (OCP "FN" variant: bias 7, max 448, 0x7F/0xFF are NaN, no infinity) ----
constexpr float kFp8E4m3Max = 448.0f;

LYNX_HD inline float fp8_e4m3_to_float(uint8_t b) {
  const uint32_t exponent = (b >> 3) & 0xFu;
  const uint32_t mantissa = b & 0x7u;
  const uint32_t sign = static_cast<uint32_t>(b & 0x80u) << 24;
  if (exponent == 0)  // zero or subnormal: mantissa * 2^-9
    return float_from_bits(sign | float_bits(static_cast<float>(mantissa) * 0.001953125f));
  return float_from_bits(sign | ((exponent + 120u) << 23) | (mantissa << 20));  // (1 + m/8) * 2^(e-7)
}

// Saturates at +-448 (finite input assumed). Written without branches so that it vectorises; -0 encodes as +0.
LYNX_HD inline uint8_t float_to_fp8_e4m3(float v) {
  const uint32_t sign = v < 0 ? 0x80u : 0x00u;
  const float a = abs_float(v);
  // below 2^-6: subnormal, in units of 2^-9 (8 units = the smallest normal)
  const bool is_subnormal = a < 0.015625f;
  const uint32_t subnormal = static_cast<uint32_t>(round_small_even((is_subnormal ? a : 0.0f) * 512.0f));
  uint32_t x = float_bits(a);
  x += 0x7FFFFu + ((x >> 20) & 1u);  // round the mantissa to 3 bits
  const uint32_t exponent = (x >> 23) - 120u;  // - 127 + 7; wraps for a < 2^-6, which takes the subnormal branch
  const uint32_t normal = (exponent << 3) | ((x >> 20) & 0x7u);
  const uint32_t saturated = 0x7Eu;
  const uint32_t magnitude = a >= kFp8E4m3Max ? saturated
                             : is_subnormal    ? subnormal
                             : normal > saturated ? saturated
                                                  : normal;
  return static_cast<uint8_t>(sign | magnitude);
}

}  // namespace lynx
