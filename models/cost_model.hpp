// The compute cost model: how long a GPU instance (one model replica on `tp` GPUs) takes for a prefill pass and
// for a decode iteration. A roofline, as in DESIGN.md: time = max(flops / (peak * compute_efficiency),
// bytes / (hbm_bandwidth * memory_efficiency)), split evenly over the tensor-parallel GPUs, plus the ring
// all-reduces tensor parallelism needs (two per layer, over NVLink). Prefill is compute-bound (its attention
// term is quadratic in the prompt); a decode iteration is memory-bound (weights plus every sequence's KV read once).
// Why a roofline: it needs only catalog numbers, is exact to test, and its efficiency factors are the
// calibration knobs that measured tables override.
#pragma once
#include <cstdint>
#include <vector>

#include "models/catalog.hpp"

namespace lynx {

class ComputeCostModel {
 public:
  ComputeCostModel(const ModelSpec& model, const GpuSpec& gpu, int64_t tensor_parallel);

  // One prefill iteration over a batch of prompt pieces: each piece computes `new_tokens` tokens of a sequence
  // whose attention also covers `cached_tokens` earlier tokens (chunked prefill). Weights are read once per
  // iteration; the new tokens' KV is written in bf16.
  struct PrefillPiece {
    int64_t new_tokens = 0;
    int64_t cached_tokens = 0;
  };
  double prefill_seconds(const std::vector<PrefillPiece>& pieces) const;
  double prefill_seconds(int64_t new_tokens, int64_t cached_tokens) const {
    return prefill_seconds({PrefillPiece{new_tokens, cached_tokens}});
  }
  // One decode iteration: `query_tokens` tokens computed in total (one per sequence, k for a verification pass),
  // attending over `attended_tokens` keys summed over those queries, reading `kv_bytes_read` bytes of KV.
  double decode_seconds(int64_t query_tokens, double attended_tokens, double kv_bytes_read) const;

  double flops_per_token_dense() const { return dense_flops_per_token_; }  // 2 * non-embedding params
  double weight_bytes() const { return weight_bytes_; }                      // bf16 weights of the whole replica
  double peak_flops_per_s() const { return peak_flops_per_s_; }              // all tp GPUs, efficiency included
  double memory_bytes_per_s() const { return memory_bytes_per_s_; }          // all tp GPUs, efficiency included
  double allreduce_seconds(int64_t tokens) const;                            // TP all-reduces of one pass

 private:
  ModelSpec model_;
  int64_t tp_;
  double dense_flops_per_token_;   // FLOPs of the matrix multiplies per token, without the classifier
  double classifier_flops_;        // 2 * vocab * hidden, for each token whose logits are needed
  double attention_flops_per_pair_;  // 4 * n_heads * head_dim * n_layers: QK^T and PV for one query-key pair
  double weight_bytes_;
  double peak_flops_per_s_;
  double memory_bytes_per_s_;
  double nvlink_bytes_per_s_;
};

}  // namespace lynx
