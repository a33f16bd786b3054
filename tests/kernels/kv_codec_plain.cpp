// See kv_codec_plain.hpp: the foundation's plain codec, unchanged except for its namespace.
#include "tests/kernels/kv_codec_plain.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "common/error.hpp"
#include "kernels/scalar_types.hpp"

namespace lynx::plain {
using lynx::kFp8E4m3Max;
using lynx::kHalfMax;


uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
float float_from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// ---- IEEE half (fp16): max finite 65504 ----

float half_to_float(uint16_t h) {
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

uint16_t float_to_half(float f) {
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
uint16_t half_next_up(uint16_t h) {
  if (h == 0x8000u || h == 0x0000u) return 0x0001u;
  return static_cast<uint16_t>((h & 0x8000u) ? h - 1 : h + 1);
}
uint16_t half_next_down(uint16_t h) {
  if (h == 0x0000u || h == 0x8000u) return 0x8001u;
  return static_cast<uint16_t>((h & 0x8000u) ? h + 1 : h - 1);
}
// Largest half <= f and smallest half >= f (f finite, |f| <= 65504).
uint16_t float_to_half_down(float f) {
  uint16_t h = float_to_half(f);
  return half_to_float(h) > f ? half_next_down(h) : h;
}
uint16_t float_to_half_up(float f) {
  uint16_t h = float_to_half(f);
  return half_to_float(h) < f ? half_next_up(h) : h;
}

// ---- bfloat16 ----
uint16_t float_to_bf16(float f) {
  uint32_t u = float_bits(f);
  u += 0x7FFFu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}
float bf16_to_float(uint16_t b) { return float_from_bits(static_cast<uint32_t>(b) << 16); }

// ---- fp8 E4M3 (OCP "FN" variant: bias 7, max 448, 0x7F/0xFF are NaN, no infinity) ----

float fp8_e4m3_to_float(uint8_t b) {
  uint32_t exponent = (b >> 3) & 0xFu;
  uint32_t mantissa = b & 0x7u;
  float magnitude = exponent == 0 ? static_cast<float>(mantissa) * 0.001953125f  // mantissa * 2^-9
                                  : std::ldexp(1.0f + static_cast<float>(mantissa) * 0.125f,
                                               static_cast<int>(exponent) - 7);
  return (b & 0x80u) ? -magnitude : magnitude;
}

// Saturates at +-448 (finite input assumed).
uint8_t float_to_fp8_e4m3(float v) {
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


struct PlainGroupParams {
  uint16_t scale_half = 0;
  uint16_t zero_half = 0;
};
PlainGroupParams group_quant_params(float min_value, float max_value, int levels);


namespace {

// ---- bit packing: code j of a row occupies bits [j*bits, (j+1)*bits), LSB-first ----
void pack_row(const uint8_t* codes, int64_t count, int bits, uint8_t* out) {
  uint64_t bytes = kv_packed_row_bytes(count, bits);
  if (bits == 8) {
    std::copy(codes, codes + count, out);
    return;
  }
  std::fill(out, out + bytes, uint8_t{0});
  if (bits == 4) {
    for (int64_t j = 0; j < count; ++j) out[j >> 1] |= static_cast<uint8_t>(codes[j] << ((j & 1) * 4));
    return;
  }
  for (int64_t j = 0; j < count; ++j) {
    uint64_t bit = static_cast<uint64_t>(j) * static_cast<uint64_t>(bits);
    uint32_t value = static_cast<uint32_t>(codes[j]) << (bit & 7);
    out[bit >> 3] |= static_cast<uint8_t>(value);
    if ((bit & 7) + static_cast<uint64_t>(bits) > 8) out[(bit >> 3) + 1] |= static_cast<uint8_t>(value >> 8);
  }
}

void unpack_row(const uint8_t* in, int64_t count, int bits, uint8_t* codes) {
  if (bits == 8) {
    std::copy(in, in + count, codes);
    return;
  }
  if (bits == 4) {
    for (int64_t j = 0; j < count; ++j) codes[j] = static_cast<uint8_t>((in[j >> 1] >> ((j & 1) * 4)) & 0xF);
    return;
  }
  const uint32_t mask = (1u << bits) - 1;
  for (int64_t j = 0; j < count; ++j) {
    uint64_t bit = static_cast<uint64_t>(j) * static_cast<uint64_t>(bits);
    uint32_t word = in[bit >> 3];
    if ((bit & 7) + static_cast<uint64_t>(bits) > 8) word |= static_cast<uint32_t>(in[(bit >> 3) + 1]) << 8;
    codes[j] = static_cast<uint8_t>((word >> (bit & 7)) & mask);
  }
}

void store_u16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v & 0xFF);
  p[1] = static_cast<uint8_t>(v >> 8);
}
uint16_t load_u16(const uint8_t* p) { return static_cast<uint16_t>(p[0] | (p[1] << 8)); }

void check_finite(const KvShape& shape, const float* input, float limit, const char* what) {
  const int64_t n = shape.elements();
  for (int64_t i = 0; i < n; ++i) {
    float x = input[i];
    if (!std::isfinite(x) || std::fabs(x) > limit) {
      int64_t row = shape.row_elements();
      int64_t token = i / row, head = (i % row) / shape.head_dim, dim = i % shape.head_dim;
      throw_error("kv_encode: element (token %lld, head %lld, dim %lld) is %g: %s",
                  static_cast<long long>(token), static_cast<long long>(head), static_cast<long long>(dim),
                  static_cast<double>(x), what);
    }
  }
}

// One group's codes (as unpacked bytes), for `code_bits` bits; returns its parameters.
PlainGroupParams quantize_group(const float* x, int64_t count, int64_t stride, int code_bits, uint8_t* codes,
                                uint8_t* residual_codes, const KvFormat& format) {
  float lo = x[0], hi = x[0];
  for (int64_t j = 1; j < count; ++j) {
    lo = std::min(lo, x[j * stride]);
    hi = std::max(hi, x[j * stride]);
  }
  const int levels = 1 << code_bits;
  PlainGroupParams p = group_quant_params(lo, hi, levels);
  const float zero = half_to_float(p.zero_half), scale = half_to_float(p.scale_half);
  const float inverse = scale > 0 ? 1.0f / scale : 0.0f;
  const float top = static_cast<float>(levels - 1);
  if (format.kind == KvFormatKind::lynx && format.split == LynxSplit::residual_quant) {
    const int r_levels = 1 << format.residual_bits;
    const float r_scale = scale / static_cast<float>(r_levels);
    const float r_inverse = r_scale > 0 ? 1.0f / r_scale : 0.0f;
    const float half_levels = static_cast<float>(r_levels / 2);
    for (int64_t j = 0; j < count; ++j) {
      float v = x[j * stride];
      float q = std::clamp(std::nearbyint((v - zero) * inverse), 0.0f, top);
      float error = v - (zero + q * scale);
      float r = std::clamp(std::floor(error * r_inverse + half_levels), 0.0f, static_cast<float>(r_levels - 1));
      codes[j] = static_cast<uint8_t>(q);
      residual_codes[j] = static_cast<uint8_t>(r);
    }
    return p;
  }
  for (int64_t j = 0; j < count; ++j) {
    float q = std::clamp(std::nearbyint((x[j * stride] - zero) * inverse), 0.0f, top);
    codes[j] = static_cast<uint8_t>(q);
  }
  return p;
}

// Reconstruction of one code, given the group's parameters (see the header for each split).
struct GroupDecoder {
  float zero = 0, scale = 0, residual_scale = 0, anchor_centre = 0;
  LynxSplit split = LynxSplit::bit_slice;
  int residual_bits = 0;
  bool full = true;
  float value(uint8_t anchor_code, uint8_t residual_code) const {
    if (residual_bits == 0) return zero + static_cast<float>(anchor_code) * scale;
    if (split == LynxSplit::bit_slice) {
      float code = full ? static_cast<float>((anchor_code << residual_bits) | residual_code)
                        : static_cast<float>(anchor_code << residual_bits) + anchor_centre;
      return zero + code * scale;
    }
    float anchor = zero + static_cast<float>(anchor_code) * scale;
    if (!full) return anchor;
    return anchor + (static_cast<float>(residual_code) - static_cast<float>(1 << (residual_bits - 1)) + 0.5f) *
                        residual_scale;
  }
};

GroupDecoder make_decoder(const KvFormat& format, const uint8_t* meta, bool full) {
  GroupDecoder d;
  d.scale = half_to_float(load_u16(meta));
  d.zero = half_to_float(load_u16(meta + 2));
  d.residual_bits = format.kind == KvFormatKind::lynx ? format.residual_bits : 0;
  d.split = format.split;
  d.full = full;
  if (d.residual_bits > 0) {
    d.residual_scale = d.scale / static_cast<float>(1 << d.residual_bits);
    d.anchor_centre = static_cast<float>((1 << d.residual_bits) - 1) * 0.5f;
  }
  return d;
}

// Channel-grouped formats (int, lynx, kivi values): groups of G along each token row.
void encode_channel_grouped(const KvFormat& format, const KvShape& shape, const float* input, uint8_t* anchor,
                            uint8_t* residual) {
  const int64_t row = shape.row_elements();
  const int64_t groups = kv_groups_per_row(shape, format.group_size);
  const int anchor_bits = format.anchor_bits, residual_bits = format.residual_bits;
  const bool bit_slice = format.kind == KvFormatKind::lynx && format.split == LynxSplit::bit_slice;
  const bool residual_quant = format.kind == KvFormatKind::lynx && format.split == LynxSplit::residual_quant;
  const int code_bits = bit_slice ? anchor_bits + residual_bits : anchor_bits;
  const uint64_t anchor_row_bytes = kv_packed_row_bytes(row, anchor_bits);
  const uint64_t residual_row_bytes = kv_packed_row_bytes(row, residual_bits);
  uint8_t* meta = anchor + kv_grouped_meta_offset(format, shape);
  std::vector<uint8_t> codes(static_cast<size_t>(row)), low(static_cast<size_t>(row)), high(static_cast<size_t>(row));
  for (int64_t t = 0; t < shape.tokens; ++t) {
    const float* x = input + t * row;
    for (int64_t g = 0; g < groups; ++g) {
      int64_t begin = g * format.group_size, count = std::min<int64_t>(format.group_size, row - begin);
      PlainGroupParams p =
          quantize_group(x + begin, count, 1, code_bits, codes.data() + begin, low.data() + begin, format);
      store_u16(meta + (t * groups + g) * kGroupMetaBytes, p.scale_half);
      store_u16(meta + (t * groups + g) * kGroupMetaBytes + 2, p.zero_half);
    }
    if (bit_slice) {
      const uint8_t mask = static_cast<uint8_t>((1 << residual_bits) - 1);
      for (int64_t j = 0; j < row; ++j) {
        high[j] = static_cast<uint8_t>(codes[j] >> residual_bits);
        low[j] = static_cast<uint8_t>(codes[j] & mask);
      }
      pack_row(high.data(), row, anchor_bits, anchor + t * anchor_row_bytes);
      pack_row(low.data(), row, residual_bits, residual + t * residual_row_bytes);
    } else {
      pack_row(codes.data(), row, anchor_bits, anchor + t * anchor_row_bytes);
      if (residual_quant) pack_row(low.data(), row, residual_bits, residual + t * residual_row_bytes);
    }
  }
}

void decode_channel_grouped(const KvFormat& format, const KvShape& shape, const uint8_t* anchor,
                            const uint8_t* residual, float* output) {
  const int64_t row = shape.row_elements();
  const int64_t groups = kv_groups_per_row(shape, format.group_size);
  const bool has_residual = format.residual_bits > 0;
  const bool full = !has_residual || residual != nullptr;
  const uint64_t anchor_row_bytes = kv_packed_row_bytes(row, format.anchor_bits);
  const uint64_t residual_row_bytes = kv_packed_row_bytes(row, format.residual_bits);
  const uint8_t* meta = anchor + kv_grouped_meta_offset(format, shape);
  std::vector<uint8_t> high(static_cast<size_t>(row)), low(static_cast<size_t>(row), 0);
  for (int64_t t = 0; t < shape.tokens; ++t) {
    unpack_row(anchor + t * anchor_row_bytes, row, format.anchor_bits, high.data());
    if (has_residual && residual) unpack_row(residual + t * residual_row_bytes, row, format.residual_bits, low.data());
    float* y = output + t * row;
    for (int64_t g = 0; g < groups; ++g) {
      GroupDecoder d = make_decoder(format, meta + (t * groups + g) * kGroupMetaBytes, full);
      int64_t begin = g * format.group_size, end = std::min<int64_t>(begin + format.group_size, row);
      for (int64_t j = begin; j < end; ++j) y[j] = d.value(high[j], low[j]);
    }
  }
}

// KIVI keys: per channel, groups of G consecutive tokens; the tail (tokens mod G) stays fp16.
void encode_kivi_keys(const KvFormat& format, const KvShape& shape, const float* input, uint8_t* anchor) {
  const int64_t row = shape.row_elements(), G = format.group_size;
  const int64_t full_groups = kivi_key_full_token_groups(format, shape);
  const uint64_t row_bytes = kv_packed_row_bytes(row, format.anchor_bits);
  uint8_t* meta = anchor + static_cast<uint64_t>(full_groups * G) * row_bytes;
  uint8_t* tail = meta + static_cast<uint64_t>(full_groups * row) * kGroupMetaBytes;
  std::vector<uint8_t> codes(static_cast<size_t>(G * row)), column(static_cast<size_t>(G)), unused(1);
  for (int64_t g = 0; g < full_groups; ++g) {
    const float* x = input + g * G * row;
    for (int64_t c = 0; c < row; ++c) {
      PlainGroupParams p = quantize_group(x + c, G, row, format.anchor_bits, column.data(), unused.data(), format);
      for (int64_t t = 0; t < G; ++t) codes[static_cast<size_t>(t * row + c)] = column[static_cast<size_t>(t)];
      store_u16(meta + (g * row + c) * kGroupMetaBytes, p.scale_half);
      store_u16(meta + (g * row + c) * kGroupMetaBytes + 2, p.zero_half);
    }
    for (int64_t t = 0; t < G; ++t)
      pack_row(codes.data() + t * row, row, format.anchor_bits, anchor + static_cast<uint64_t>(g * G + t) * row_bytes);
  }
  const int64_t tail_values = (shape.tokens - full_groups * G) * row;
  const float* x = input + full_groups * G * row;
  for (int64_t i = 0; i < tail_values; ++i) store_u16(tail + 2 * i, float_to_half(x[i]));
}

void decode_kivi_keys(const KvFormat& format, const KvShape& shape, const uint8_t* anchor, float* output) {
  const int64_t row = shape.row_elements(), G = format.group_size;
  const int64_t full_groups = kivi_key_full_token_groups(format, shape);
  const uint64_t row_bytes = kv_packed_row_bytes(row, format.anchor_bits);
  const uint8_t* meta = anchor + static_cast<uint64_t>(full_groups * G) * row_bytes;
  const uint8_t* tail = meta + static_cast<uint64_t>(full_groups * row) * kGroupMetaBytes;
  std::vector<uint8_t> codes(static_cast<size_t>(row));
  for (int64_t t = 0; t < full_groups * G; ++t) {
    unpack_row(anchor + static_cast<uint64_t>(t) * row_bytes, row, format.anchor_bits, codes.data());
    const uint8_t* group_meta = meta + (t / G) * row * kGroupMetaBytes;
    for (int64_t c = 0; c < row; ++c) {
      float scale = half_to_float(load_u16(group_meta + c * kGroupMetaBytes));
      float zero = half_to_float(load_u16(group_meta + c * kGroupMetaBytes + 2));
      output[t * row + c] = zero + static_cast<float>(codes[static_cast<size_t>(c)]) * scale;
    }
  }
  const int64_t tail_values = (shape.tokens - full_groups * G) * row;
  float* y = output + full_groups * G * row;
  for (int64_t i = 0; i < tail_values; ++i) y[i] = half_to_float(load_u16(tail + 2 * i));
}

}  // namespace

PlainGroupParams group_quant_params(float min_value, float max_value, int levels) {
  PlainGroupParams p;
  p.zero_half = float_to_half_down(min_value);
  float zero = half_to_float(p.zero_half);
  float step = (max_value - zero) / static_cast<float>(levels - 1);
  p.scale_half = float_to_half_up(step);
  // The float division may round below the real quotient: widen until the grid reaches max_value.
  while (zero + static_cast<float>(levels - 1) * half_to_float(p.scale_half) < max_value)
    p.scale_half = half_next_up(p.scale_half);
  return p;
}

void kv_encode(const KvFormat& format, KvRole role, const KvShape& shape, const float* input, uint8_t* anchor,
               uint8_t* residual) {
  if (format.residual_bits > 0 && residual == nullptr) throw_error("kv_encode: %s needs a residual buffer",
                                                                   format.name.c_str());
  const int64_t n = shape.elements();
  switch (format.kind) {
    case KvFormatKind::fp32:
      check_finite(shape, input, INFINITY, "not finite");
      std::copy(reinterpret_cast<const uint8_t*>(input), reinterpret_cast<const uint8_t*>(input + n), anchor);
      return;
    case KvFormatKind::bf16:
      check_finite(shape, input, 3.3895313892515355e38f, "not finite in bf16");
      for (int64_t i = 0; i < n; ++i) store_u16(anchor + 2 * i, float_to_bf16(input[i]));
      return;
    case KvFormatKind::fp8_e4m3: {
      check_finite(shape, input, INFINITY, "not finite");
      float amax = 0;
      for (int64_t i = 0; i < n; ++i) amax = std::max(amax, std::fabs(input[i]));
      float scale = amax > 0 ? amax / kFp8E4m3Max : 1.0f;
      if (!(scale > 0) || !std::isfinite(scale)) scale = 1.0f;  // amax below the float range's bottom
      std::memcpy(anchor, &scale, sizeof scale);
      const float inverse = 1.0f / scale;
      for (int64_t i = 0; i < n; ++i) anchor[kFp8ScaleBytes + i] = float_to_fp8_e4m3(input[i] * inverse);
      return;
    }
    case KvFormatKind::kivi:
      check_finite(shape, input, kHalfMax, "outside the fp16 metadata range (|x| <= 65504)");
      if (role == KvRole::key) {
        encode_kivi_keys(format, shape, input, anchor);
        return;
      }
      encode_channel_grouped(format, shape, input, anchor, residual);
      return;
    case KvFormatKind::int_group:
    case KvFormatKind::lynx:
      check_finite(shape, input, kHalfMax, "outside the fp16 metadata range (|x| <= 65504)");
      encode_channel_grouped(format, shape, input, anchor, residual);
      return;
  }
}

void kv_decode(const KvFormat& format, KvRole role, const KvShape& shape, const uint8_t* anchor,
               const uint8_t* residual, float* output) {
  const int64_t n = shape.elements();
  switch (format.kind) {
    case KvFormatKind::fp32:
      std::memcpy(output, anchor, static_cast<size_t>(n) * sizeof(float));
      return;
    case KvFormatKind::bf16:
      for (int64_t i = 0; i < n; ++i) output[i] = bf16_to_float(load_u16(anchor + 2 * i));
      return;
    case KvFormatKind::fp8_e4m3: {
      float scale;
      std::memcpy(&scale, anchor, sizeof scale);
      for (int64_t i = 0; i < n; ++i) output[i] = fp8_e4m3_to_float(anchor[kFp8ScaleBytes + i]) * scale;
      return;
    }
    case KvFormatKind::kivi:
      if (role == KvRole::key) {
        decode_kivi_keys(format, shape, anchor, output);
        return;
      }
      decode_channel_grouped(format, shape, anchor, nullptr, output);
      return;
    case KvFormatKind::int_group:
    case KvFormatKind::lynx:
      decode_channel_grouped(format, shape, anchor, residual, output);
      return;
  }
}

}  // namespace lynx::plain
