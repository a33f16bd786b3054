// KV-cache size arithmetic: exact bytes on the wire for a model's KV cache (every layer) in a given format, split
// into the anchor and residual streams. Built on kv_stream_bytes, so it counts exactly what the codecs write
// (group metadata, KIVI's fp16 tail, fp8's per-tensor scale). Per layer and token a GQA layer holds K and V of
// kv_heads x head_dim each; an MLA layer one latent of kv_lora_rank + qk_rope_head_dim channels (DeepSeek-V3: 576),
// which every format quantizes as one tensor in the key role (the latent is what attention scores against: KIVI
// groups it per channel, as it does keys). A sliding-window layer holds at most its window of tokens.
// Bytes are those of the whole tensor; how they divide over tensor-parallel ranks (an MLA latent is held whole on
// every rank) is kv_shard_heads' business (models/arch/catalog.hpp).
#pragma once
#include <cstdint>

#include "kernels/kv_format.hpp"
#include "models/arch/catalog.hpp"

namespace lynx {

// Bytes of the KV cache of a `tokens`-token sequence for all layers of `model`.
KvStreamBytes model_kv_bytes(const ModelSpec& model, const KvFormat& format, int64_t tokens);
// Bytes of the layers [first_layer, first_layer + layer_count) only (a transfer chunk).
KvStreamBytes layers_kv_bytes(const ModelSpec& model, const KvFormat& format, int64_t tokens, int64_t first_layer,
                              int64_t layer_count);
// KV values (elements) of those layers for a `tokens`-token sequence: what the quantize and unpack kernels touch.
double layers_kv_elements(const ModelSpec& model, int64_t tokens, int64_t first_layer, int64_t layer_count);

}  // namespace lynx
