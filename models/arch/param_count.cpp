// Parameter counts from a model's shapes (declared in models/arch/catalog.hpp): total, active per token, one routed
// expert. Each projection is counted as the weight matrix the Hugging Face implementation of the architecture
// creates (modeling_llama, modeling_qwen2/3(_moe), modeling_mixtral, modeling_deepseek_v3, modeling_gpt_oss), so
// the totals match the published figures: Qwen3-235B-A22B 235.09B / 22.19B active, DeepSeek-V3 671.03B (without
// its multi-token-prediction layer) / 37.55B, Mixtral-8x7B 46.70B / 12.88B, gpt-oss-120b 116.83B (tests/models).
#include <algorithm>

#include "models/arch/catalog.hpp"

namespace lynx {

namespace {
double attention_params(const ModelSpec& m) {
  const double h = static_cast<double>(m.hidden_size), heads = static_cast<double>(m.n_heads);
  if (m.attention == AttentionKind::mla) {
    const double qk = static_cast<double>(m.qk_nope_head_dim + m.qk_rope_head_dim);
    const double ql = static_cast<double>(m.q_lora_rank), kvl = static_cast<double>(m.kv_lora_rank);
    // q: down-projection + its RMSNorm + up-projection to every head's nope and rope channels (or one full-rank
    // projection); kv: down-projection to the latent and the shared RoPE key, the latent's RMSNorm, its
    // up-projection to every head's key (nope part) and value; o: values back to hidden.
    const double q = m.q_lora_rank > 0 ? h * ql + ql + ql * heads * qk : h * heads * qk;
    const double kv = h * (kvl + static_cast<double>(m.qk_rope_head_dim)) + kvl +
                      kvl * heads * static_cast<double>(m.qk_nope_head_dim + m.v_head_dim);
    return q + kv + heads * static_cast<double>(m.v_head_dim) * h;
  }
  const double q = heads * static_cast<double>(m.head_dim);
  const double kv = static_cast<double>(m.n_kv_heads) * static_cast<double>(m.head_dim);
  double p = h * q + 2 * h * kv + q * h;
  if (m.qkv_bias) p += q + 2 * kv;
  if (m.o_bias) p += h;
  if (m.qk_norm) p += 2 * static_cast<double>(m.head_dim);
  if (m.attention_sinks) p += heads;
  return p;
}

// Every layer's parameters with `experts` routed experts per MoE layer, plus embeddings and the final norm.
double params_with_experts(const ModelSpec& m, double experts) {
  const double h = static_cast<double>(m.hidden_size);
  const double layers = static_cast<double>(m.n_layers);
  const double moe_layers = static_cast<double>(moe_layer_count(m));
  const double dense_mlp = 3 * h * static_cast<double>(m.ffn_size);
  double moe_mlp = 0;
  if (is_moe(m)) {
    const double e = static_cast<double>(m.n_experts);
    moe_mlp = experts * expert_params(m) + h * e + (m.router_bias ? e : 0) +
              3 * h * static_cast<double>(m.shared_ffn_size);
  }
  const double per_layer = attention_params(m) + 2 * h;
  return layers * per_layer + (layers - moe_layers) * dense_mlp + moe_layers * moe_mlp +
         static_cast<double>(m.vocab_size) * h * (m.tied_embeddings ? 1 : 2) + h;
}
}  // namespace

bool is_moe(const ModelSpec& m) { return m.n_experts > 0; }

int64_t moe_layer_count(const ModelSpec& m) { return is_moe(m) ? m.n_layers - m.dense_layers : 0; }

double expert_params(const ModelSpec& m) {
  if (!is_moe(m)) return 0;
  const double h = static_cast<double>(m.hidden_size), f = static_cast<double>(m.expert_ffn_size);
  return 3 * h * f + (m.expert_bias ? 2 * f + h : 0);
}

double model_params_from_shapes(const ModelSpec& m) {
  return params_with_experts(m, static_cast<double>(m.n_experts));
}

double model_active_params(const ModelSpec& m) {
  return params_with_experts(m, static_cast<double>(m.experts_per_token));
}

}  // namespace lynx
