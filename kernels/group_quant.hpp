// The arithmetic of per-group asymmetric quantization, shared word for word by the CPU reference codecs
// (kv_codec.cpp) and the CUDA kernels (kernels/cuda/), so that both produce the same bytes and the same floats:
//   - the group's fp16 scale and zero point (rounded outward, see kv_codec.hpp),
//   - the code of one element, the residual-quant code of its error,
//   - the reconstruction of one element for every split and for anchor-only decoding,
//   - the LSB-first packing of 8 codes of `bits` bits into `bits` bytes (SWAR on one 64-bit word).
// Every float operation goes through mul_rn/add_rn/sub_rn/div_rn: nvcc contracts a*b+c into one FMA by default,
// which rounds once instead of twice; these keep the two roundings of the CPU code on the GPU too.
#pragma once
#include <cstdint>

#include "kernels/scalar_types.hpp"

namespace lynx {

// ---- float operations that are never fused ----
LYNX_HD inline float mul_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}
LYNX_HD inline float add_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}
LYNX_HD inline float sub_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}
LYNX_HD inline float div_rn(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fdiv_rn(a, b);
#else
  return a / b;
#endif
}
// std::clamp(v, lo, hi) for non-NaN v.
LYNX_HD inline float clamp_float(float v, float lo, float hi) { return v < lo ? lo : (hi < v ? hi : v); }
// std::floor for |v| < 2^31 (the CPU form vectorises without SSE4.1). NaN and values out of that range give -2^31 on
// the CPU, as x86's truncating conversion (cvttps2dq) does in the vector loops; converting them to int32_t in C++
// would be undefined.
LYNX_HD inline float floor_small(float v) {
#if defined(__CUDA_ARCH__)
  return floorf(v);
#else
  const float in_range = (v > -2147483648.0f && v < 2147483648.0f) ? v : -2147483648.0f;
  const float t = static_cast<float>(static_cast<int32_t>(in_range));
  return t - (t > in_range ? 1.0f : 0.0f);
#endif
}

// ---- group parameters ----
// Per-group quantization parameters as stored on the wire (fp16 bits), for `levels` = 2^bits codes.
struct GroupQuantParams {
  uint16_t scale_half = 0;
  uint16_t zero_half = 0;
};

// zero = the largest fp16 <= min_value; scale = the smallest fp16 with zero + (levels-1)*scale >= max_value.
LYNX_HD inline GroupQuantParams group_quant_params(float min_value, float max_value, int levels) {
  GroupQuantParams p;
  p.zero_half = float_to_half_down(min_value);
  const float zero = half_to_float(p.zero_half);
  const float top = static_cast<float>(levels - 1);
  p.scale_half = float_to_half_up(div_rn(sub_rn(max_value, zero), top));
  // The float division may round below the real quotient: widen until the grid reaches max_value.
  while (add_rn(zero, mul_rn(top, half_to_float(p.scale_half))) < max_value) p.scale_half = half_next_up(p.scale_half);
  return p;
}

LYNX_HD inline float group_inverse(float scale) { return scale > 0 ? div_rn(1.0f, scale) : 0.0f; }

// ---- element codes ----
// round((x - zero) / scale) clamped to [0, top]; x >= zero, so the rounded value is >= 0.
LYNX_HD inline uint32_t quant_code(float x, float zero, float inverse, float top) {
  // Through int32: the signed conversion is one instruction on every SIMD unit, the unsigned one is not.
  return static_cast<uint32_t>(
      static_cast<int32_t>(clamp_float(round_small_even(mul_rn(sub_rn(x, zero), inverse)), 0.0f, top)));
}

// Residual-quant split: the anchor's error x - (zero + q*scale), quantized with step scale/2^R around 0.
struct ResidualQuant {
  float r_inverse = 0;    // 2^R / scale (0 when scale is 0)
  float half_levels = 0;  // 2^(R-1)
  float r_top = 0;        // 2^R - 1
};
LYNX_HD inline ResidualQuant residual_quant(float scale, int residual_bits) {
  ResidualQuant r;
  const int levels = 1 << residual_bits;
  const float r_scale = div_rn(scale, static_cast<float>(levels));
  r.r_inverse = r_scale > 0 ? div_rn(1.0f, r_scale) : 0.0f;
  r.half_levels = static_cast<float>(levels / 2);
  r.r_top = static_cast<float>(levels - 1);
  return r;
}
LYNX_HD inline uint32_t residual_code(float x, float zero, float scale, uint32_t anchor_code, const ResidualQuant& r) {
  const float error = sub_rn(x, add_rn(zero, mul_rn(static_cast<float>(anchor_code), scale)));
  return static_cast<uint32_t>(
      static_cast<int32_t>(clamp_float(floor_small(add_rn(mul_rn(error, r.r_inverse), r.half_levels)), 0.0f, r.r_top)));
}

