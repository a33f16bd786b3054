// The engine-composed step cost (a pool's `engine`: vllm-0.24, sglang-0.5.14, trtllm-1.3): a prefill or decode
// iteration as the sum of that engine's own kernels measured by AIConfigurator on the GPU (aic_database.hpp), the
// way the engine runs a dense grouped-query decoder under tensor parallelism tp:
//   per layer  GEMMs at the TP shard shapes, m = the step's tokens:
//                qkv     n = (heads + 2 kv_heads) x head_dim / tp (KV heads replicated when tp > kv_heads), k = hidden
//                o       n = hidden, k = heads x head_dim / tp
//                gate+up n = 2 ffn / tp, k = hidden (one fused GEMM, as vLLM's MergedColumnParallelLinear)
//                down    n = hidden, k = ffn / tp
//              + attention: prefill, each sequence's context attention (batch 1, its length; a chunk after c cached
//                tokens takes the table's time at n + c scaled by its query-key pairs over those of n + c from the
//                start, n c + n (n + 1) / 2 over (n + c)(n + c + 1) / 2); decode, generation attention at batch =
//                sequences and the batch's mean KV tokens per sequence (a verification pass's k + 1 queries read the
//                same KV, memory-bound: the same time)
//              + 2 all-reduces of tokens x hidden bf16 values (0 at tp 1) with the engine's own all-reduce (its
//                one-shot/two-shot kernel by message size, its NCCL fall-back for large messages, as the table
//                holds them): the CUDA-graph variant in decode steps (the engines capture decode in CUDA graphs),
//                the eager variant in prefill steps
//   per step   1 all-reduce after the vocabulary-parallel embedding, the LM head GEMM (n = vocab / tp, k = hidden;
//              m = sequences in prefill, query tokens in decode) and the engine's host overhead (engine_host.hpp).
// Element-wise kernels have no table; they are costed as AIConfigurator costs memory-bound ops (its systems/<gpu>.yaml:
// mem_empirical_constant_latency 3 us per kernel + bytes / (mem_bw_empirical_scaling_factor 0.8 x HBM bandwidth)),
// with the kernels vLLM runs for a Llama layer: 2 fused residual-add + RMSNorm (read x and residual, write both),
// RoPE on q and k (read and write), the KV-cache write (read K and V, write them), SiLU-and-mul (read 2 ffn / tp,
// write ffn / tp); per step the embedding lookup and the final RMSNorm (read and write hidden).
// Weights fp8: the engine's fp8 GEMM and MoE rows, per-tensor scaled, or block-scaled (fp8_block) for a checkpoint
// whose config.json names a weight_block_size (DeepSeek-V3); the LM head keeps its bf16 GEMM and the embedding
// table and LM head their bf16 bytes (model_weight_bytes: fp8 checkpoints leave them unquantized). Per-tensor rows
// are read less the dynamic input quantization they were timed with, unless the checkpoint quantizes dynamically
// (fp8_input_quant.hpp).
// A GPU without tables (`gpu` differs from `measured`, the nearest GPU with tables) is derived kernel by kernel by
// what each kernel spends its time on (models/cost/engine/gpu_derivation.hpp: a launch floor, its FLOPs at the tensor
// peak, its HBM traffic, the rest scaling with the GPU's throughput; collectives by NVLink), host overhead
// unchanged; `source` says "derived from" and names the rule.
// MoE layers (Mixtral, Qwen3-MoE: grouped-query attention with routed experts): the dense MLP GEMMs give way to the
// engine's fused MoE kernel (moe_perf, balanced routing, at the step's tokens, hidden, expert width, top-k, experts,
// moe tp = tp / ep and moe ep = ep), plus the router GEMM (n = experts, k = hidden) and the shared experts' GEMMs
// when the model has them; the first dense_layers keep the dense MLP; 2 all-reduces per layer whatever ep (the
// engines' default expert parallelism inside the TP group combines with an all-reduce). moe_load_imbalance is not
// applied (the table's balanced rows).
// MLA layers (DeepSeek-V3, Kimi-K2: engine_mla_not_covered says which shapes) replace the qkv and o GEMMs and the
// attention, as each engine runs them:
//   SGLang, TRT-LLM  GEMMs down (q_lora + kv_lora + rope, k hidden: replicated, not split by TP), query-up
//                    (heads x 192 / tp, k q_lora), output (hidden, k heads x 128 / tp) at every token; in prefill the
//                    latent's up-projection (heads x 256 / tp, k kv_lora) and the MLA context kernel
//                    (context_mla_perf: heads / tp, batch 1, the sequence's length, chunks scaled by query-key pairs as
//                    above); in decode the two absorbed BMMs (mla_bmm_perf mla_gen_pre and mla_gen_post at the step's
//                    tokens) around the MLA generation kernel (generation_mla_perf at batch = sequences and their
//                    mean KV tokens)
//   vLLM             its whole-module tables (mla_context_module_perf, mla_generation_module_perf: DeepSeek-V3's
//                    attention block, projections included, the same lookups), no separate projection GEMMs
// plus 2 all-reduces per layer as above, and element-wise kernels for MLA (2 fused add + RMSNorm, SiLU-and-mul;
// outside a module, the two latents' RMSNorms, RoPE on the rope channels and the latent's cache write). A derived
// GPU derives the MLA kernels and modules as attention kernels, the BMMs as GEMMs.
// Sliding-window models are not composed here (compute_model.cpp falls back to the roofline under "auto" and says
// why).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "models/arch/catalog.hpp"
#include "models/cost/roofline/cost_model.hpp"
#include "models/cost/engine/aic_database.hpp"
#include "models/cost/engine/engine_host.hpp"
#include "models/cost/engine/gpu_derivation.hpp"
#include "models/cost/step_cost.hpp"

