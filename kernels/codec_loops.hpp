// The inner loops of the CPU codecs (kv_codec.cpp), each in two forms that give identical results: a plain scalar
// loop over the shared arithmetic of group_quant.hpp (the definition), and an SSE2 form (every x86-64 CPU has
// SSE2) that the codec uses when the compiler targets it. The compiler's own vectoriser does not manage these loops
// without changing results (min/max of signed zeros, float-to-byte narrowing), hence the explicit forms; the tests
// compare the two on random and adversarial data.
#pragma once
#include <cstdint>

namespace lynx::codec_loops {

// min and max of x[0..n) exactly as the sequential `lo = std::min(lo, x[j])`, `hi = std::max(hi, x[j])` find them
// (a zero result has the sign of the first zero in the group). Returns false, leaving lo/hi unspecified, when an
// element is NaN or exceeds `limit` in magnitude.
bool min_max(const float* x, int64_t n, float limit, float& lo, float& hi);
bool min_max_scalar(const float* x, int64_t n, float limit, float& lo, float& hi);

// The parameters of `count` groups from their min and max (group_quant_params, for `levels` codes): meta gets the
// wire bytes (fp16 scale, fp16 zero per group), zero/scale/inverse the floats the quantizer uses.
void group_params(const float* lo, const float* hi, int64_t count, int levels, uint8_t* meta, float* zero,
                  float* scale, float* inverse);
void group_params_scalar(const float* lo, const float* hi, int64_t count, int levels, uint8_t* meta, float* zero,
                         float* scale, float* inverse);

// True when every |x[i]| <= limit (NaN fails).
bool in_range(const float* x, int64_t n, float limit);
bool in_range_scalar(const float* x, int64_t n, float limit);

// codes[j] = quant_code(x[j], zero, inverse, top); with residual_bits > 0 (bit-slice split) high[j] = code >> R and
// low[j] = code & (2^R - 1), else high[j] = code and `low` is not touched.
void quantize(const float* x, int64_t n, float zero, float inverse, float top, int residual_bits, uint8_t* high,
              uint8_t* low);
void quantize_scalar(const float* x, int64_t n, float zero, float inverse, float top, int residual_bits,
                     uint8_t* high, uint8_t* low);

// Residual-quant split: anchor[j] = quant_code(...) with `top` = 2^A - 1, residual[j] = residual_code(...).
void quantize_rq(const float* x, int64_t n, float zero, float scale, float inverse, float top, int residual_bits,
                 uint8_t* anchor, uint8_t* residual);
void quantize_rq_scalar(const float* x, int64_t n, float zero, float scale, float inverse, float top,
                        int residual_bits, uint8_t* anchor, uint8_t* residual);

// KIVI keys: codes[c] = quant_code(x[c], zero[c], inverse[c], top), one group per channel.
void quantize_channels(const float* x, int64_t n, const float* zero, const float* inverse, float top, uint8_t* codes);
void quantize_channels_scalar(const float* x, int64_t n, const float* zero, const float* inverse, float top,
                              uint8_t* codes);

// A token row of `n` elements in groups of `group` (the last one shorter): min_max, then quantize or quantize_rq
// of each group with its own parameters (lo/hi/zero/scale/inverse hold one value per group).
bool min_max_row(const float* x, int64_t n, int64_t group, float limit, float* lo, float* hi);
void quantize_row(const float* x, int64_t n, int64_t group, const float* zero, const float* scale, const float* inverse,
                  float top, int residual_bits, bool residual_quant, uint8_t* high, uint8_t* low);

// Packs `count` codes (each < 2^bits, one per byte) LSB-first into kv_packed_row_bytes(count, bits) bytes.
void pack_codes(const uint8_t* codes, int64_t count, int bits, uint8_t* out);
void pack_codes_scalar(const uint8_t* codes, int64_t count, int bits, uint8_t* out);

// The inverse: `count` codes of `bits` bits from `in` into one byte each.
void unpack_codes(const uint8_t* in, int64_t count, int bits, uint8_t* codes);
void unpack_codes_scalar(const uint8_t* in, int64_t count, int bits, uint8_t* codes);

// out[j] = float_to_bf16(x[j]) and out[j] = float_to_fp8_e4m3(x[j] * inverse), little-endian.
void to_bf16(const float* x, int64_t n, uint8_t* out);
void to_bf16_scalar(const float* x, int64_t n, uint8_t* out);
void to_fp8(const float* x, int64_t n, float inverse, uint8_t* out);
void to_fp8_scalar(const float* x, int64_t n, float inverse, uint8_t* out);

// The vector forms behind quantize, quantize_rq and to_fp8, callable one by one for the tests (the AVX2 ones only where
// has_avx2() and the library was built for x86-64).
void quantize_sse2(const float* x, int64_t n, float zero, float inverse, float top, int residual_bits, uint8_t* high,
                   uint8_t* low);
void quantize_rq_sse2(const float* x, int64_t n, float zero, float scale, float inverse, float top, int residual_bits,
                      uint8_t* anchor, uint8_t* residual);
void quantize_avx2(const float* x, int64_t n, float zero, float inverse, float top, int residual_bits, uint8_t* high,
                   uint8_t* low);
void quantize_rq_avx2(const float* x, int64_t n, float zero, float scale, float inverse, float top,
                      int residual_bits, uint8_t* anchor, uint8_t* residual);
void to_fp8_sse2(const float* x, int64_t n, float inverse, uint8_t* out);
void to_fp8_avx2(const float* x, int64_t n, float inverse, uint8_t* out);
bool has_avx2();

}  // namespace lynx::codec_loops
