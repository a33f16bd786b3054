// The roofline compute cost model: how long a GPU instance (one model replica on `tp` GPUs) takes for a prefill
// pass and for a decode iteration. time = max(flops / (peak * compute_efficiency), bytes / (hbm_bandwidth *
// memory_efficiency)), split evenly over the tensor-parallel GPUs, plus the ring all-reduces tensor parallelism needs
// (two per layer, over NVLink). Prefill is compute-bound (its attention term is quadratic in the prompt); a decode
// iteration is memory-bound (weights plus every sequence's KV read once, and one embedding row per token).
// The efficiencies are the catalog's, each measured from the calibration data (models/catalog/gpus.json names the
// file and rows). `weights_dtype` fp8 halves the decoder blocks' weight bytes (the embedding table and LM head stay
// bf16: model_weight_bytes) and uses the GPU's fp8 peak when it has one.
// Mixture of experts (models/arch/moe.hpp): weight bytes from the total parameters; FLOPs from the active ones (top-k
// routed + shared experts, router); a pass reads the non-expert weights plus the distinct experts its tokens touch
// (uniform-routing closed form); with ep > 1 the busiest GPU's expert work is load_imbalance x the mean, and each
// MoE layer's all-reduce becomes an all-to-all dispatch + combine over NVLink. Attention per layer kind
// (models/arch/attention.hpp): MLA prefill in the plain form, decode in the absorbed form; sliding-window layers attend
// to at most their window. MLA's latent is held whole on every TP rank, so every rank reads (and a prefill writes)
// all of it: its KV bytes count tp times against the tp GPUs' bandwidth.
// Why keep a roofline: it needs only catalog numbers, is exact to test, and covers GPUs and shapes no measurement
// covers; the profiled model (profiled/profiled_cost.hpp) is the default where measurements exist.
#pragma once
#include <cstdint>
#include <vector>

#include "common/enum_names.hpp"
#include "models/arch/catalog.hpp"
#include "models/arch/moe.hpp"
#include "models/cost/step_cost.hpp"

namespace lynx {

enum class WeightsDtype { bf16, fp8 };
// Its names, as the configuration's weights_dtype spells them.
inline constexpr auto kWeightsDtypeNames =
    enum_names<WeightsDtype>({{WeightsDtype::bf16, "bf16"}, {WeightsDtype::fp8, "fp8"}});
inline const char* weights_dtype_name(WeightsDtype dtype) { return kWeightsDtypeNames.name(dtype); }

// Parameters kept in bf16 whatever weights_dtype says: the embedding table and an untied LM head (vocab x hidden
// each). fp8 checkpoints quantize the decoder blocks' linear layers only: NVIDIA ModelOpt's hf_quant_config.json
// lists `"exclude_modules": ["lm_head"]` (the data folder's
// calibration/aiconfigurator/model_configs/nvidia--Llama-3.1-70B-Instruct-FP8_hf_quant_config.json) and quantizes no
// embedding (it is not a linear layer).
double bf16_kept_params(const ModelSpec& model, WeightsDtype dtype);
// Bytes of one replica's weights: 2 per parameter in bf16; in fp8, 1 per parameter of the decoder blocks and 2 per
// parameter of the embedding table and LM head (bf16_kept_params).
double model_weight_bytes(const ModelSpec& model, WeightsDtype dtype);

class ComputeCostModel : public StepCostModel {
 public:
  ComputeCostModel(const ModelSpec& model, const GpuSpec& gpu, int64_t tensor_parallel,
                   WeightsDtype weights = WeightsDtype::bf16, MoeParallel moe = {});

  // One prefill iteration over a batch of prompt pieces. Weights are read once per iteration; the new tokens'
  // KV is written in bf16.
  using PrefillPiece = lynx::PrefillPiece;
  double prefill_seconds(const std::vector<PrefillPiece>& pieces) const override;
  double prefill_seconds(int64_t new_tokens, int64_t cached_tokens) const {
    return prefill_seconds({PrefillPiece{new_tokens, cached_tokens}});
  }
  // One decode iteration: `query_tokens` tokens computed in total (one per sequence, k for a verification pass),
  // attending over `attended_tokens` keys summed over those queries, reading `kv_bytes_read` bytes of KV.
  double decode_seconds(int64_t query_tokens, double attended_tokens, double kv_bytes_read) const;
  double decode_seconds(const DecodeWork& work) const override {
    return decode_seconds(work.query_tokens, work.attended_tokens, work.kv_bytes_read);
  }
  std::string source() const override;

  double flops_per_token_dense() const { return dense_flops_per_token_; }  // 2 * active non-embedding params
  double weight_bytes() const override { return weight_bytes_; }            // weights of the whole replica
  double peak_flops_per_s() const { return peak_flops_per_s_; }              // all tp GPUs, efficiency included
  double memory_bytes_per_s() const { return memory_bytes_per_s_; }          // all tp GPUs, efficiency included
  double allreduce_seconds(int64_t tokens) const;  // TP all-reduces (and EP all-to-alls) of one pass
  // Weight bytes a pass over `tokens` tokens reads, the embedding table excluded (its rows are added per token):
  // non-expert weights + the touched experts, the expert part scaled by the load imbalance when ep > 1.
  double weight_bytes_read(double tokens) const;

 private:
  ModelSpec model_;
  GpuSpec gpu_;
  int64_t tp_;
  WeightsDtype weights_;
  MoeParallel moe_;
  double expert_factor_;           // load_imbalance when ep > 1, else 1
  double bytes_per_weight_;
  double bf16_kept_params_;        // embedding table + untied LM head under fp8 weights, else 0
  double dense_flops_per_token_;   // FLOPs of the matrix multiplies per token, without the classifier
  double classifier_flops_;        // 2 * vocab * hidden, for each token whose logits are needed
  double kv_replication_;          // how many ranks hold each KV byte: tp for MLA's latent, 1 for sharded GQA
  double weight_bytes_;
  double embedding_table_bytes_;   // read by a prefill pass (every row may be looked up)
  double embedding_row_bytes_;     // read per token by a decode step (its own row only)
  double peak_flops_per_s_;
  double memory_bytes_per_s_;
  double nvlink_bytes_per_s_;
};

}  // namespace lynx
