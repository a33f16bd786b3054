// See codec_loops.hpp. The SSE2 forms follow the scalar ones step by step; where they reorder (clamping before
// rounding), the reason the result is the same is written beside it.
#include "kernels/codec_loops.hpp"

#include <algorithm>
#include <cstring>

#include "kernels/group_quant.hpp"
#include "kernels/scalar_types.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace lynx::codec_loops {

namespace {
// The first element equal to `value`: the one a sequential min/max keeps (only zeros of two signs compare equal
// while differing in their bits).
float first_equal(const float* x, int64_t n, float value) {
  for (int64_t j = 0; j < n; ++j)
    if (x[j] == value) return x[j];
  return value;
}
}  // namespace

// ---------------------------------------------------------------- scalar forms (the definition)

bool min_max_scalar(const float* x, int64_t n, float limit, float& lo, float& hi) {
  float a = x[0], b = x[0];
  bool ok = true;
  for (int64_t j = 0; j < n; ++j) {
    const float v = x[j];
    a = v < a ? v : a;
    b = b < v ? v : b;
    ok = ok && abs_float(v) <= limit;
  }
  lo = a;
  hi = b;
  return ok;
}

void group_params_scalar(const float* lo, const float* hi, int64_t count, int levels, uint8_t* meta, float* zero,
                         float* scale, float* inverse) {
  for (int64_t g = 0; g < count; ++g) {
    const GroupQuantParams p = group_quant_params(lo[g], hi[g], levels);
    std::memcpy(meta + 4 * g, &p.scale_half, 2);
    std::memcpy(meta + 4 * g + 2, &p.zero_half, 2);
    zero[g] = half_to_float(p.zero_half);
    scale[g] = half_to_float(p.scale_half);
    inverse[g] = group_inverse(scale[g]);
  }
}

bool in_range_scalar(const float* x, int64_t n, float limit) {
  for (int64_t j = 0; j < n; ++j)
    if (!(abs_float(x[j]) <= limit)) return false;
  return true;
}

void quantize_scalar(const float* x, int64_t n, float zero, float inverse, float top, int residual_bits, uint8_t* high,
                     uint8_t* low) {
  if (residual_bits == 0) {
    for (int64_t j = 0; j < n; ++j) high[j] = static_cast<uint8_t>(quant_code(x[j], zero, inverse, top));
    return;
  }
  const uint32_t mask = (1u << residual_bits) - 1;
  for (int64_t j = 0; j < n; ++j) {
    const uint32_t q = quant_code(x[j], zero, inverse, top);
    high[j] = static_cast<uint8_t>(q >> residual_bits);
    low[j] = static_cast<uint8_t>(q & mask);
  }
}

void quantize_rq_scalar(const float* x, int64_t n, float zero, float scale, float inverse, float top,
                        int residual_bits, uint8_t* anchor, uint8_t* residual) {
  const ResidualQuant r = residual_quant(scale, residual_bits);
  for (int64_t j = 0; j < n; ++j) {
    const uint32_t q = quant_code(x[j], zero, inverse, top);
    anchor[j] = static_cast<uint8_t>(q);
    residual[j] = static_cast<uint8_t>(residual_code(x[j], zero, scale, q, r));
  }
}

void quantize_channels_scalar(const float* x, int64_t n, const float* zero, const float* inverse, float top,
                              uint8_t* codes) {
  for (int64_t c = 0; c < n; ++c) codes[c] = static_cast<uint8_t>(quant_code(x[c], zero[c], inverse[c], top));
}

namespace {
template <int kBits>
void pack_bits(const uint8_t* codes, int64_t count, uint8_t* out) {
  const int64_t words = count / 8;
  for (int64_t i = 0; i < words; ++i) {
    uint64_t w;
    std::memcpy(&w, codes + 8 * i, 8);
    w = pack8_codes(w, kBits);
    std::memcpy(out + kBits * i, &w, kBits);
  }
  const int64_t rest = count - 8 * words;
  if (rest > 0) {
    uint64_t w = 0;
    std::memcpy(&w, codes + 8 * words, static_cast<size_t>(rest));
    w = pack8_codes(w, kBits);
    std::memcpy(out + kBits * words, &w, (rest * kBits + 7) / 8);
  }
}
template <int kBits>
void unpack_bits(const uint8_t* in, int64_t count, uint8_t* codes) {
  const int64_t words = count / 8;
  for (int64_t i = 0; i < words; ++i) {
    uint64_t w = 0;
    std::memcpy(&w, in + kBits * i, kBits);
    w = unpack8_codes(w, kBits);
    std::memcpy(codes + 8 * i, &w, 8);
  }
  const int64_t rest = count - 8 * words;
  if (rest > 0) {
    uint64_t w = 0;
    std::memcpy(&w, in + kBits * words, (rest * kBits + 7) / 8);
    w = unpack8_codes(w, kBits);
    std::memcpy(codes + 8 * words, &w, static_cast<size_t>(rest));
  }
}
}  // namespace

