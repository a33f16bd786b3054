// AVX2 forms of the heaviest codec loops (codec_loops.hpp: quantize, quantize_rq, to_fp8), 8 floats per instruction.
// This file alone is compiled with -mavx2 (no FMA: -mavx2 does not enable it, and -ffp-contract=off forbids it);
// codec_loops.cpp calls these only when the CPU reports AVX2. Each step is the SSE2 form's, twice as wide; the
// tests compare every form with the scalar definition.
#include <immintrin.h>

#include <cstdint>

#include "kernels/codec_loops.hpp"

namespace lynx::codec_loops {

namespace {

constexpr float kRoundMagic = 12582912.0f;  // 1.5 * 2^23, see round_small_even

// round((x - zero) * inverse) clamped to [0, top], as exact integers in floats (see codec_loops.cpp's SSE2 form).
inline __m256 rounded_code(__m256 x, __m256 zero, __m256 inverse, __m256 top) {
  __m256 t = _mm256_mul_ps(_mm256_sub_ps(x, zero), inverse);
  t = _mm256_min_ps(_mm256_max_ps(t, _mm256_setzero_ps()), top);
  const __m256 magic = _mm256_set1_ps(kRoundMagic);
  return _mm256_sub_ps(_mm256_add_ps(t, magic), magic);
}

// 16 int32 lanes (values 0..255) to 16 bytes, in order.
inline __m128i narrow_to_bytes(__m256i a, __m256i b) {
  const __m128i lo = _mm_packs_epi32(_mm256_castsi256_si128(a), _mm256_extracti128_si256(a, 1));
  const __m128i hi = _mm_packs_epi32(_mm256_castsi256_si128(b), _mm256_extracti128_si256(b, 1));
  return _mm_packus_epi16(lo, hi);
}

inline __m128i bytes_shift_right(__m128i v, int bits) {
  return _mm_and_si128(_mm_srl_epi16(v, _mm_cvtsi32_si128(bits)), _mm_set1_epi8(static_cast<char>(0xFF >> bits)));
}

}  // namespace

void quantize_avx2(const float* x, int64_t n, float zero, float inverse, float top, int residual_bits, uint8_t* high,
                   uint8_t* low) {
  const __m256 z = _mm256_set1_ps(zero), inv = _mm256_set1_ps(inverse), t = _mm256_set1_ps(top);
  const __m128i low_mask = _mm_set1_epi8(static_cast<char>((1 << residual_bits) - 1));
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m128i codes = narrow_to_bytes(_mm256_cvttps_epi32(rounded_code(_mm256_loadu_ps(x + j), z, inv, t)),
                                          _mm256_cvttps_epi32(rounded_code(_mm256_loadu_ps(x + j + 8), z, inv, t)));
    if (residual_bits == 0) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(high + j), codes);
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(high + j), bytes_shift_right(codes, residual_bits));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(low + j), _mm_and_si128(codes, low_mask));
    }
  }
  quantize_scalar(x + j, n - j, zero, inverse, top, residual_bits, high + j, residual_bits ? low + j : low);
}

void quantize_rq_avx2(const float* x, int64_t n, float zero, float scale, float inverse, float top,
                      int residual_bits, uint8_t* anchor, uint8_t* residual) {
  // r_inverse = inverse * 2^R exactly (see the SSE2 form)
  const __m256 z = _mm256_set1_ps(zero), s = _mm256_set1_ps(scale), inv = _mm256_set1_ps(inverse),
               t = _mm256_set1_ps(top);
  const __m256 r_inverse = _mm256_set1_ps(inverse * static_cast<float>(1 << residual_bits));
  const __m256 half = _mm256_set1_ps(static_cast<float>(1 << (residual_bits - 1)));
  const __m256 r_top = _mm256_set1_ps(static_cast<float>((1 << residual_bits) - 1));
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m256i q[2], e[2];
    for (int k = 0; k < 2; ++k) {
      const __m256 v = _mm256_loadu_ps(x + j + 8 * k);
      const __m256 code = rounded_code(v, z, inv, t);
      q[k] = _mm256_cvttps_epi32(code);
      const __m256 y =
          _mm256_add_ps(_mm256_mul_ps(_mm256_sub_ps(v, _mm256_add_ps(z, _mm256_mul_ps(code, s))), r_inverse), half);
      e[k] = _mm256_cvttps_epi32(_mm256_min_ps(_mm256_max_ps(y, _mm256_setzero_ps()), r_top));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(anchor + j), narrow_to_bytes(q[0], q[1]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(residual + j), narrow_to_bytes(e[0], e[1]));
  }
  quantize_rq_scalar(x + j, n - j, zero, scale, inverse, top, residual_bits, anchor + j, residual + j);
}

void to_fp8_avx2(const float* x, int64_t n, float inverse, uint8_t* out) {
  const __m256 inv = _mm256_set1_ps(inverse), sign_bit = _mm256_set1_ps(-0.0f), magic = _mm256_set1_ps(kRoundMagic);
  const __m256i saturated = _mm256_set1_epi32(0x7E);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m256i b[2];
    for (int k = 0; k < 2; ++k) {  // float_to_fp8_e4m3, lane by lane (see the SSE2 form)
      const __m256 v = _mm256_mul_ps(_mm256_loadu_ps(x + j + 8 * k), inv);
      const __m256i sign = _mm256_and_si256(_mm256_castps_si256(_mm256_cmp_ps(v, _mm256_setzero_ps(), _CMP_LT_OQ)),
                                            _mm256_set1_epi32(0x80));
      const __m256 a = _mm256_andnot_ps(sign_bit, v);
      const __m256 is_subnormal = _mm256_cmp_ps(a, _mm256_set1_ps(0.015625f), _CMP_LT_OQ);
      const __m256 units = _mm256_mul_ps(_mm256_and_ps(is_subnormal, a), _mm256_set1_ps(512.0f));
      const __m256i subnormal = _mm256_cvttps_epi32(_mm256_sub_ps(_mm256_add_ps(units, magic), magic));
      __m256i u = _mm256_castps_si256(a);
      u = _mm256_add_epi32(u, _mm256_add_epi32(_mm256_set1_epi32(0x7FFFF),
                                               _mm256_and_si256(_mm256_srli_epi32(u, 20), _mm256_set1_epi32(1))));
      const __m256i exponent = _mm256_sub_epi32(_mm256_srli_epi32(u, 23), _mm256_set1_epi32(120));
      __m256i normal = _mm256_or_si256(_mm256_slli_epi32(exponent, 3),
                                       _mm256_and_si256(_mm256_srli_epi32(u, 20), _mm256_set1_epi32(7)));
      normal = _mm256_blendv_epi8(normal, saturated, _mm256_cmpgt_epi32(normal, saturated));
      __m256i magnitude = _mm256_blendv_epi8(normal, subnormal, _mm256_castps_si256(is_subnormal));
      const __m256 big = _mm256_cmp_ps(a, _mm256_set1_ps(448.0f), _CMP_GE_OQ);
      magnitude = _mm256_blendv_epi8(magnitude, saturated, _mm256_castps_si256(big));
      b[k] = _mm256_or_si256(sign, magnitude);
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), narrow_to_bytes(b[0], b[1]));
  }
  to_fp8_scalar(x + j, n - j, inverse, out + j);
}

}  // namespace lynx::codec_loops
