#include "models/cost_model.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace lynx {

ComputeCostModel::ComputeCostModel(const ModelSpec& model, const GpuSpec& gpu, int64_t tensor_parallel)
    : model_(model), tp_(tensor_parallel) {
  if (tensor_parallel < 1) throw_error("tensor-parallel degree must be >= 1, got %lld",
                                       static_cast<long long>(tensor_parallel));
  const double embedding_params = static_cast<double>(model.vocab_size * model.hidden_size);
  const double classifier_params = model.tied_embeddings ? 0.0 : embedding_params;
  const double body_params = static_cast<double>(model.params) - embedding_params - classifier_params;
  dense_flops_per_token_ = 2.0 * body_params;
  classifier_flops_ = 2.0 * embedding_params;
  attention_flops_per_pair_ = 4.0 * static_cast<double>(model.n_heads * model.head_dim * model.n_layers);
  weight_bytes_ = 2.0 * static_cast<double>(model.params);
  const double gpus = static_cast<double>(tensor_parallel);
  peak_flops_per_s_ = gpu.bf16_dense_tflops * 1e12 * gpu.compute_efficiency * gpus;
  memory_bytes_per_s_ = gpu.hbm_gb_per_s * 1e9 * gpu.memory_efficiency * gpus;
  nvlink_bytes_per_s_ = gpu.nvlink_gb_per_s * 1e9;
}

double ComputeCostModel::allreduce_seconds(int64_t tokens) const {
  if (tp_ == 1) return 0.0;
  // Two ring all-reduces per layer of the activations (tokens x hidden, bf16): each GPU sends 2(p-1)/p of them.
  const double bytes = static_cast<double>(tokens * model_.hidden_size) * 2.0;
  const double p = static_cast<double>(tp_);
  return 2.0 * static_cast<double>(model_.n_layers) * 2.0 * (p - 1) / p * bytes / nvlink_bytes_per_s_;
}

double ComputeCostModel::prefill_seconds(const std::vector<PrefillPiece>& pieces) const {
  const double kv_row_bytes = 2.0 * 2.0 * static_cast<double>(model_.n_layers * model_.n_kv_heads * model_.head_dim);
  double flops = 0, bytes = weight_bytes_;
  int64_t tokens = 0;
  for (const PrefillPiece& p : pieces) {
    const double n = static_cast<double>(p.new_tokens), c = static_cast<double>(p.cached_tokens);
    // Causal attention: new token i (0-based) attends to c + i + 1 keys; logits only for the piece's last token.
    const double pairs = n * c + n * (n + 1) / 2;
    flops += dense_flops_per_token_ * n + attention_flops_per_pair_ * pairs + classifier_flops_;
    bytes += kv_row_bytes * (n + c);
    tokens += p.new_tokens;
  }
  return std::max(flops / peak_flops_per_s_, bytes / memory_bytes_per_s_) + allreduce_seconds(tokens);
}

double ComputeCostModel::decode_seconds(int64_t query_tokens, double attended_tokens, double kv_bytes_read) const {
  const double q = static_cast<double>(query_tokens);
  const double flops = (dense_flops_per_token_ + classifier_flops_) * q + attention_flops_per_pair_ * attended_tokens;
  const double bytes = weight_bytes_ + kv_bytes_read;
  return std::max(flops / peak_flops_per_s_, bytes / memory_bytes_per_s_) + allreduce_seconds(query_tokens);
}

}  // namespace lynx