void unpack_codes_scalar(const uint8_t* in, int64_t count, int bits, uint8_t* codes) {
  switch (bits) {
    case 1: return unpack_bits<1>(in, count, codes);
    case 2: return unpack_bits<2>(in, count, codes);
    case 3: return unpack_bits<3>(in, count, codes);
    case 4: return unpack_bits<4>(in, count, codes);
    case 5: return unpack_bits<5>(in, count, codes);
    case 6: return unpack_bits<6>(in, count, codes);
    case 7: return unpack_bits<7>(in, count, codes);
    default: std::memcpy(codes, in, static_cast<size_t>(count)); return;
  }
}

void pack_codes_scalar(const uint8_t* codes, int64_t count, int bits, uint8_t* out) {
  switch (bits) {
    case 1: return pack_bits<1>(codes, count, out);
    case 2: return pack_bits<2>(codes, count, out);
    case 3: return pack_bits<3>(codes, count, out);
    case 4: return pack_bits<4>(codes, count, out);
    case 5: return pack_bits<5>(codes, count, out);
    case 6: return pack_bits<6>(codes, count, out);
    case 7: return pack_bits<7>(codes, count, out);
    default: std::memcpy(out, codes, static_cast<size_t>(count)); return;
  }
}

void to_bf16_scalar(const float* x, int64_t n, uint8_t* out) {
  for (int64_t j = 0; j < n; ++j) {
    const uint16_t b = float_to_bf16(x[j]);
    std::memcpy(out + 2 * j, &b, 2);
  }
}

void to_fp8_scalar(const float* x, int64_t n, float inverse, uint8_t* out) {
  for (int64_t j = 0; j < n; ++j) out[j] = float_to_fp8_e4m3(x[j] * inverse);
}

// ---------------------------------------------------------------- SSE2 forms
#if defined(__SSE2__)

