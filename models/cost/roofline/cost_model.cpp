#include "models/cost/roofline/cost_model.hpp"

#include <algorithm>
#include <cstdio>

#include "common/error.hpp"
#include "models/arch/attention.hpp"
#include "models/arch/kv_size.hpp"

namespace lynx {

double bf16_kept_params(const ModelSpec& model, WeightsDtype dtype) {
  if (dtype != WeightsDtype::fp8) return 0;
  const double table = static_cast<double>(model.vocab_size) * static_cast<double>(model.hidden_size);
  return model.tied_embeddings ? table : 2 * table;
}

double model_weight_bytes(const ModelSpec& model, WeightsDtype dtype) {
  if (dtype != WeightsDtype::fp8) return 2.0 * static_cast<double>(model.params);
  const double kept = bf16_kept_params(model, dtype);
  return 1.0 * (static_cast<double>(model.params) - kept) + 2.0 * kept;
}

ComputeCostModel::ComputeCostModel(const ModelSpec& model, const GpuSpec& gpu, int64_t tensor_parallel,
                                   WeightsDtype weights, MoeParallel moe)
    : model_(model), gpu_(gpu), tp_(tensor_parallel), weights_(weights), moe_(moe) {
  if (tensor_parallel < 1) throw_error("tensor-parallel degree must be >= 1, got %lld",
                                       static_cast<long long>(tensor_parallel));
  check_moe_parallel(model, moe, tensor_parallel, "compute model of " + model.name);
  expert_factor_ = moe.expert_parallel > 1 ? moe.load_imbalance : 1.0;
  const double embedding_params = static_cast<double>(model.vocab_size * model.hidden_size);
  const double classifier_params = model.tied_embeddings ? 0.0 : embedding_params;
  // A dense model's active parameters are its params (the catalog's figure, checked against the shapes).
  const double active = is_moe(model) ? model_active_params(model) : static_cast<double>(model.params);
  const double body_params = active - embedding_params - classifier_params;
  dense_flops_per_token_ = 2.0 * body_params;
  classifier_flops_ = 2.0 * embedding_params;
  kv_replication_ = model.attention == AttentionKind::mla ? static_cast<double>(tensor_parallel) : 1.0;
  const double bytes_per_weight = weights == WeightsDtype::fp8 ? 1.0 : 2.0;
  bytes_per_weight_ = bytes_per_weight;
  weight_bytes_ = model_weight_bytes(model, weights);
  bf16_kept_params_ = bf16_kept_params(model, weights);
  // A tied table is also the classifier, which reads all of it; an untied table is only looked up row by row. The
  // table is bf16 under either weights_dtype (model_weight_bytes).
  embedding_table_bytes_ = model.tied_embeddings ? 0.0 : 2.0 * embedding_params;
  embedding_row_bytes_ = model.tied_embeddings ? 0.0 : 2.0 * static_cast<double>(model.hidden_size);
  const double gpus = static_cast<double>(tensor_parallel);
  // fp8 weights use the fp8 tensor-core peak where the GPU has one; otherwise (weight-only fp8) the bf16 peak.
  const double peak_tflops =
      weights == WeightsDtype::fp8 && gpu.fp8_dense_tflops > 0 ? gpu.fp8_dense_tflops : gpu.bf16_dense_tflops;
  peak_flops_per_s_ = peak_tflops * 1e12 * gpu.compute_efficiency * gpus;
  memory_bytes_per_s_ = gpu.hbm_gb_per_s * 1e9 * gpu.memory_efficiency * gpus;
  nvlink_bytes_per_s_ = gpu.nvlink_gb_per_s * 1e9;
}

std::string ComputeCostModel::source() const {
  char text[520];
  std::snprintf(text, sizeof text,
                "roofline (%s x%lld, %s weights: peak x %.2f, HBM x %.2f, efficiencies from %s's catalog entry)",
                gpu_.name.c_str(), static_cast<long long>(tp_), weights_dtype_name(weights_), gpu_.compute_efficiency,
                gpu_.memory_efficiency, gpu_.name.c_str());
  if (!is_moe(model_)) return text;
  char moe[160];
  std::snprintf(moe, sizeof moe, "; MoE %lld of %lld experts, ep %lld, load imbalance %g",
                static_cast<long long>(model_.experts_per_token), static_cast<long long>(model_.n_experts),
                static_cast<long long>(moe_.expert_parallel), expert_factor_);
  return std::string(text) + moe;
}

double ComputeCostModel::weight_bytes_read(double tokens) const {
  if (!is_moe(model_)) return weight_bytes_ - embedding_table_bytes_;
  const double experts = static_cast<double>(moe_layer_count(model_)) * expert_params(model_) *
                         expected_distinct_experts(model_.n_experts, model_.experts_per_token, tokens);
  // The embedding table and LM head (bf16_kept_params_) at 2 bytes, the rest at the weights' width.
  return bytes_per_weight_ * (params_read(model_, tokens) + (expert_factor_ - 1) * experts - bf16_kept_params_) +
         2.0 * bf16_kept_params_ - embedding_table_bytes_;
}

double ComputeCostModel::allreduce_seconds(int64_t tokens) const {
  if (tp_ == 1) return 0.0;
  // Two ring all-reduces per layer of the activations (tokens x hidden, bf16): each GPU sends 2(p-1)/p of them.
  const double bytes = static_cast<double>(tokens * model_.hidden_size) * 2.0;
  const double p = static_cast<double>(tp_);
  if (moe_.expert_parallel <= 1 || !is_moe(model_))
    return 2.0 * static_cast<double>(model_.n_layers) * 2.0 * (p - 1) / p * bytes / nvlink_bytes_per_s_;
  // Expert parallelism: a MoE layer's MLP all-reduce is replaced by its all-to-all dispatch and combine.
  const double moe_layers = static_cast<double>(moe_layer_count(model_));
  const double all_reduces = 2.0 * static_cast<double>(model_.n_layers) - moe_layers;
  return all_reduces * 2.0 * (p - 1) / p * bytes / nvlink_bytes_per_s_ +
         moe_layers * moe_all_to_all_seconds(model_, moe_, static_cast<double>(tokens), nvlink_bytes_per_s_);
}

double ComputeCostModel::prefill_seconds(const std::vector<PrefillPiece>& pieces) const {
  int64_t tokens = 0;
  for (const PrefillPiece& p : pieces) tokens += p.new_tokens;
  double flops = 0, bytes = weight_bytes_read(static_cast<double>(tokens));
  for (const PrefillPiece& p : pieces) {
    const double n = static_cast<double>(p.new_tokens);
    // Causal attention (models/arch/attention.hpp): new token i (0-based) attends to c + i + 1 keys, at most a sliding
    // layer's window; logits only for the piece's last token.
    flops += dense_flops_per_token_ * n + prefill_attention_flops(model_, p.new_tokens, p.cached_tokens) +
             classifier_flops_;
    // The bf16 KV of the piece's whole context, written and read (every rank's copy of an MLA latent).
    bytes += kv_replication_ * 2.0 * layers_kv_elements(model_, p.new_tokens + p.cached_tokens, 0, model_.n_layers);
  }
  if (is_moe(model_)) {
    const double expert_flops = 2.0 * static_cast<double>(moe_layer_count(model_) * model_.experts_per_token) *
                                expert_params(model_) * static_cast<double>(tokens);
    flops += (expert_factor_ - 1) * expert_flops;
  }
  bytes += std::min(embedding_row_bytes_ * static_cast<double>(tokens), embedding_table_bytes_);
  return std::max(flops / peak_flops_per_s_, bytes / memory_bytes_per_s_) + allreduce_seconds(tokens);
}

double ComputeCostModel::decode_seconds(int64_t query_tokens, double attended_tokens, double kv_bytes_read) const {
  const double q = static_cast<double>(query_tokens);
  double flops = (dense_flops_per_token_ + classifier_flops_) * q +
                 decode_attention_flops(model_, query_tokens, attended_tokens);
  if (is_moe(model_))
    flops += (expert_factor_ - 1) * 2.0 * static_cast<double>(moe_layer_count(model_) * model_.experts_per_token) *
             expert_params(model_) * q;
  // The weights without the embedding table (MoE: the experts the batch touches), plus the embedding row of each
  // token computed, plus the KV (an MLA latent read by every rank).
  const double embedding = std::min(embedding_row_bytes_ * q, embedding_table_bytes_);
  const double bytes = weight_bytes_read(q) + embedding + kv_replication_ * kv_bytes_read;
  return std::max(flops / peak_flops_per_s_, bytes / memory_bytes_per_s_) + allreduce_seconds(query_tokens);
}

}  // namespace lynx
