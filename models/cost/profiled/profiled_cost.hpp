// The profiled compute cost model: a prefill or decode iteration's time as the sum of published GPU measurements
// (gpu_profile.hpp), the way a serving engine runs it:
//   prefill = layers x (dense ops at the iteration's tokens + each sequence's causal attention)
//             + 2 all-reduces per layer and 1 after the vocabulary-parallel embedding (tokens x hidden bf16
//               activations, at the TP degree)
//             + embedding + final norm (every token) + LM head (one token per sequence) + per-step CPU overhead
//   decode  = layers x (dense ops at the batch's query tokens + attention over the KV the batch reads)
//             + 2 all-reduces per layer (+1 after the embedding) + embedding + final norm + LM head (every query token) + CPU overhead
// Each dense op of the simulated model comes from the measured curve of the same op whose size on one GPU (weight
// elements for a GEMM, elements per token otherwise) is nearest, scaled by the size ratio (at a given token count
// both a GEMM's FLOPs and its weight bytes scale with its weight elements); the LM head from the nearest GEMM of any
// kind. Prefill attention: the kernel with the nearest query heads per GPU, scaled by heads x head_dim (its FLOPs);
// decode attention: the kernel with the nearest KV heads per GPU, read at the KV tokens that carry the same bytes.
// Attention over a quantized cache: the caller weights each sequence's KV tokens by the format's attention cost
// relative to bf16 from the kernel cost table (DecodeWork::attention_kv_tokens).
// A GPU without measurements is derived from a measured one (`derived_from`): every op keeps the efficiency it
// reached there, i.e. its time scales by the ratio of its roofline times on the two GPUs (compute-bound and
// memory-bound ops each by their own peak: GEMMs by max(FLOPs/peak, bytes/bandwidth), attention prefill by FLOP/s,
// decode attention and element-wise ops by HBM bandwidth, all-reduces by NVLink bandwidth, CPU overheads unchanged).
// fp8 weights are derived the same way from the bf16 measurements (fp8 peak, one byte per weight).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "models/arch/catalog.hpp"
#include "models/cost/roofline/cost_model.hpp"
#include "models/cost/profiled/gpu_profile.hpp"
#include "models/cost/step_cost.hpp"

namespace lynx {

class ProfiledCostModel : public StepCostModel {
 public:
  // `measured` is the profile of `measured_gpu`; `gpu` is the simulated GPU (the same one, or one derived from it).
  ProfiledCostModel(const ModelSpec& model, const GpuSpec& gpu, int tensor_parallel, WeightsDtype weights,
                    std::shared_ptr<const GpuProfile> measured, const GpuSpec& measured_gpu);

  double prefill_seconds(const std::vector<PrefillPiece>& pieces) const override;
  double decode_seconds(const DecodeWork& work) const override;
  void decode_run_ends(const DecodeRun& run, size_t first, size_t last, double start_s,
                       std::vector<double>& ends_s) const override;
  double weight_bytes() const override { return weight_bytes_; }
  std::string source() const override;
  bool extrapolated() const override { return extrapolated_; }

  // Why the measurements do not cover this model on this GPU ("" when they do): a dense op whose nearest
  // measured size is more than kMaxSizeRatio away, or a TP degree without all-reduce measurements.
  const std::string& not_covered() const { return not_covered_; }
  static constexpr double kMaxSizeRatio = 4.0;

  // Components, for validation and tests (seconds).
  double dense_layer_seconds(double tokens) const;             // one layer's dense ops
  double prefill_attention_seconds(double new_tokens, double cached_tokens) const;  // one layer, one sequence
  double decode_attention_seconds(double kv_tokens) const;    // one layer, the whole batch
  double all_reduce_seconds(double tokens) const;              // one all-reduce of tokens x hidden (0 at TP 1)
  double lm_head_seconds(double tokens) const;                 // classifier GEMM
  double embedding_seconds(double tokens) const;               // embedding lookup + final norm
  double cpu_overhead_seconds(double sequences) const;         // per engine step
  int layers() const { return static_cast<int>(model_.n_layers); }

