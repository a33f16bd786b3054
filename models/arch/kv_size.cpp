#include "models/arch/kv_size.hpp"
#include <algorithm>

namespace lynx {

namespace {
// One layer's KV for `tokens` tokens (already capped by the layer's window).
KvStreamBytes layer_bytes(const ModelSpec& model, const KvFormat& format, int64_t tokens) {
  const KvShape shape{tokens, kv_shard_heads(model), kv_head_channels(model)};
  KvStreamBytes total = kv_stream_bytes(format, KvRole::key, shape);
  if (kv_tensors_per_layer(model) == 2) {
    const KvStreamBytes value = kv_stream_bytes(format, KvRole::value, shape);
    total.anchor += value.anchor;
    total.residual += value.residual;
  }
  return total;
}

// Layers of [first, first + count) with a sliding window.
int64_t sliding_in(const ModelSpec& model, int64_t first, int64_t count) {
  int64_t n = 0;
  if (model.sliding_window <= 0) return 0;
  for (int64_t l = first; l < first + count; ++l)
    if (l >= 0 && static_cast<size_t>(l) < model.sliding_layers.size() && model.sliding_layers[static_cast<size_t>(l)]) ++n;
  return n;
}
}  // namespace

KvStreamBytes layers_kv_bytes(const ModelSpec& model, const KvFormat& format, int64_t tokens, int64_t first_layer,
                              int64_t layer_count) {
  const int64_t sliding = sliding_in(model, first_layer, layer_count);
  const auto full = static_cast<uint64_t>(layer_count - sliding);
  const KvStreamBytes one = layer_bytes(model, format, tokens);
  KvStreamBytes total{full * one.anchor, full * one.residual};
  if (sliding > 0) {
    const KvStreamBytes windowed = layer_bytes(model, format, std::min(tokens, model.sliding_window));
    total.anchor += static_cast<uint64_t>(sliding) * windowed.anchor;
    total.residual += static_cast<uint64_t>(sliding) * windowed.residual;
  }
  return total;
}

KvStreamBytes model_kv_bytes(const ModelSpec& model, const KvFormat& format, int64_t tokens) {
  return layers_kv_bytes(model, format, tokens, 0, model.n_layers);
}

double layers_kv_elements(const ModelSpec& model, int64_t tokens, int64_t first_layer, int64_t layer_count) {
  const int64_t sliding = sliding_in(model, first_layer, layer_count);
  const double row = static_cast<double>(kv_tensors_per_layer(model) * kv_shard_heads(model) * kv_head_channels(model));
  const double windowed = static_cast<double>(sliding > 0 ? std::min(tokens, model.sliding_window) : 0);
  return row * (static_cast<double>(layer_count - sliding) * static_cast<double>(tokens) +
                static_cast<double>(sliding) * windowed);
}

}  // namespace lynx