namespace lynx {

// A GEMM shape on one GPU: n output features, k input features (m is the step's tokens).
struct GemmShape {
  double n = 0, k = 0;
};

// The per-GPU shapes of a dense GQA layer under tensor parallelism (the list above).
struct EngineShapes {
  GemmShape qkv, o, gate_up, down, lm_head;
  double heads = 0, kv_heads = 0, head_dim = 0, hidden = 0;
  // MLA (DeepSeek): the latent down-projection (q_lora + kv_lora + rope, replicated on every GPU; without a query
  // LoRA the query's full projection goes to q_up instead), the query's up-projection, the latent's up-projection to
  // keys and values (prefill), the output projection (heads x v_head_dim / tp). Zero for GQA.
  GemmShape mla_down, mla_q_up, mla_kv_up, mla_o;
};
// MLA is composed from the tables only for the head shapes they measured: DeepSeek-V3's kv_lora_rank 512,
// qk_rope 64, qk_nope 128, v 128 (and, for vLLM's whole-module tables, its hidden 7168 and q_lora_rank 1536).
// "" when `model` can be composed for `engine`, else why not.
std::string engine_mla_not_covered(const ModelSpec& model, ServingEngine engine);
EngineShapes engine_shapes(const ModelSpec& model, int tensor_parallel);

class EngineCostModel : public StepCostModel {
 public:
  EngineCostModel(const ModelSpec& model, const GpuSpec& gpu, int tensor_parallel, WeightsDtype weights,
                  std::shared_ptr<const AicDatabase> db, const GpuSpec& measured_gpu, bool fp8_kv_cache = false,
                  int expert_parallel = 1, const KernelFamilyFactors& family_factors = {});

