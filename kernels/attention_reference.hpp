// CPU reference of decode attention over a KV cache held in one of the wire formats: the truth the CUDA attention
// kernels are compared with. One query token per sequence; grouped-query attention (query head h reads KV head
// h / (n_heads / kv_heads)); scores scaled by 1/sqrt(head_dim); softmax over every token of the sequence.
// Plain and clear on purpose: K and V are decoded with kv_decode, then scores, softmax and the weighted sum of V are
// computed in double precision.
#pragma once
#include <cstdint>

#include "kernels/kv_format.hpp"

namespace lynx {

// One sequence's attention problem.
struct AttentionShape {
  int64_t tokens = 0;    // KV tokens of the sequence (>= 1)
  int64_t kv_heads = 0;  // KV heads
  int64_t n_heads = 0;   // query heads, a multiple of kv_heads
  int64_t head_dim = 0;  // channels per head
  KvShape kv() const { return {tokens, kv_heads, head_dim}; }
  int64_t group() const { return n_heads / kv_heads; }  // query heads per KV head
};

// Throws LynxError unless tokens, kv_heads, head_dim >= 1 and n_heads is a positive multiple of kv_heads.
void attention_shape_check(const AttentionShape& shape);

// q: float [n_heads x head_dim]; out: float [n_heads x head_dim]. K and V of shape.kv() in `format`'s streams
// (K with KvRole::key, V with KvRole::value). With null residuals a Lynx format attends over its anchor only
// (kv_decode's anchor-only reconstruction); formats without a residual ignore them.
void attention_reference(const KvFormat& format, const AttentionShape& shape, const float* q,
                         const uint8_t* k_anchor, const uint8_t* k_residual, const uint8_t* v_anchor,
                         const uint8_t* v_residual, float* out);

}  // namespace lynx
