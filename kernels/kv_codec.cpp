// CPU reference codecs (see kv_codec.hpp), fast enough to run at a good fraction of memcpy on one core without
// changing a single result against the plain scalar codec the tests keep as an oracle:
//   - one token row at a time: min/max of every group (codec_loops, SSE2), then every group's parameters (the
//     groups' dependency chains overlap in the CPU), then the codes of the whole row, then packing;
//   - the finite/range check rides along with min/max; only a failing tensor is rescanned for the exact element;
//   - packing and unpacking move 8 codes at a time through one 64-bit word (pack8_codes/unpack8_codes).
#include "kernels/kv_codec.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

#include "common/error.hpp"
#include "kernels/codec_loops.hpp"
#include "kernels/scalar_types.hpp"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the packed streams are little-endian");

namespace lynx {

namespace {

constexpr float kFloatMax = 3.4028234663852886e38f;
constexpr float kBf16Max = 3.3895313892515355e38f;  // larger finite floats round to infinity in bf16

// ---- bit packing: code j of a row occupies bits [j*bits, (j+1)*bits), LSB-first ----
void store_u16(uint8_t* p, uint16_t v) { std::memcpy(p, &v, 2); }
uint16_t load_u16(const uint8_t* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}

// ---- checks: the first element (in memory order) that is not finite or exceeds `limit` ----
[[noreturn]] void throw_bad_element(const KvShape& shape, const float* input, float limit, const char* what) {
  const int64_t n = shape.elements();
  for (int64_t i = 0; i < n; ++i) {
    float x = input[i];
    if (!(abs_float(x) <= limit)) {
      int64_t row = shape.row_elements();
      int64_t token = i / row, head = (i % row) / shape.head_dim, dim = i % shape.head_dim;
      throw_error("kv_encode: element (token %lld, head %lld, dim %lld) is %g: %s", static_cast<long long>(token),
                  static_cast<long long>(head), static_cast<long long>(dim), static_cast<double>(x), what);
    }
  }
  throw_error("kv_encode: internal error: no bad element found");
}

// ---- channel-grouped formats (int, lynx, kivi values): groups of G along each token row ----
void encode_channel_grouped(const KvFormat& format, const KvShape& shape, const float* input, uint8_t* anchor,
                            uint8_t* residual) {
  const int64_t row = shape.row_elements(), G = format.group_size;
  const int64_t groups = kv_groups_per_row(shape, format.group_size);
  const int anchor_bits = format.anchor_bits, residual_bits = format.residual_bits;
  const bool bit_slice = format.kind == KvFormatKind::lynx && format.split == LynxSplit::bit_slice;
  const bool rq_split = format.kind == KvFormatKind::lynx && format.split == LynxSplit::residual_quant;
  const int levels = 1 << (bit_slice ? anchor_bits + residual_bits : anchor_bits);
  const float top = static_cast<float>(levels - 1);
  const uint64_t anchor_row_bytes = kv_packed_row_bytes(row, anchor_bits);
  const uint64_t residual_row_bytes = kv_packed_row_bytes(row, residual_bits);
  uint8_t* meta = anchor + kv_grouped_meta_offset(format, shape);
  const size_t n = static_cast<size_t>(row), ng = static_cast<size_t>(groups);
  std::vector<uint8_t> high(n), low(n);
  std::vector<float> lo(ng), hi(ng), zero(ng), scale(ng), inverse(ng);
  for (int64_t t = 0; t < shape.tokens; ++t) {
    const float* x = input + t * row;
    if (!codec_loops::min_max_row(x, row, G, kHalfMax, lo.data(), hi.data()))
      throw_bad_element(shape, input, kHalfMax, "outside the fp16 metadata range (|x| <= 65504)");
    codec_loops::group_params(lo.data(), hi.data(), groups, levels, meta + t * groups * kGroupMetaBytes, zero.data(),
                              scale.data(), inverse.data());
    codec_loops::quantize_row(x, row, G, zero.data(), scale.data(), inverse.data(), top,
                              bit_slice || rq_split ? residual_bits : 0, rq_split, high.data(), low.data());
    codec_loops::pack_codes(high.data(), row, anchor_bits, anchor + t * anchor_row_bytes);
    if (residual_bits > 0) codec_loops::pack_codes(low.data(), row, residual_bits, residual + t * residual_row_bytes);
  }
}

// The reconstruction loop of one group, with the format's case chosen outside the loop.
void dequant_group(const GroupDequant& d, const uint8_t* high, const uint8_t* low, int64_t count, float* y) {
  if (d.residual_bits == 0) {
    for (int64_t j = 0; j < count; ++j) y[j] = add_rn(d.zero, mul_rn(static_cast<float>(high[j]), d.scale));
    return;
  }
  const int r = d.residual_bits;
  if (d.bit_slice && d.full) {
    for (int64_t j = 0; j < count; ++j)
      y[j] = add_rn(d.zero, mul_rn(static_cast<float>((static_cast<uint32_t>(high[j]) << r) | low[j]), d.scale));
  } else if (d.bit_slice) {
    const float shift = static_cast<float>(1 << r);  // float(code << r) == float(code) * 2^r, exactly
    for (int64_t j = 0; j < count; ++j)
      y[j] = add_rn(d.zero, mul_rn(add_rn(mul_rn(static_cast<float>(high[j]), shift), d.anchor_centre), d.scale));
  } else if (!d.full) {
    for (int64_t j = 0; j < count; ++j) y[j] = add_rn(d.zero, mul_rn(static_cast<float>(high[j]), d.scale));
  } else {
    for (int64_t j = 0; j < count; ++j) y[j] = group_value(d, high[j], low[j]);
  }
}

void decode_channel_grouped(const KvFormat& format, const KvShape& shape, const uint8_t* anchor,
                            const uint8_t* residual, float* output) {
  const int64_t row = shape.row_elements();
  const int64_t groups = kv_groups_per_row(shape, format.group_size);
  const int residual_bits = format.kind == KvFormatKind::lynx ? format.residual_bits : 0;
  const bool full = residual_bits == 0 || residual != nullptr;
  const bool bit_slice = format.split == LynxSplit::bit_slice;
  const uint64_t anchor_row_bytes = kv_packed_row_bytes(row, format.anchor_bits);
  const uint64_t residual_row_bytes = kv_packed_row_bytes(row, format.residual_bits);
  const uint8_t* meta = anchor + kv_grouped_meta_offset(format, shape);
  std::vector<uint8_t> high(static_cast<size_t>(row)), low(static_cast<size_t>(row), 0);
  for (int64_t t = 0; t < shape.tokens; ++t) {
    codec_loops::unpack_codes(anchor + t * anchor_row_bytes, row, format.anchor_bits, high.data());
    if (residual_bits > 0 && residual) codec_loops::unpack_codes(residual + t * residual_row_bytes, row, residual_bits, low.data());
    // Bit-slice with its residual is the plain (A+R)-bit code: join the halves once, then decode it as such.
    const bool joined = residual_bits > 0 && bit_slice && full;
    if (joined)
      for (int64_t j = 0; j < row; ++j) high[j] = static_cast<uint8_t>((high[j] << residual_bits) | low[j]);
    float* y = output + t * row;
    for (int64_t g = 0; g < groups; ++g) {
      const uint8_t* m = meta + (t * groups + g) * kGroupMetaBytes;
      const GroupDequant d =
          group_dequant(load_u16(m), load_u16(m + 2), joined ? 0 : residual_bits, bit_slice, full);
      const int64_t begin = g * format.group_size, count = std::min<int64_t>(format.group_size, row - begin);
      dequant_group(d, high.data() + begin, low.data() + begin, count, y + begin);
    }
  }
}

// ---- KIVI keys: per channel, groups of G consecutive tokens; the tail (tokens mod G) stays fp16 ----
void encode_kivi_keys(const KvFormat& format, const KvShape& shape, const float* input, uint8_t* anchor) {
  const int64_t row = shape.row_elements(), G = format.group_size;
  const int64_t full_groups = kivi_key_full_token_groups(format, shape);
  const uint64_t row_bytes = kv_packed_row_bytes(row, format.anchor_bits);
  const int levels = 1 << format.anchor_bits;
  const float top = static_cast<float>(levels - 1);
  const char* what = "outside the fp16 metadata range (|x| <= 65504)";
  if (!codec_loops::in_range(input, shape.elements(), kHalfMax)) throw_bad_element(shape, input, kHalfMax, what);
  uint8_t* meta = anchor + static_cast<uint64_t>(full_groups * G) * row_bytes;
  uint8_t* tail = meta + static_cast<uint64_t>(full_groups * row) * kGroupMetaBytes;
  const size_t n = static_cast<size_t>(row);
  std::vector<float> lo(n), hi(n), zero(n), scale(n), inverse(n);
  std::vector<uint8_t> codes(n);
  for (int64_t g = 0; g < full_groups; ++g) {
    const float* x = input + g * G * row;
    // Each channel is scanned in token order, so the sequential min/max is kept exactly, lane by lane.
    std::copy(x, x + row, lo.begin());
    std::copy(x, x + row, hi.begin());
    for (int64_t t = 1; t < G; ++t) {
      const float* xt = x + t * row;
      for (int64_t c = 0; c < row; ++c) {
        lo[c] = xt[c] < lo[c] ? xt[c] : lo[c];
        hi[c] = hi[c] < xt[c] ? xt[c] : hi[c];
      }
    }
    codec_loops::group_params(lo.data(), hi.data(), row, levels, meta + g * row * kGroupMetaBytes, zero.data(),
                              scale.data(), inverse.data());
    for (int64_t t = 0; t < G; ++t) {
      const float* xt = x + t * row;
      codec_loops::quantize_channels(xt, row, zero.data(), inverse.data(), top, codes.data());
      codec_loops::pack_codes(codes.data(), row, format.anchor_bits, anchor + static_cast<uint64_t>(g * G + t) * row_bytes);
    }
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
  const size_t n = static_cast<size_t>(row);
  std::vector<uint8_t> codes(n);
  std::vector<float> scale(n), zero(n);
  for (int64_t t = 0; t < full_groups * G; ++t) {
    if (t % G == 0) {
      const uint8_t* group_meta = meta + (t / G) * row * kGroupMetaBytes;
      for (int64_t c = 0; c < row; ++c) {
        scale[c] = half_to_float(load_u16(group_meta + c * kGroupMetaBytes));
        zero[c] = half_to_float(load_u16(group_meta + c * kGroupMetaBytes + 2));
      }
    }
    codec_loops::unpack_codes(anchor + static_cast<uint64_t>(t) * row_bytes, row, format.anchor_bits, codes.data());
    float* y = output + t * row;
    for (int64_t c = 0; c < row; ++c) y[c] = add_rn(zero[c], mul_rn(static_cast<float>(codes[c]), scale[c]));
  }
  const int64_t tail_values = (shape.tokens - full_groups * G) * row;
  float* y = output + full_groups * G * row;
  for (int64_t i = 0; i < tail_values; ++i) y[i] = half_to_float(load_u16(tail + 2 * i));
}

// ---- fp8 e4m3 with one scale per tensor ----
void encode_fp8(const KvShape& shape, const float* input, uint8_t* anchor) {
  const int64_t n = shape.elements();
  float lo = 0, hi = 0;  // amax = max(|min|, |max|), the same value as the maximum of |x|
  if (n > 0 && !codec_loops::min_max(input, n, kFloatMax, lo, hi))
    throw_bad_element(shape, input, kFloatMax, "not finite");
  const float amax = std::max(abs_float(lo), abs_float(hi));
  float scale = amax > 0 ? amax / kFp8E4m3Max : 1.0f;
  if (!(scale > 0) || !(scale <= kFloatMax)) scale = 1.0f;  // amax below the float range's bottom
  std::memcpy(anchor, &scale, sizeof scale);
  codec_loops::to_fp8(input, n, 1.0f / scale, anchor + kFp8ScaleBytes);
}

void decode_fp8(const KvShape& shape, const uint8_t* anchor, float* output) {
  float scale;
  std::memcpy(&scale, anchor, sizeof scale);
  float table[256];
  for (int b = 0; b < 256; ++b) table[b] = fp8_e4m3_to_float(static_cast<uint8_t>(b)) * scale;
  const uint8_t* codes = anchor + kFp8ScaleBytes;
  const int64_t n = shape.elements();
  for (int64_t i = 0; i < n; ++i) output[i] = table[codes[i]];
}

}  // namespace

void kv_encode(const KvFormat& format, KvRole role, const KvShape& shape, const float* input, uint8_t* anchor,
               uint8_t* residual) {
  if (format.residual_bits > 0 && residual == nullptr) throw_error("kv_encode: %s needs a residual buffer",
                                                                   format.name.c_str());
  const int64_t n = shape.elements();
  switch (format.kind) {
    case KvFormatKind::fp32:
      if (!codec_loops::in_range(input, n, kFloatMax)) throw_bad_element(shape, input, kFloatMax, "not finite");
      std::memcpy(anchor, input, static_cast<size_t>(n) * sizeof(float));
      return;
    case KvFormatKind::bf16:
      if (!codec_loops::in_range(input, n, kBf16Max)) throw_bad_element(shape, input, kBf16Max, "not finite in bf16");
      codec_loops::to_bf16(input, n, anchor);
      return;
    case KvFormatKind::fp8_e4m3:
      encode_fp8(shape, input, anchor);
      return;
    case KvFormatKind::kivi:
      if (role == KvRole::key) {
        encode_kivi_keys(format, shape, input, anchor);
        return;
      }
      encode_channel_grouped(format, shape, input, anchor, residual);
      return;
    case KvFormatKind::int_group:
    case KvFormatKind::lynx:
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
    case KvFormatKind::fp8_e4m3:
      decode_fp8(shape, anchor, output);
      return;
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

}  // namespace lynx