// ---- reconstruction ----
// What one group's decoder needs; `full` is false when decoding a Lynx anchor without its residual.
struct GroupDequant {
  float zero = 0, scale = 0;
  float residual_scale = 0;  // scale / 2^R (residual-quant)
  float anchor_centre = 0;   // (2^R - 1) / 2 (bit-slice, anchor-only)
  float residual_offset = 0; // 2^(R-1) (residual-quant)
  int residual_bits = 0;     // 0 for formats without a residual
  bool bit_slice = true;
  bool full = true;
};
LYNX_HD inline GroupDequant group_dequant(uint16_t scale_half, uint16_t zero_half, int residual_bits, bool bit_slice,
                                          bool full) {
  GroupDequant d;
  d.scale = half_to_float(scale_half);
  d.zero = half_to_float(zero_half);
  d.residual_bits = residual_bits;
  d.bit_slice = bit_slice;
  d.full = full;
  if (residual_bits > 0) {
    d.residual_scale = div_rn(d.scale, static_cast<float>(1 << residual_bits));
    d.anchor_centre = static_cast<float>((1 << residual_bits) - 1) * 0.5f;
    d.residual_offset = static_cast<float>(1 << (residual_bits - 1));
  }
  return d;
}
// The value of one element from its anchor code and (when present) residual code.
LYNX_HD inline float group_value(const GroupDequant& d, uint32_t anchor_code, uint32_t residual_code) {
  if (d.residual_bits == 0) return add_rn(d.zero, mul_rn(static_cast<float>(anchor_code), d.scale));
  if (d.bit_slice) {
    const float code = d.full ? static_cast<float>((anchor_code << d.residual_bits) | residual_code)
                              : add_rn(static_cast<float>(anchor_code << d.residual_bits), d.anchor_centre);
    return add_rn(d.zero, mul_rn(code, d.scale));
  }
  const float anchor = add_rn(d.zero, mul_rn(static_cast<float>(anchor_code), d.scale));
  if (!d.full) return anchor;
  return add_rn(anchor, mul_rn(add_rn(sub_rn(static_cast<float>(residual_code), d.residual_offset), 0.5f),
                               d.residual_scale));
}

// ---- packing: code j of a row occupies bits [j*bits, (j+1)*bits), LSB-first ----
// `codes` holds 8 codes, code j in byte j (little-endian), each < 2^bits; returns them packed in the low 8*bits
// bits. Three steps each halve the number of lanes: 2 codes per 16 bits, 4 per 32 bits, 8 per 64 bits.
LYNX_HD inline uint64_t pack8_codes(uint64_t codes, int bits) {
  uint64_t w = codes;
  w = (w & 0x00FF00FF00FF00FFull) | ((w & 0xFF00FF00FF00FF00ull) >> (8 - bits));
  w = (w & 0x0000FFFF0000FFFFull) | ((w & 0xFFFF0000FFFF0000ull) >> (16 - 2 * bits));
  w = (w & 0x00000000FFFFFFFFull) | ((w & 0xFFFFFFFF00000000ull) >> (32 - 4 * bits));
  return w;
}
// The inverse: `packed` holds 8 codes in its low 8*bits bits (the bits above are zero); returns code j in byte j.
LYNX_HD inline uint64_t unpack8_codes(uint64_t packed, int bits) {
  const uint64_t m4 = (bits == 8) ? 0xFFFFFFFFull : ((1ull << (4 * bits)) - 1);
  const uint64_t m2 = (1ull << (2 * bits)) - 1, m1 = (1ull << bits) - 1;
  const uint64_t lanes32 = m2 | (m2 << 32);
  const uint64_t lanes16 = m1 | (m1 << 16) | (m1 << 32) | (m1 << 48);
  uint64_t w = packed;
  w = (w & m4) | ((w << (32 - 4 * bits)) & (m4 << 32));
  w = (w & lanes32) | ((w << (16 - 2 * bits)) & (lanes32 << 16));
  w = (w & lanes16) | ((w << (8 - bits)) & (lanes16 << 8));
  return w;
}

}  // namespace lynx
