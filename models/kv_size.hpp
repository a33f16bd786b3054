// KV-cache size arithmetic: exact bytes on the wire for a whole model's KV cache (every layer, K and V) in a
// given format, split into the anchor and residual streams. Built on kv_stream_bytes, so it counts exactly
// what the codecs write (group metadata, KIVI's fp16 tail, fp8's per-tensor scale).
#pragma once
#include <cstdint>

#include "kernels/kv_format.hpp"
#include "models/catalog.hpp"

namespace lynx {

// Bytes of the KV cache of `tokens` tokens for all layers of `model`.
KvStreamBytes model_kv_bytes(const ModelSpec& model, const KvFormat& format, int64_t tokens);
// Bytes of the layers [first_layer, first_layer + layer_count) only (a transfer chunk).
KvStreamBytes layers_kv_bytes(const ModelSpec& model, const KvFormat& format, int64_t tokens, int64_t layer_count);

}  // namespace lynx
