#include "models/kv_size.hpp"

namespace lynx {

KvStreamBytes layers_kv_bytes(const ModelSpec& model, const KvFormat& format, int64_t tokens, int64_t layer_count) {
  KvShape shape{tokens, model.n_kv_heads, model.head_dim};
  KvStreamBytes key = kv_stream_bytes(format, KvRole::key, shape);
  KvStreamBytes value = kv_stream_bytes(format, KvRole::value, shape);
  KvStreamBytes total;
  total.anchor = static_cast<uint64_t>(layer_count) * (key.anchor + value.anchor);
  total.residual = static_cast<uint64_t>(layer_count) * (key.residual + value.residual);
  return total;
}

KvStreamBytes model_kv_bytes(const ModelSpec& model, const KvFormat& format, int64_t tokens) {
  return layers_kv_bytes(model, format, tokens, model.n_layers);
}

}  // namespace lynx
