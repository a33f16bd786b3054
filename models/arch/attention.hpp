// The attention arithmetic of one model, per layer kind: how many query-key pairs a pass computes (causal, capped
// by a sliding window where the layer has one) and how many FLOPs each pair costs. GQA: QK^T and PV over
// head_dim channels per query head (4 x heads x head_dim). MLA: prefill in the plain form (keys and values
// up-projected from the latent per token, so a pair costs QK^T over nope + rope channels and PV over v channels);
// decode in the absorbed form (DeepSeek-V3, arXiv 2412.19437 §2.1.1; vLLM and SGLang decode this way): the
// latent's key and value up-projections are folded into the query and output projections, so every query head
// attends over the cached latent itself, a pair costing QK^T over kv_lora_rank + rope channels and PV over
// kv_lora_rank; the folded projections are the latent's up-projection weights applied once per query token, which
// the dense FLOPs (2 x active params) already count. Why per kind: the roofline takes the FLOPs from here, and a
// model's layers may differ (gpt-oss alternates sliding-window and full layers).
#pragma once
#include <cstdint>

#include "models/arch/catalog.hpp"

namespace lynx {

// FLOPs of one query-key pair in one layer.
double attention_flops_per_pair_prefill(const ModelSpec& model);
double attention_flops_per_pair_decode(const ModelSpec& model);

// Query-key pairs of `new_tokens` tokens computed after `cached_tokens` earlier tokens of the same sequence, each
// token attending causally to itself and every earlier token, at most `window` of them (0: no window):
// sum over positions p in [cached, cached + new) of min(p + 1, window).
double causal_pairs(int64_t new_tokens, int64_t cached_tokens, int64_t window);

// Attention FLOPs of a prefill piece over every layer (sliding layers capped at their window).
double prefill_attention_flops(const ModelSpec& model, int64_t new_tokens, int64_t cached_tokens);

// Attention FLOPs of a decode iteration over every layer: `attended_tokens` keys summed over its `query_tokens`
// queries on full layers; on sliding layers at most window keys per query, min(attended, queries x window), exact
// when every sequence is longer than the window or every one shorter.
double decode_attention_flops(const ModelSpec& model, int64_t query_tokens, double attended_tokens);

// Layers with a sliding window.
int64_t sliding_layer_count(const ModelSpec& model);

}  // namespace lynx