namespace {

constexpr float kRoundMagic = 12582912.0f;  // 1.5 * 2^23, see round_small_even

// round((x - zero) * inverse) clamped to [0, top], as exact integers in floats. The scalar form rounds, then
// clamps; clamping first gives the same result because rounding is monotone and 0 and top are integers.
// maxps(t, 0) keeps t unless t <= 0; t >= +0 always (x >= zero), so nothing changes there either.
inline __m128 rounded_code(__m128 x, __m128 zero, __m128 inverse, __m128 top) {
  __m128 t = _mm_mul_ps(_mm_sub_ps(x, zero), inverse);
  t = _mm_min_ps(_mm_max_ps(t, _mm_setzero_ps()), top);
  const __m128 magic = _mm_set1_ps(kRoundMagic);
  return _mm_sub_ps(_mm_add_ps(t, magic), magic);
}

// 16 int32 lanes (values 0..255) to 16 bytes.
inline __m128i narrow_to_bytes(__m128i a, __m128i b, __m128i c, __m128i d) {
  return _mm_packus_epi16(_mm_packs_epi32(a, b), _mm_packs_epi32(c, d));
}

// Bytes shifted right by `bits` (SSE2 shifts 16-bit lanes: the mask drops the bits that cross into a byte).
inline __m128i bytes_shift_right(__m128i v, int bits) {
  return _mm_and_si128(_mm_srl_epi16(v, _mm_cvtsi32_si128(bits)), _mm_set1_epi8(static_cast<char>(0xFF >> bits)));
}

// ---- fp16 conversions of scalar_types.hpp, four lanes at a time (halves in the low 16 bits of int32 lanes) ----
inline __m128i select(__m128i mask, __m128i a, __m128i b) {  // mask ? a : b
  return _mm_or_si128(_mm_and_si128(mask, a), _mm_andnot_si128(mask, b));
}

inline __m128i float_to_half4(__m128 f) {
  const __m128i u = _mm_castps_si128(f);
  const __m128i sign = _mm_and_si128(_mm_srli_epi32(u, 16), _mm_set1_epi32(0x8000));
  const __m128i x = _mm_and_si128(u, _mm_set1_epi32(0x7FFFFFFF));  // below 2^31: signed compares are safe
  __m128i r = _mm_add_epi32(x, _mm_add_epi32(_mm_set1_epi32(0xFFF), _mm_and_si128(_mm_srli_epi32(x, 13), _mm_set1_epi32(1))));
  const __m128i normal = _mm_srli_epi32(_mm_sub_epi32(r, _mm_set1_epi32((127 - 15) << 23)), 13);
  const __m128 magic = _mm_set1_ps(kRoundMagic);
  const __m128 units = _mm_mul_ps(_mm_castsi128_ps(x), _mm_set1_ps(16777216.0f));
  const __m128i subnormal = _mm_cvttps_epi32(_mm_sub_ps(_mm_add_ps(_mm_min_ps(units, _mm_set1_ps(2048.0f)), magic), magic));
  const __m128i infinity = _mm_set1_epi32(0x7C00);
  const __m128i nan = _mm_or_si128(infinity, _mm_and_si128(_mm_cmpgt_epi32(x, _mm_set1_epi32(0x7F800000)),
                                                           _mm_set1_epi32(0x200)));
  __m128i h = select(_mm_cmplt_epi32(x, _mm_set1_epi32(0x38800000)), subnormal, normal);
  h = select(_mm_cmpgt_epi32(x, _mm_set1_epi32(0x477FEFFF)), infinity, h);
  h = select(_mm_cmpgt_epi32(x, _mm_set1_epi32(0x7F7FFFFF)), nan, h);
  return _mm_or_si128(sign, h);
}

inline __m128 half_to_float4(__m128i h) {
  const __m128i sign = _mm_slli_epi32(_mm_and_si128(h, _mm_set1_epi32(0x8000)), 16);
  const __m128i exponent = _mm_and_si128(_mm_srli_epi32(h, 10), _mm_set1_epi32(0x1F));
  const __m128i mantissa = _mm_and_si128(h, _mm_set1_epi32(0x3FF));
  const __m128i normal = _mm_or_si128(_mm_slli_epi32(_mm_add_epi32(exponent, _mm_set1_epi32(112)), 23),
                                      _mm_slli_epi32(mantissa, 13));
  const __m128i subnormal = _mm_castps_si128(_mm_mul_ps(_mm_cvtepi32_ps(mantissa), _mm_set1_ps(5.9604644775390625e-8f)));
  const __m128i special = _mm_or_si128(_mm_set1_epi32(0x7F800000), _mm_slli_epi32(mantissa, 13));
  __m128i bits = select(_mm_cmpeq_epi32(exponent, _mm_setzero_si128()), subnormal, normal);
  bits = select(_mm_cmpeq_epi32(exponent, _mm_set1_epi32(31)), special, bits);
  return _mm_castsi128_ps(_mm_or_si128(sign, bits));
}

inline __m128i half_step4(__m128i h, bool up) {  // half_next_up / half_next_down
  const __m128i negative = _mm_srli_epi32(h, 15);
  const __m128i one = _mm_set1_epi32(1), two_negative = _mm_add_epi32(negative, negative);
  const __m128i stepped = up ? _mm_sub_epi32(_mm_add_epi32(h, one), two_negative)
                             : _mm_add_epi32(_mm_sub_epi32(h, one), two_negative);
  const __m128i is_zero = _mm_cmpeq_epi32(_mm_and_si128(h, _mm_set1_epi32(0x7FFF)), _mm_setzero_si128());
  return select(is_zero, _mm_set1_epi32(up ? 0x0001 : 0x8001), stepped);
}

}  // namespace

