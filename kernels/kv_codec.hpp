// CPU reference codecs for every KV wire format of kv_format.hpp: the truth the CUDA kernels and the functional
// decoder are checked against. Plain loops over raw pointers and shapes, no framework types, so the GPU code
// shares the layout. Input and output are float [tokens x kv_heads x head_dim], row-major.
//
// Quantization is asymmetric per group: zero = the largest fp16 <= min(group), scale = the smallest fp16 >=
// (max - zero) / (2^bits - 1); code = round((x - zero) / scale) clamped to [0, 2^bits - 1]; x' = zero + code*scale.
// Rounding the metadata outward keeps every element inside the representable range, so each element's error is at
// most scale/2 (plus float rounding). Values must be finite and, for the grouped formats, |x| <= 65504 (the fp16
// metadata range); anything else is a LynxError naming the element.
#pragma once
#include <cstdint>

#include "kernels/group_quant.hpp"
#include "kernels/kv_format.hpp"

namespace lynx {

// Encodes `input` into the anchor stream and, for Lynx, the residual stream. Buffers must hold
// kv_stream_bytes(format, role, shape) bytes; `residual` may be null when the format has none. On a bad element
// the error names the first one in memory order; what was already written to the buffers is then unspecified.
void kv_encode(const KvFormat& format, KvRole role, const KvShape& shape, const float* input, uint8_t* anchor,
               uint8_t* residual);

// Decodes back to float. With `residual` == null a Lynx format decodes anchor-only: bit-slice reconstructs at the
// centre of the range the missing low bits could take, residual-quant at the anchor's own grid point. Formats
// without a residual ignore the argument.
void kv_decode(const KvFormat& format, KvRole role, const KvShape& shape, const uint8_t* anchor,
               const uint8_t* residual, float* output);

// group_quant_params (the per-group fp16 scale and zero point) is in kernels/group_quant.hpp, shared with CUDA.

}  // namespace lynx
