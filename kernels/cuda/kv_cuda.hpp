// CUDA kernels for every KV wire format, on the byte layout of the CPU reference codecs (kv_codec.hpp): what the
// prefill GPU runs to quantize and split a layer's KV cache, and what the decode GPU runs to dequantize it or to
// attend over it with the dequantization fused in. GPUs hold KV in bf16, so the tensors here are bf16 (raw uint16
// bits) where the CPU reference takes float; encoding x equals the CPU's encoding of float(x) byte for byte, and
// decoding equals the CPU's float result rounded to bf16.
//
// FlashInfer style: raw device pointers and shapes in, no framework types. Every function launches on `stream` (a
// cudaStream_t passed as void*, null for the default stream) and returns without synchronizing; launch errors are
// thrown as LynxError. Inputs must be finite and, for the grouped formats, |x| <= 65504 (the fp16 metadata range):
// unlike the CPU reference the kernels do not check (a check would cost a synchronization per call).
#pragma once
#include <cstdint>

#include "kernels/attention_reference.hpp"
#include "kernels/kv_format.hpp"

namespace lynx {

// Encodes one layer's K or V, bf16 [tokens x kv_heads x head_dim], into the anchor stream and (Lynx) the residual
// stream, both in one pass; buffers hold kv_stream_bytes(format, role, shape). fp8-e4m3 needs a 4-byte aligned anchor
// (its scale is reduced there in place).
void kv_encode_cuda(const KvFormat& format, KvRole role, const KvShape& shape, const uint16_t* input_bf16,
                    uint8_t* anchor, uint8_t* residual, void* stream = nullptr);

// Decodes back to bf16; with `residual` null a Lynx format decodes its anchor only (as kv_decode does).
void kv_decode_cuda(const KvFormat& format, KvRole role, const KvShape& shape, const uint8_t* anchor,
                    const uint8_t* residual, uint16_t* output_bf16, void* stream = nullptr);

// Decode attention for `batch` sequences of shape.tokens tokens each: q bf16 [batch x n_heads x head_dim], out bf16
// [batch x n_heads x head_dim]. Sequence b's K streams start at k_anchor + b * kv_stream_bytes(format, key,
// shape.kv()).anchor (and likewise for the residual and for V): each sequence's cache is one encoded tensor.
// Residuals null: attention over the Lynx anchor only. head_dim must be 8, 16, 32, 64, 128 or 256. `workspace`
// holds attention_cuda_workspace_bytes(shape, batch) bytes of device memory (split-KV partial results).
uint64_t attention_cuda_workspace_bytes(const AttentionShape& shape, int64_t batch);
void attention_decode_cuda(const KvFormat& format, const AttentionShape& shape, int64_t batch, const uint16_t* q_bf16,
                           const uint8_t* k_anchor, const uint8_t* k_residual, const uint8_t* v_anchor,
                           const uint8_t* v_residual, uint16_t* out_bf16, void* workspace, void* stream = nullptr);

}  // namespace lynx