void group_params(const float* lo, const float* hi, int64_t count, int levels, uint8_t* meta, float* zero,
                  float* scale, float* inverse) {
  const __m128 top = _mm_set1_ps(static_cast<float>(levels - 1));
  int64_t g = 0;
  for (; g + 4 <= count; g += 4) {  // group_quant_params, lane by lane
    const __m128 l = _mm_loadu_ps(lo + g), h = _mm_loadu_ps(hi + g);
    __m128i z = float_to_half4(l);
    z = select(_mm_castps_si128(_mm_cmpgt_ps(half_to_float4(z), l)), half_step4(z, false), z);
    const __m128 zf = half_to_float4(z);
    const __m128 step = _mm_div_ps(_mm_sub_ps(h, zf), top);
    __m128i s = float_to_half4(step);
    s = select(_mm_castps_si128(_mm_cmplt_ps(half_to_float4(s), step)), half_step4(s, true), s);
    for (;;) {  // widen the lanes whose grid falls short of the max, as the scalar while loop does
      const __m128 short_of_max = _mm_cmplt_ps(_mm_add_ps(zf, _mm_mul_ps(top, half_to_float4(s))), h);
      if (_mm_movemask_ps(short_of_max) == 0) break;
      s = select(_mm_castps_si128(short_of_max), half_step4(s, true), s);
    }
    const __m128 sf = half_to_float4(s);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(meta + 4 * g), _mm_or_si128(s, _mm_slli_epi32(z, 16)));
    _mm_storeu_ps(zero + g, zf);
    _mm_storeu_ps(scale + g, sf);
    // group_inverse: 1/scale, or 0 where scale is not positive
    _mm_storeu_ps(inverse + g, _mm_and_ps(_mm_cmpgt_ps(sf, _mm_setzero_ps()), _mm_div_ps(_mm_set1_ps(1.0f), sf)));
  }
  group_params_scalar(lo + g, hi + g, count - g, levels, meta + 4 * g, zero + g, scale + g, inverse + g);
}

bool min_max(const float* x, int64_t n, float limit, float& lo, float& hi) {
  if (n < 8) return min_max_scalar(x, n, limit, lo, hi);
  // _mm_min_ps(v, l) is exactly `v < l ? v : l` and _mm_max_ps(v, h) exactly `v > h ? v : h`: a NaN never wins,
  // so NaN is tracked apart (cmpunord); infinities end up in the extremes and fail the range test below.
  __m128 l0 = _mm_set1_ps(x[0]), l1 = l0, h0 = l0, h1 = l0, nan = _mm_setzero_ps();
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m128 v0 = _mm_loadu_ps(x + j), v1 = _mm_loadu_ps(x + j + 4);
    l0 = _mm_min_ps(v0, l0);
    l1 = _mm_min_ps(v1, l1);
    h0 = _mm_max_ps(v0, h0);
    h1 = _mm_max_ps(v1, h1);
    nan = _mm_or_ps(nan, _mm_or_ps(_mm_cmpunord_ps(v0, v0), _mm_cmpunord_ps(v1, v1)));
  }
  // Across the lanes: the value of a min or max does not depend on the order (a zero's sign is settled below).
  __m128 l = _mm_min_ps(l0, l1), h = _mm_max_ps(h0, h1);
  l = _mm_min_ps(l, _mm_movehl_ps(l, l));
  h = _mm_max_ps(h, _mm_movehl_ps(h, h));
  l = _mm_min_ss(l, _mm_shuffle_ps(l, l, 1));
  h = _mm_max_ss(h, _mm_shuffle_ps(h, h, 1));
  bool ok = _mm_movemask_ps(nan) == 0 && x[0] == x[0];
  float a = _mm_cvtss_f32(l), b = _mm_cvtss_f32(h);
  for (; j < n; ++j) {
    const float v = x[j];
    a = v < a ? v : a;
    b = b < v ? v : b;
    ok = ok && v == v;
  }
  if (!ok || !(a >= -limit) || !(b <= limit)) return false;
  lo = a == 0.0f ? first_equal(x, n, a) : a;
  hi = b == 0.0f ? first_equal(x, n, b) : b;
  return true;
}

bool in_range(const float* x, int64_t n, float limit) {
  const __m128 sign = _mm_set1_ps(-0.0f);
  __m128 big = _mm_setzero_ps(), nan = _mm_setzero_ps();
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const __m128 v0 = _mm_loadu_ps(x + j), v1 = _mm_loadu_ps(x + j + 4);
    big = _mm_max_ps(_mm_max_ps(_mm_andnot_ps(sign, v0), _mm_andnot_ps(sign, v1)), big);
    nan = _mm_or_ps(nan, _mm_or_ps(_mm_cmpunord_ps(v0, v0), _mm_cmpunord_ps(v1, v1)));
  }
  const bool ok = _mm_movemask_ps(_mm_or_ps(nan, _mm_cmpgt_ps(big, _mm_set1_ps(limit)))) == 0;
  return ok && in_range_scalar(x + j, n - j, limit);
}

