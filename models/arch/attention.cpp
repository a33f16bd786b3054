#include "models/arch/attention.hpp"

#include <algorithm>

namespace lynx {

const char* attention_kind_name(AttentionKind kind) { return kind == AttentionKind::mla ? "mla" : "gqa"; }

int64_t kv_tensors_per_layer(const ModelSpec& m) { return m.attention == AttentionKind::mla ? 1 : 2; }

int64_t kv_shard_heads(const ModelSpec& m) { return m.attention == AttentionKind::mla ? 1 : m.n_kv_heads; }

int64_t kv_head_channels(const ModelSpec& m) {
  return m.attention == AttentionKind::mla ? m.kv_lora_rank + m.qk_rope_head_dim : m.head_dim;
}

int64_t layer_kv_tokens(const ModelSpec& m, int64_t layer, int64_t sequence_tokens) {
  const bool sliding = m.sliding_window > 0 && layer >= 0 && static_cast<size_t>(layer) < m.sliding_layers.size() &&
                       m.sliding_layers[static_cast<size_t>(layer)];
  return sliding ? std::min(sequence_tokens, m.sliding_window) : sequence_tokens;
}

int64_t sliding_layer_count(const ModelSpec& m) {
  if (m.sliding_window <= 0) return 0;
  return static_cast<int64_t>(std::count(m.sliding_layers.begin(), m.sliding_layers.end(), true));
}

double attention_flops_per_pair_prefill(const ModelSpec& m) {
  const double heads = static_cast<double>(m.n_heads);
  if (m.attention == AttentionKind::mla)
    return 2 * heads * static_cast<double>(m.qk_nope_head_dim + m.qk_rope_head_dim) +
           2 * heads * static_cast<double>(m.v_head_dim);
  return 4 * heads * static_cast<double>(m.head_dim);
}

double attention_flops_per_pair_decode(const ModelSpec& m) {
  const double heads = static_cast<double>(m.n_heads);
  if (m.attention == AttentionKind::mla)
    return 2 * heads * static_cast<double>(m.kv_lora_rank + m.qk_rope_head_dim) +
           2 * heads * static_cast<double>(m.kv_lora_rank);
  return 4 * heads * static_cast<double>(m.head_dim);
}

namespace {
// Pairs of the first `positions` positions of a sequence: sum over p < positions of min(p + 1, window).
double pairs_up_to(double positions, double window) {
  if (window <= 0 || positions <= window) return positions * (positions + 1) / 2;
  return window * (window + 1) / 2 + (positions - window) * window;
}
}  // namespace

double causal_pairs(int64_t new_tokens, int64_t cached_tokens, int64_t window) {
  const double n = static_cast<double>(new_tokens), c = static_cast<double>(cached_tokens);
  const double w = static_cast<double>(window);
  if (window <= 0) return n * c + n * (n + 1) / 2;  // the unwindowed form, exact in doubles as before
  return pairs_up_to(c + n, w) - pairs_up_to(c, w);
}

double prefill_attention_flops(const ModelSpec& m, int64_t new_tokens, int64_t cached_tokens) {
  const double sliding = static_cast<double>(sliding_layer_count(m));
  const double full = static_cast<double>(m.n_layers) - sliding;
  // (FLOPs per pair x layers) first: integers, exact, so a dense model's figure is the same double as before.
  const double per_pair = attention_flops_per_pair_prefill(m);
  double flops = per_pair * full * causal_pairs(new_tokens, cached_tokens, 0);
  if (sliding > 0) flops += per_pair * sliding * causal_pairs(new_tokens, cached_tokens, m.sliding_window);
  return flops;
}

double decode_attention_flops(const ModelSpec& m, int64_t query_tokens, double attended_tokens) {
  const double sliding = static_cast<double>(sliding_layer_count(m));
  const double full = static_cast<double>(m.n_layers) - sliding;
  const double per_pair = attention_flops_per_pair_decode(m);
  double flops = per_pair * full * attended_tokens;
  if (sliding > 0)
    flops += per_pair * sliding *
             std::min(attended_tokens, static_cast<double>(query_tokens) * static_cast<double>(m.sliding_window));
  return flops;
}

}  // namespace lynx