 private:
  // decode_run_ends' body, compiled twice (x86-64: with AVX2, where the CPU has it, and without; chosen once when
  // the program loads): its block loop then computes 4 iterations per instruction instead of 2. The same IEEE
  // operations in the same order either way (AVX2 holds no fused multiply-add), so the same doubles.
  void decode_run_ends_body(const DecodeRun& run, size_t first, size_t last, double start_s,
                            std::vector<double>& ends_s) const;
  struct Op {
    std::string op;
    const OpCurve* curve = nullptr;
    const Curve* seconds = nullptr;  // its curve
    double size_ratio = 1;  // target size / measured size
    double k = 0, m = 0;    // GEMM: input and output features on one GPU; element-wise: m = 0, k = elements/token
    double count = 1;       // per layer (two residual adds)
  };
  Op pick(const std::string& op, const std::vector<std::string>& candidates, double size, double k, double m,
          double count);
  double op_seconds(const Op& op, double tokens) const;
  double on_target(const Op& op, double tokens, double measured_s) const;  // a measured time on the target GPU
  double gemm_ratio(double tokens, double k, double m) const;  // roofline time on target / on measured GPU

  ModelSpec model_;
  GpuSpec gpu_, measured_gpu_;
  int tp_;
  WeightsDtype weights_;
  std::shared_ptr<const GpuProfile> profile_;
  bool same_gpu_ = true;  // the measured GPU with bf16 weights: no derivation
  std::vector<Op> layer_ops_;
  const Curve* layer_grid_ = nullptr;  // every layer op's curve, where all of them have the same sizes (else null)
  Op emb_, final_norm_, lm_head_;
  const AttentionCurve* prefill_attention_ = nullptr;
  const AttentionCurve* decode_attention_ = nullptr;
  const Curve* prefill_attention_seconds_ = nullptr;  // their curves, read when picked
  const Curve* decode_attention_seconds_ = nullptr;
  const Curve* all_reduce_ = nullptr;
  const Curve* cpu_overhead_ = nullptr;
  std::string cpu_overhead_source_;
  double weight_bytes_ = 0;
  std::string not_covered_;
  mutable bool extrapolated_ = false;
  // decode_seconds' terms that depend only on the batch's query tokens, and the CPU overhead that depends only on
  // its sequences, kept per value once computed (a decode batch's size changes as requests join and leave, and each
  // term costs several interpolations; a kept value is the same value, so results are bit-identical). Up to
  // kKeptTerms query tokens or sequences; beyond, computed each time. One simulation per process: no two threads
  // share a cost model.
  static constexpr int64_t kKeptTerms = 1 << 16;
  struct QueryTerms {
    bool known = false;
    double dense = 0, all_reduce = 0, embedding = 0, lm_head = 0;
  };
  QueryTerms query_terms(int64_t query_tokens) const;
  // One decode step from its terms and its attention time per layer: the one sum decode_seconds and decode_run_ends
  // share (decode_run_ends computes the attention with its curve's operands out of the loop; a test holds the two to
  // the last bit, test_profiled_cost.cpp).
  static double decode_step_sum(double layers, const QueryTerms& c, double attention_s, double cpu_s) {
    return layers * (c.dense + attention_s + 2 * c.all_reduce) + c.all_reduce + c.embedding + c.lm_head + cpu_s;
  }
  // A decode step's KV tokens as the decode attention table's size: scaled from this model's KV heads per GPU
  // (`heads` x head_dim) to the measured ones (`measured_heads`); the one expression decode_attention_seconds and
  // decode_run_ends share. `inverse`: exact_inverse(measured_heads) (curve.hpp), a power of two multiplying with the
  // division's bits, else 0.
  static double decode_attention_size(double kv_tokens, double heads, double measured_heads, double inverse) {
    return inverse != 0 ? decode_attention_size_by_inverse(kv_tokens, heads, inverse)
                        : kv_tokens * heads / measured_heads;
  }
  static double decode_attention_size_by_inverse(double kv_tokens, double heads, double inverse) {
    return kv_tokens * heads * inverse;
  }
  // A memory-bound time measured on a GPU of `measured_hbm` GB/s, on one of `hbm` GB/s: the one expression of the
  // element-wise ops and the decode attention (decode_run_ends passes the bandwidths from locals).
  static double memory_bound_on(double measured_s, double measured_hbm, double hbm) {
    return measured_s * measured_hbm / hbm;
  }
  double decode_measured_heads_inverse_ = 0;  // exact_inverse of the decode attention table's heads x head_dim
  double cpu_terms(int64_t sequences) const;
  mutable std::vector<QueryTerms> query_terms_;
  mutable std::vector<double> cpu_terms_;  // NaN: not computed yet
  mutable size_t decode_attention_segment_ = 0;  // Curve::at's search hint: the segment of the last decode step
};

}  // namespace lynx