bool has_avx2() {
#if defined(LYNX_CODEC_AVX2)
  static const bool yes = __builtin_cpu_supports("avx2");
  return yes;
#else
  return false;
#endif
}

void quantize(const float* x, int64_t n, float zero, float inverse, float top, int residual_bits, uint8_t* high,
              uint8_t* low) {
  if (has_avx2()) return quantize_avx2(x, n, zero, inverse, top, residual_bits, high, low);
  quantize_sse2(x, n, zero, inverse, top, residual_bits, high, low);
}

void quantize_rq(const float* x, int64_t n, float zero, float scale, float inverse, float top, int residual_bits,
                 uint8_t* anchor, uint8_t* residual) {
  if (has_avx2()) return quantize_rq_avx2(x, n, zero, scale, inverse, top, residual_bits, anchor, residual);
  quantize_rq_sse2(x, n, zero, scale, inverse, top, residual_bits, anchor, residual);
}

void quantize_sse2(const float* x, int64_t n, float zero, float inverse, float top, int residual_bits, uint8_t* high,
                   uint8_t* low) {
  const __m128 z = _mm_set1_ps(zero), inv = _mm_set1_ps(inverse), t = _mm_set1_ps(top);
  const __m128i low_mask = _mm_set1_epi8(static_cast<char>((1 << residual_bits) - 1));
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const __m128i codes = narrow_to_bytes(_mm_cvttps_epi32(rounded_code(_mm_loadu_ps(x + j), z, inv, t)),
                                          _mm_cvttps_epi32(rounded_code(_mm_loadu_ps(x + j + 4), z, inv, t)),
                                          _mm_cvttps_epi32(rounded_code(_mm_loadu_ps(x + j + 8), z, inv, t)),
                                          _mm_cvttps_epi32(rounded_code(_mm_loadu_ps(x + j + 12), z, inv, t)));
    if (residual_bits == 0) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(high + j), codes);
    } else {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(high + j), bytes_shift_right(codes, residual_bits));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(low + j), _mm_and_si128(codes, low_mask));
    }
  }
  quantize_scalar(x + j, n - j, zero, inverse, top, residual_bits, high + j, residual_bits ? low + j : low);
}

void quantize_rq_sse2(const float* x, int64_t n, float zero, float scale, float inverse, float top, int residual_bits,
                      uint8_t* anchor, uint8_t* residual) {
  // residual_quant's r_inverse is 1 / (scale / 2^R): both divisions by 2^R are exact (scale is an fp16 value, far
  // from the float range's ends), so it equals inverse * 2^R, also where scale is 0 or infinite (both give 0).
  const __m128 z = _mm_set1_ps(zero), s = _mm_set1_ps(scale), inv = _mm_set1_ps(inverse), t = _mm_set1_ps(top);
  const __m128 r_inverse = _mm_set1_ps(inverse * static_cast<float>(1 << residual_bits));
  const __m128 half = _mm_set1_ps(static_cast<float>(1 << (residual_bits - 1)));
  const __m128 r_top = _mm_set1_ps(static_cast<float>((1 << residual_bits) - 1));
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m128i q[4], e[4];
    for (int k = 0; k < 4; ++k) {
      const __m128 v = _mm_loadu_ps(x + j + 4 * k);
      const __m128 code = rounded_code(v, z, inv, t);
      q[k] = _mm_cvttps_epi32(code);
      // residual_code: floor(y) clamped to [0, r_top], y = (v - (zero + code*scale)) * r_inverse + half. Clamping
      // y first gives the same integer (floor is monotone, 0 and r_top are integers), and for y >= 0 floor is the
      // truncation that cvttps does.
      const __m128 y = _mm_add_ps(_mm_mul_ps(_mm_sub_ps(v, _mm_add_ps(z, _mm_mul_ps(code, s))), r_inverse), half);
      e[k] = _mm_cvttps_epi32(_mm_min_ps(_mm_max_ps(y, _mm_setzero_ps()), r_top));
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(anchor + j), narrow_to_bytes(q[0], q[1], q[2], q[3]));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(residual + j), narrow_to_bytes(e[0], e[1], e[2], e[3]));
  }
  quantize_rq_scalar(x + j, n - j, zero, scale, inverse, top, residual_bits, anchor + j, residual + j);
}