  double prefill_seconds(const std::vector<PrefillPiece>& pieces) const override;
  double decode_seconds(const DecodeWork& work) const override;
  // One in-flight-batching iteration of an aggregated engine (context and generation requests in one forward pass,
  // as TensorRT-LLM and vLLM run them): the dense terms (GEMMs, all-reduces, element-wise kernels) at the sum of
  // the context tokens and `generation_tokens` (the generation batch as run: at least its query tokens, more where
  // the engine pads it to a captured CUDA-graph size), each context piece's context attention, the generation
  // batch's attention, and the LM head at one row per context piece and per generation query. The CUDA-graph
  // all-reduce is taken only when there is no context piece (engines capture generation-only batches). With no
  // generation work it is prefill_seconds (which calls it); with no context and generation_tokens =
  // work.query_tokens it equals decode_seconds to rounding (tests/models/test_offline_bench.cpp).
  double iteration_seconds(const std::vector<PrefillPiece>& context, const DecodeWork& generation,
                           int64_t generation_tokens) const;
  // A co-located step: iteration_seconds with the generation batch run as run_tokens less the pieces' tokens.
  double mixed_seconds(const std::vector<PrefillPiece>& pieces, const DecodeWork& work,
                       int64_t run_tokens) const override;
  double weight_bytes() const override { return weight_bytes_; }
  std::string source() const override;
  bool extrapolated() const override { return db_->extrapolated(); }
  // The families of tables its lookups read (AicDatabase::source's names): GEMMs, both attentions, the all-reduce
  // in both variants at TP > 1, the MoE kernel (of the weights' dtype) for a MoE model.
  std::vector<std::string> table_families() const;
  // The GEMM and MoE rows the weights read: bf16, per-tensor fp8, or fp8_block for a block-scaled checkpoint
  AicGemmDtype gemm_dtype() const;
  std::string gemm_family() const;
  std::string moe_dtype() const;
  void preload_tables() const override { db_->preload(table_families()); }
  void load_tables() const override { db_->load_now(table_families()); }

  // Components in milliseconds, for tests and validation.
  double layer_gemms_ms(double tokens) const;  // qkv + o + gate_up + down (a dense layer; MLA: gate_up + down)
  double moe_layer_mlp_ms(double tokens) const;  // a MoE layer's fused experts + router (+ shared experts)
  double lm_head_ms(double tokens) const;
  double allreduce_ms(double tokens, bool cuda_graph) const;  // one all-reduce of tokens x hidden; 0 at tp 1
  double context_attention_ms(double new_tokens, double cached_tokens) const;  // one layer, one sequence
  double generation_attention_ms(double sequences, double kv_tokens_per_sequence) const;  // one layer
  // One layer's attention projections: GQA qkv + o; MLA outside a module table, the down, query-up and output
  // projections at every token, the latent's up-projection at context tokens and the two absorbed BMMs at
  // generation tokens (a vLLM module table holds them: 0).
  double attention_gemms_ms(double context_tokens, double generation_tokens) const;
  double layer_elementwise_ms(double tokens) const;  // one layer's element-wise kernels
  double step_elementwise_ms(double tokens) const;   // embedding lookup + final norm
  const EngineShapes& shapes() const { return shapes_; }
  double host_ms() const { return host_.per_step_ms; }

 private:
  double gemm_ms(double m, const GemmShape& g) const;  // in the weights' dtype (gemm_dtype)
  double gemm_ms(double m, const GemmShape& g, AicGemmDtype dtype) const;
  double mlp_layers_ms(double tokens) const;  // every layer's MLP GEMMs (dense or MoE), all layers together

  ModelSpec model_;
  GpuSpec gpu_, measured_;
  int tp_;
  WeightsDtype weights_;
  std::shared_ptr<const AicDatabase> db_;
  EngineShapes shapes_;
  EngineHostOverhead host_;
  bool derived_ = false;
  KernelFamilyFactors family_;  // each family's time over the tables' (1: as measured)
  int ep_ = 1;
  bool mla_ = false;     // multi-head latent attention (DeepSeek)
  bool module_ = false;  // MLA from the engine's whole-module tables (vLLM)
  bool fp8_kv_ = false;  // attention tables with an fp8 KV cache (validation of engines run that way; the simulator
                         // weights a quantized cache through DecodeWork::attention_kv_tokens instead)
  double weight_bytes_ = 0;
  // Step terms that depend only on a whole token count, kept per count below kKeptTokenTerms (bit-identical to
  // recomputing them): a decode step's dense part (everything but attention, at its query tokens); an iteration's
  // all-reduce (graph-captured, eager), element-wise kernels (per layer, per step), MLP layers and LM head.
  enum TokenTerm {
    kDecodeDense, kAllreduceGraph, kAllreduceEager, kLayerElementwise, kStepElementwise, kMlpLayers, kLmHead, kTerms
  };
  struct KeptTerm {
    bool known = false;
    double ms = 0;
  };
  mutable std::vector<KeptTerm> token_terms_[kTerms];
  // `term` at `tokens`: kept where tokens is a whole count below the bound, else computed by `compute`.
  template <class F>
  double kept(TokenTerm term, double tokens, F compute) const;
};

}  // namespace lynx
