#include "models/cost_model.hpp"

#include <algorithm>
#include <cstdio>

#include "common/error.hpp"

namespace lynx {

const char* weights_dtype_name(WeightsDtype dtype) { return dtype == WeightsDtype::fp8 ? "fp8" : "bf16"; }

ComputeCostModel::ComputeCostModel(const ModelSpec& model, const GpuSpec& gpu, int64_t tensor_parallel,
                                   WeightsDtype weights)
    : model_(model), gpu_(gpu), tp_(tensor_parallel), weights_(weights) {
  if (tensor_parallel < 1) throw_error("tensor-parallel degree must be >= 1, got %lld",
                                       static_cast<long long>(tensor_parallel));
  const double embedding_params = static_cast<double>(model.vocab_size * model.hidden_size);
  const double classifier_params = model.tied_embeddings ? 0.0 : embedding_params;
  const double body_params = static_cast<double>(model.params) - embedding_params - classifier_params;
  dense_flops_per_token_ = 2.0 * body_params;
  classifier_flops_ = 2.0 * embedding_params;
  attention_flops_per_pair_ = 4.0 * static_cast<double>(model.n_heads * model.head_dim * model.n_layers);
  const double bytes_per_weight = weights == WeightsDtype::fp8 ? 1.0 : 2.0;
  weight_bytes_ = bytes_per_weight * static_cast<double>(model.params);
  // A tied table is also the classifier, which reads all of it; an untied table is only looked up row by row.
  embedding_table_bytes_ = model.tied_embeddings ? 0.0 : bytes_per_weight * embedding_params;
  embedding_row_bytes_ = model.tied_embeddings ? 0.0 : bytes_per_weight * static_cast<double>(model.hidden_size);
  const double gpus = static_cast<double>(tensor_parallel);
  // fp8 weights use the fp8 tensor-core peak where the GPU has one; otherwise (weight-only fp8) the bf16 peak.
  const double peak_tflops =
      weights == WeightsDtype::fp8 && gpu.fp8_dense_tflops > 0 ? gpu.fp8_dense_tflops : gpu.bf16_dense_tflops;
  peak_flops_per_s_ = peak_tflops * 1e12 * gpu.compute_efficiency * gpus;
  memory_bytes_per_s_ = gpu.hbm_gb_per_s * 1e9 * gpu.memory_efficiency * gpus;
  nvlink_bytes_per_s_ = gpu.nvlink_gb_per_s * 1e9;
}

std::string ComputeCostModel::source() const {
  char text[400];
  std::snprintf(text, sizeof text,
                "roofline (%s x%lld, %s weights: peak x %.2f, HBM x %.2f, efficiencies from %s's catalog entry)",
                gpu_.name.c_str(), static_cast<long long>(tp_), weights_dtype_name(weights_), gpu_.compute_efficiency,
                gpu_.memory_efficiency, gpu_.name.c_str());
  return text;
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
  double flops = 0, bytes = weight_bytes_ - embedding_table_bytes_;
  int64_t tokens = 0;
  for (const PrefillPiece& p : pieces) {
    const double n = static_cast<double>(p.new_tokens), c = static_cast<double>(p.cached_tokens);
    // Causal attention: new token i (0-based) attends to c + i + 1 keys; logits only for the piece's last token.
    const double pairs = n * c + n * (n + 1) / 2;
    flops += dense_flops_per_token_ * n + attention_flops_per_pair_ * pairs + classifier_flops_;
    bytes += kv_row_bytes * (n + c);
    tokens += p.new_tokens;
  }
  bytes += std::min(embedding_row_bytes_ * static_cast<double>(tokens), embedding_table_bytes_);
  return std::max(flops / peak_flops_per_s_, bytes / memory_bytes_per_s_) + allreduce_seconds(tokens);
}

double ComputeCostModel::decode_seconds(int64_t query_tokens, double attended_tokens, double kv_bytes_read) const {
  const double q = static_cast<double>(query_tokens);
  const double flops = (dense_flops_per_token_ + classifier_flops_) * q + attention_flops_per_pair_ * attended_tokens;
  // The weights without the embedding table, plus the embedding row of each token computed.
  const double embedding = std::min(embedding_row_bytes_ * q, embedding_table_bytes_);
  const double bytes = weight_bytes_ - embedding_table_bytes_ + embedding + kv_bytes_read;
  return std::max(flops / peak_flops_per_s_, bytes / memory_bytes_per_s_) + allreduce_seconds(query_tokens);
}

}  // namespace lynx