void quantize_channels(const float* x, int64_t n, const float* zero, const float* inverse, float top,
                       uint8_t* codes) {
  const __m128 t = _mm_set1_ps(top);
  int64_t c = 0;
  for (; c + 16 <= n; c += 16) {
    __m128i q[4];
    for (int k = 0; k < 4; ++k)
      q[k] = _mm_cvttps_epi32(rounded_code(_mm_loadu_ps(x + c + 4 * k), _mm_loadu_ps(zero + c + 4 * k),
                                           _mm_loadu_ps(inverse + c + 4 * k), t));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(codes + c), narrow_to_bytes(q[0], q[1], q[2], q[3]));
  }
  quantize_channels_scalar(x + c, n - c, zero + c, inverse + c, top, codes + c);
}

void pack_codes(const uint8_t* codes, int64_t count, int bits, uint8_t* out) {
  int64_t j = 0;
  if (bits == 4) {  // 16-bit lane b0 | b1 << 8 -> byte b0 | b1 << 4
    const __m128i byte = _mm_set1_epi16(0x00FF);
    for (; j + 32 <= count; j += 32) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + j));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + j + 16));
      const __m128i pa = _mm_and_si128(_mm_or_si128(a, _mm_srli_epi16(a, 4)), byte);
      const __m128i pb = _mm_and_si128(_mm_or_si128(b, _mm_srli_epi16(b, 4)), byte);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j / 2), _mm_packus_epi16(pa, pb));
    }
  } else if (bits == 2) {  // then 32-bit lane n0 | n1 << 16 -> byte n0 | n1 << 4
    const __m128i nibble = _mm_set1_epi16(0x000F), byte = _mm_set1_epi32(0xFF);
    for (; j + 16 <= count; j += 16) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(codes + j));
      const __m128i n = _mm_and_si128(_mm_or_si128(a, _mm_srli_epi16(a, 6)), nibble);
      const __m128i b = _mm_and_si128(_mm_or_si128(n, _mm_srli_epi32(n, 12)), byte);
      const __m128i packed = _mm_packus_epi16(_mm_packs_epi32(b, b), _mm_setzero_si128());
      const uint32_t word = static_cast<uint32_t>(_mm_cvtsi128_si32(packed));
      std::memcpy(out + j / 4, &word, 4);
    }
  }
  pack_codes_scalar(codes + j, count - j, bits, out + j * bits / 8);
}

void unpack_codes(const uint8_t* in, int64_t count, int bits, uint8_t* codes) {
  int64_t j = 0;
  if (bits == 4) {  // byte b -> codes b & 15, b >> 4, interleaved
    const __m128i nibble = _mm_set1_epi8(0x0F);
    for (; j + 32 <= count; j += 32) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + j / 2));
      const __m128i lo = _mm_and_si128(v, nibble), hi = _mm_and_si128(_mm_srli_epi16(v, 4), nibble);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(codes + j), _mm_unpacklo_epi8(lo, hi));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(codes + j + 16), _mm_unpackhi_epi8(lo, hi));
    }
  } else if (bits == 2) {  // byte b -> codes b & 3, (b >> 2) & 3, (b >> 4) & 3, b >> 6
    const __m128i two = _mm_set1_epi8(0x03);
    for (; j + 64 <= count; j += 64) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + j / 4));
      const __m128i c0 = _mm_and_si128(v, two), c1 = _mm_and_si128(_mm_srli_epi16(v, 2), two);
      const __m128i c2 = _mm_and_si128(_mm_srli_epi16(v, 4), two), c3 = _mm_and_si128(_mm_srli_epi16(v, 6), two);
      const __m128i c01_lo = _mm_unpacklo_epi8(c0, c1), c01_hi = _mm_unpackhi_epi8(c0, c1);
      const __m128i c23_lo = _mm_unpacklo_epi8(c2, c3), c23_hi = _mm_unpackhi_epi8(c2, c3);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(codes + j), _mm_unpacklo_epi16(c01_lo, c23_lo));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(codes + j + 16), _mm_unpackhi_epi16(c01_lo, c23_lo));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(codes + j + 32), _mm_unpacklo_epi16(c01_hi, c23_hi));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(codes + j + 48), _mm_unpackhi_epi16(c01_hi, c23_hi));
    }
  }
  unpack_codes_scalar(in + j * bits / 8, count - j, bits, codes + j);
}

void to_bf16(const float* x, int64_t n, uint8_t* out) {
  const __m128i bias = _mm_set1_epi32(0x7FFF), one = _mm_set1_epi32(1);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    __m128i h[2];
    for (int k = 0; k < 2; ++k) {
      __m128i u = _mm_castps_si128(_mm_loadu_ps(x + j + 4 * k));
      u = _mm_add_epi32(u, _mm_add_epi32(bias, _mm_and_si128(_mm_srli_epi32(u, 16), one)));
      h[k] = _mm_srai_epi32(u, 16);  // sign-extended, so the saturating pack below keeps the 16 bits as they are
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 2 * j), _mm_packs_epi32(h[0], h[1]));
  }
  to_bf16_scalar(x + j, n - j, out + 2 * j);
}

void to_fp8(const float* x, int64_t n, float inverse, uint8_t* out) {
  if (has_avx2()) return to_fp8_avx2(x, n, inverse, out);
  to_fp8_sse2(x, n, inverse, out);
}

void to_fp8_sse2(const float* x, int64_t n, float inverse, uint8_t* out) {
  const __m128 inv = _mm_set1_ps(inverse), sign_bit = _mm_set1_ps(-0.0f), magic = _mm_set1_ps(kRoundMagic);
  const __m128i saturated = _mm_set1_epi32(0x7E);
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    __m128i b[4];
    for (int k = 0; k < 4; ++k) {  // float_to_fp8_e4m3, lane by lane
      const __m128 v = _mm_mul_ps(_mm_loadu_ps(x + j + 4 * k), inv);
      const __m128i sign = _mm_and_si128(_mm_castps_si128(_mm_cmplt_ps(v, _mm_setzero_ps())), _mm_set1_epi32(0x80));
      const __m128 a = _mm_andnot_ps(sign_bit, v);
      const __m128 is_subnormal = _mm_cmplt_ps(a, _mm_set1_ps(0.015625f));
      const __m128 units = _mm_mul_ps(_mm_and_ps(is_subnormal, a), _mm_set1_ps(512.0f));
      const __m128i subnormal = _mm_cvttps_epi32(_mm_sub_ps(_mm_add_ps(units, magic), magic));
      __m128i u = _mm_castps_si128(a);
      u = _mm_add_epi32(u, _mm_add_epi32(_mm_set1_epi32(0x7FFFF), _mm_and_si128(_mm_srli_epi32(u, 20), _mm_set1_epi32(1))));
      const __m128i exponent = _mm_sub_epi32(_mm_srli_epi32(u, 23), _mm_set1_epi32(120));
      __m128i normal = _mm_or_si128(_mm_slli_epi32(exponent, 3), _mm_and_si128(_mm_srli_epi32(u, 20), _mm_set1_epi32(7)));
      // a normal above 0x7E saturates (signed compare: the wrapped values of subnormal lanes are replaced below)
      const __m128i over = _mm_cmpgt_epi32(normal, saturated);
      normal = _mm_or_si128(_mm_and_si128(over, saturated), _mm_andnot_si128(over, normal));
      const __m128i sub = _mm_castps_si128(is_subnormal);
      __m128i magnitude = _mm_or_si128(_mm_and_si128(sub, subnormal), _mm_andnot_si128(sub, normal));
      const __m128i big = _mm_castps_si128(_mm_cmpge_ps(a, _mm_set1_ps(kFp8E4m3Max)));
      magnitude = _mm_or_si128(_mm_and_si128(big, saturated), _mm_andnot_si128(big, magnitude));
      b[k] = _mm_or_si128(sign, magnitude);
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + j), narrow_to_bytes(b[0], b[1], b[2], b[3]));
  }
  to_fp8_scalar(x + j, n - j, inverse, out + j);
}

#else  // no SSE2: the scalar forms

bool min_max(const float* x, int64_t n, float limit, float& lo, float& hi) {
  return min_max_scalar(x, n, limit, lo, hi);
}
bool in_range(const float* x, int64_t n, float limit) { return in_range_scalar(x, n, limit); }
void group_params(const float* lo, const float* hi, int64_t count, int levels, uint8_t* meta, float* zero,
                  float* scale, float* inverse) {
  group_params_scalar(lo, hi, count, levels, meta, zero, scale, inverse);
}
bool has_avx2() { return false; }
void quantize(const float* x, int64_t n, float zero, float inverse, float top, int residual_bits, uint8_t* high,
              uint8_t* low) {
  quantize_scalar(x, n, zero, inverse, top, residual_bits, high, low);
}
void quantize_rq(const float* x, int64_t n, float zero, float scale, float inverse, float top, int residual_bits,
                 uint8_t* anchor, uint8_t* residual) {
  quantize_rq_scalar(x, n, zero, scale, inverse, top, residual_bits, anchor, residual);
}
void quantize_sse2(const float* x, int64_t n, float zero, float inverse, float top, int residual_bits, uint8_t* high,
                   uint8_t* low) {
  quantize_scalar(x, n, zero, inverse, top, residual_bits, high, low);
}
void quantize_rq_sse2(const float* x, int64_t n, float zero, float scale, float inverse, float top, int residual_bits,
                      uint8_t* anchor, uint8_t* residual) {
  quantize_rq_scalar(x, n, zero, scale, inverse, top, residual_bits, anchor, residual);
}
void quantize_channels(const float* x, int64_t n, const float* zero, const float* inverse, float top,
                       uint8_t* codes) {
  quantize_channels_scalar(x, n, zero, inverse, top, codes);
}
void to_bf16(const float* x, int64_t n, uint8_t* out) { to_bf16_scalar(x, n, out); }
void pack_codes(const uint8_t* codes, int64_t count, int bits, uint8_t* out) {
  pack_codes_scalar(codes, count, bits, out);
}
void unpack_codes(const uint8_t* in, int64_t count, int bits, uint8_t* codes) {
  unpack_codes_scalar(in, count, bits, codes);
}
void to_fp8(const float* x, int64_t n, float inverse, uint8_t* out) { to_fp8_scalar(x, n, inverse, out); }
void to_fp8_sse2(const float* x, int64_t n, float inverse, uint8_t* out) { to_fp8_scalar(x, n, inverse, out); }

#endif

#if !defined(LYNX_CODEC_AVX2)  // codec_loops_avx2.cpp not built: has_avx2() is false and these are never chosen
void quantize_avx2(const float* x, int64_t n, float zero, float inverse, float top, int residual_bits, uint8_t* high,
                   uint8_t* low) {
  quantize_scalar(x, n, zero, inverse, top, residual_bits, high, low);
}
void quantize_rq_avx2(const float* x, int64_t n, float zero, float scale, float inverse, float top,
                      int residual_bits, uint8_t* anchor, uint8_t* residual) {
  quantize_rq_scalar(x, n, zero, scale, inverse, top, residual_bits, anchor, residual);
}
void to_fp8_avx2(const float* x, int64_t n, float inverse, uint8_t* out) { to_fp8_scalar(x, n, inverse, out); }
#endif

// ---------------------------------------------------------------- rows of groups

bool min_max_row(const float* x, int64_t n, int64_t group, float limit, float* lo, float* hi) {
  for (int64_t g = 0, begin = 0; begin < n; ++g, begin += group)
    if (!min_max(x + begin, std::min(group, n - begin), limit, lo[g], hi[g])) return false;
  return true;
}

void quantize_row(const float* x, int64_t n, int64_t group, const float* zero, const float* scale, const float* inverse,
                  float top, int residual_bits, bool residual_quant, uint8_t* high, uint8_t* low) {
  for (int64_t g = 0, begin = 0; begin < n; ++g, begin += group) {
    const int64_t count = std::min(group, n - begin);
    if (residual_quant)
      quantize_rq(x + begin, count, zero[g], scale[g], inverse[g], top, residual_bits, high + begin, low + begin);
    else
      quantize(x + begin, count, zero[g], inverse[g], top, residual_bits, high + begin, low + begin);
  }
}

}  // namespace lynx::codec_loops
