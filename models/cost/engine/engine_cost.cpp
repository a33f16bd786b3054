#include "models/cost/engine/engine_cost.hpp"

#include "models/cost/engine/gpu_derivation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/error.hpp"
#include "models/cost/profiled/elementwise_cost.hpp"

namespace lynx {

namespace {
constexpr int64_t kKeptTokenTerms = 1 << 16;
}  // namespace

EngineShapes engine_shapes(const ModelSpec& model, int tp) {
  EngineShapes s;
  const double t = tp;
  s.heads = static_cast<double>(model.n_heads) / t;
  s.kv_heads = std::max(1.0, static_cast<double>(model.n_kv_heads) / t);  // replicated when tp > kv heads
  s.head_dim = static_cast<double>(model.head_dim);
  s.hidden = static_cast<double>(model.hidden_size);
  s.qkv = {(s.heads + 2 * s.kv_heads) * s.head_dim, s.hidden};
  s.o = {s.hidden, s.heads * s.head_dim};
  s.gate_up = {2 * static_cast<double>(model.ffn_size) / t, s.hidden};
  s.down = {s.hidden, static_cast<double>(model.ffn_size) / t};
  s.lm_head = {static_cast<double>(model.vocab_size) / t, s.hidden};
  if (model.attention == AttentionKind::mla) {
    const double q_lora = static_cast<double>(model.q_lora_rank), kv_lora = static_cast<double>(model.kv_lora_rank);
    const double qk = static_cast<double>(model.qk_nope_head_dim + model.qk_rope_head_dim);
    const double v = static_cast<double>(model.v_head_dim);
    s.mla_down = {q_lora + kv_lora + static_cast<double>(model.qk_rope_head_dim), s.hidden};
    s.mla_q_up = {s.heads * qk, q_lora > 0 ? q_lora : s.hidden};
    s.mla_kv_up = {s.heads * (static_cast<double>(model.qk_nope_head_dim) + v), kv_lora};
    s.mla_o = {s.hidden, s.heads * v};
    s.qkv = {};
    s.o = {};
  }
  return s;
}

std::string engine_mla_not_covered(const ModelSpec& model, ServingEngine engine) {
  if (model.attention != AttentionKind::mla) return "";
  if (model.kv_lora_rank != 512 || model.qk_rope_head_dim != 64 || model.qk_nope_head_dim != 128 ||
      model.v_head_dim != 128)
    return "the MLA tables measured DeepSeek-V3's heads (kv_lora_rank 512, qk_rope 64, qk_nope 128, v 128), not " +
           model.name + "'s (" + std::to_string(model.kv_lora_rank) + ", " + std::to_string(model.qk_rope_head_dim) +
           ", " + std::to_string(model.qk_nope_head_dim) + ", " + std::to_string(model.v_head_dim) + ")";
  if (engine == ServingEngine::vllm && (model.hidden_size != 7168 || model.q_lora_rank != 1536))
    return "vLLM's MLA tables measured DeepSeek-V3's whole attention module (hidden 7168, q_lora_rank 1536), not " +
           model.name + "'s (" + std::to_string(model.hidden_size) + ", " + std::to_string(model.q_lora_rank) + ")";
  return "";
}

EngineCostModel::EngineCostModel(const ModelSpec& model, const GpuSpec& gpu, int tp, WeightsDtype weights,
                                 std::shared_ptr<const AicDatabase> db, const GpuSpec& measured, bool fp8_kv_cache,
                                 int expert_parallel, const KernelFamilyFactors& family_factors)
    : model_(model), gpu_(gpu), measured_(measured), tp_(tp), weights_(weights), db_(std::move(db)),
      shapes_(engine_shapes(model, tp)), host_(engine_host_overhead(db_->engine())) {
  fp8_kv_ = fp8_kv_cache;
  ep_ = expert_parallel;
  family_ = family_factors;
  mla_ = model.attention == AttentionKind::mla;
  module_ = mla_ && db_->mla_is_module();
  const std::string why = engine_mla_not_covered(model, db_->engine());
  if (!why.empty()) throw_error("engine %s: %s", serving_engine_name(db_->engine()), why.c_str());
  derived_ = gpu.name != measured.name;
  weight_bytes_ = model_weight_bytes(model, weights);
  if (weights == WeightsDtype::fp8 && gpu.fp8_dense_tflops <= 0)
    throw_error("%s has no fp8 tensor cores (weights_dtype fp8)", gpu.name.c_str());
}

double EngineCostModel::gemm_ms(double m, const GemmShape& g) const { return gemm_ms(m, g, gemm_dtype()); }

double EngineCostModel::gemm_ms(double m, const GemmShape& g, AicGemmDtype dtype) const {
  const bool fp8 = dtype != AicGemmDtype::bf16;
  // per-tensor fp8 with static input scales: the row less the dynamic quantization it was timed with
  const double ms = dtype == AicGemmDtype::fp8 && !model_.dynamic_fp8_activations
                        ? db_->static_fp8_gemm_ms(m, g.n, g.k)
                        : db_->gemm_ms(m, g.n, g.k, dtype);
  return family_[KernelFamily::gemm] *
         (derived_ ? derive_kernel_ms(KernelFamily::gemm, gemm_work(m, g.n, g.k, fp8), ms, measured_, gpu_) : ms);
}

double EngineCostModel::layer_gemms_ms(double tokens) const {
  return (mla_ ? 0 : attention_gemms_ms(tokens, 0)) + gemm_ms(tokens, shapes_.gate_up) + gemm_ms(tokens, shapes_.down);
}

double EngineCostModel::attention_gemms_ms(double context_tokens, double generation_tokens) const {
  const double tokens = context_tokens + generation_tokens;
  if (!mla_) return gemm_ms(tokens, shapes_.qkv) + gemm_ms(tokens, shapes_.o);
  if (module_) return 0;
  double ms = gemm_ms(tokens, shapes_.mla_q_up) + gemm_ms(tokens, shapes_.mla_o);
  if (model_.q_lora_rank > 0 || model_.kv_lora_rank > 0) ms += gemm_ms(tokens, shapes_.mla_down);
  if (context_tokens > 0) ms += gemm_ms(context_tokens, shapes_.mla_kv_up);
  if (generation_tokens > 0) {
    const bool fp8 = weights_ == WeightsDtype::fp8;
    const double heads = shapes_.heads;
    double bmm = db_->mla_bmm_ms(generation_tokens, heads, true, fp8) + db_->mla_bmm_ms(generation_tokens, heads, false, fp8);
    // derived: two (tokens x 128) x (128 x 512) products per head, their weights read once
    if (derived_) {
      const KernelWork w{2 * 2 * generation_tokens * heads * 128 * 512,
                         (fp8 ? 1 : 2) * 2 * (heads * 128 * 512 + generation_tokens * heads * 640), 0, fp8};
      bmm = derive_kernel_ms(KernelFamily::gemm, w, bmm, measured_, gpu_);
    }
    ms += family_[KernelFamily::gemm] * bmm;
  }
  return ms;
}

double EngineCostModel::moe_layer_mlp_ms(double tokens) const {
  const bool fp8 = weights_ == WeightsDtype::fp8;
  double ms = db_->moe_ms(tokens, shapes_.hidden, static_cast<double>(model_.expert_ffn_size),
                          static_cast<double>(model_.experts_per_token), static_cast<double>(model_.n_experts),
                          static_cast<double>(tp_ / ep_), static_cast<double>(ep_), moe_dtype());
  if (derived_)  // the fused kernel's routed GEMMs on this GPU's experts (gpu_derivation.hpp)
    ms = derive_kernel_ms(KernelFamily::moe,
                          moe_work(tokens, shapes_.hidden, static_cast<double>(model_.expert_ffn_size),
                                   static_cast<double>(model_.experts_per_token), static_cast<double>(model_.n_experts),
                                   static_cast<double>(tp_ / ep_), static_cast<double>(ep_), fp8),
                          ms, measured_, gpu_);
  ms *= family_[KernelFamily::moe];
  ms += gemm_ms(tokens, {static_cast<double>(model_.n_experts), shapes_.hidden});  // router
  if (model_.shared_ffn_size > 0) {
    const double shared = static_cast<double>(model_.shared_ffn_size) / tp_;
    ms += gemm_ms(tokens, {2 * shared, shapes_.hidden}) + gemm_ms(tokens, {shapes_.hidden, shared});
  }
  return ms;
}

// The LM head stays bf16 under fp8 weights (model_weight_bytes: fp8 checkpoints leave it unquantized).
double EngineCostModel::lm_head_ms(double tokens) const { return gemm_ms(tokens, shapes_.lm_head, AicGemmDtype::bf16); }

double EngineCostModel::allreduce_ms(double tokens, bool cuda_graph) const {
  if (tp_ == 1) return 0;
  const double elements = tokens * shapes_.hidden;
  const double ms = db_->custom_allreduce_ms(elements, tp_, cuda_graph);
  return family_[KernelFamily::allreduce] *
         (derived_ ? derive_kernel_ms(KernelFamily::allreduce, allreduce_work(elements, tp_), ms, measured_, gpu_) : ms);
}

double EngineCostModel::context_attention_ms(double new_tokens, double cached_tokens) const {
  const double s = new_tokens + cached_tokens;
  const bool fp8_gemm = module_ && weights_ == WeightsDtype::fp8;
  double ms = mla_ ? db_->mla_context_ms(1, s, shapes_.heads, fp8_kv_, fp8_gemm)
                   : db_->context_attention_ms(1, s, shapes_.heads, shapes_.kv_heads, shapes_.head_dim, fp8_kv_);
  if (derived_)  // the whole prompt's kernel, derived, then the chunk's share of its query-key pairs
    ms = derive_kernel_ms(KernelFamily::context_attention,
                          mla_ ? mla_context_work(1, s, shapes_.heads)
                               : context_attention_work(1, s, shapes_.heads, shapes_.kv_heads, shapes_.head_dim),
                          ms, measured_, gpu_);
  if (cached_tokens > 0) ms *= (new_tokens * cached_tokens + new_tokens * (new_tokens + 1) / 2) / (s * (s + 1) / 2);
  return family_[KernelFamily::context_attention] * ms;
}

double EngineCostModel::generation_attention_ms(double sequences, double kv_tokens_per_sequence) const {
  const double kv = std::max(1.0, kv_tokens_per_sequence);
  const bool fp8_gemm = module_ && weights_ == WeightsDtype::fp8;
  double ms = mla_ ? db_->mla_generation_ms(sequences, kv, shapes_.heads, fp8_kv_, fp8_gemm)
                   : db_->generation_attention_ms(sequences, kv, shapes_.heads, shapes_.kv_heads, shapes_.head_dim,
                                                  fp8_kv_);
  if (derived_)
    ms = derive_kernel_ms(KernelFamily::generation_attention,
                          mla_ ? mla_generation_work(sequences, kv, shapes_.heads)
                               : generation_attention_work(sequences, kv, shapes_.heads, shapes_.kv_heads,
                                                           shapes_.head_dim),
                          ms, measured_, gpu_);
  return family_[KernelFamily::generation_attention] * ms;
}

double EngineCostModel::mlp_layers_ms(double tokens) const {
  const double moe_layers = static_cast<double>(moe_layer_count(model_));
  const double dense_layers = static_cast<double>(model_.n_layers) - moe_layers;
  // GQA: each layer's qkv and o GEMMs are counted here too (MLA's projections depend on the step's split into
  // context and generation tokens: attention_gemms_ms, added by the callers)
  double ms = dense_layers * layer_gemms_ms(tokens);
  if (moe_layers > 0) {
    const double attention_gemms = mla_ ? 0 : attention_gemms_ms(tokens, 0);
    ms += moe_layers * (attention_gemms + moe_layer_mlp_ms(tokens));
  }
  return ms;
}

double EngineCostModel::layer_elementwise_ms(double tokens) const {
  const EngineShapes& s = shapes_;
  if (mla_) {
    // MLA: 2 fused add + RMSNorm, SiLU-and-mul, and outside a module table the latents' 2 RMSNorms (q_lora and
    // kv_lora wide), RoPE on the queries' and the shared key's rope channels, the 576-wide latent's cache write
    const double ffn = static_cast<double>(model_.ffn_size) / tp_;
    const double rope = static_cast<double>(model_.qk_rope_head_dim);
    double values = 2 * 4 * s.hidden + 3 * ffn;
    double kernels = 3;
    if (!module_) {
      values += 2 * static_cast<double>(model_.q_lora_rank + model_.kv_lora_rank) + 2 * (s.heads + 1) * rope +
                2 * static_cast<double>(model_.kv_lora_rank + model_.qk_rope_head_dim);
      kernels += 4;
    }
    return elementwise_ms(kernels, tokens * 2 * values, gpu_.hbm_gb_per_s);
  }
  // SiLU-and-mul of a dense layer (a MoE layer's is inside its fused kernel: counted as dense here, an upper bound)
  const double ffn = static_cast<double>(model_.ffn_size) / tp_;
  const double bytes_per_token = 2 * (2 * 4 * s.hidden                         // 2 x fused add + RMSNorm
                                      + 2 * (s.heads + s.kv_heads) * s.head_dim  // RoPE on q and k
                                      + 2 * 2 * s.kv_heads * s.head_dim          // KV-cache write
                                      + 3 * ffn);                                // SiLU-and-mul
  return elementwise_ms(5, tokens * bytes_per_token, gpu_.hbm_gb_per_s);
}

double EngineCostModel::step_elementwise_ms(double tokens) const {
  return elementwise_ms(2, tokens * 2 * (2 * shapes_.hidden + 2 * shapes_.hidden), gpu_.hbm_gb_per_s);
}

AicGemmDtype EngineCostModel::gemm_dtype() const {
  if (weights_ != WeightsDtype::fp8) return AicGemmDtype::bf16;
  return model_.block_scaled_fp8 ? AicGemmDtype::fp8_block : AicGemmDtype::fp8;
}

std::string EngineCostModel::gemm_family() const { return AicDatabase::gemm_family(gemm_dtype()); }
std::string EngineCostModel::moe_dtype() const { return AicDatabase::moe_dtype(gemm_dtype()); }

std::vector<std::string> EngineCostModel::table_families() const {
  const std::string kv = fp8_kv_ ? "_fp8kv" : "";
  const bool fp8 = weights_ == WeightsDtype::fp8;
  std::vector<std::string> f = {gemm_family()};
  if (gemm_dtype() != AicGemmDtype::bf16) f.push_back(AicDatabase::gemm_family(AicGemmDtype::bf16));  // LM head
  if (mla_) {
    f.push_back(AicDatabase::mla_family(true, fp8_kv_, module_ && fp8));
    f.push_back(AicDatabase::mla_family(false, fp8_kv_, module_ && fp8));
    if (!module_) f.insert(f.end(), {AicDatabase::mla_bmm_family(true, fp8), AicDatabase::mla_bmm_family(false, fp8)});
  } else {
    f.insert(f.end(), {"context_attention" + kv, "generation_attention" + kv});
  }
  if (tp_ > 1) f.insert(f.end(), {"allreduce_graph", "allreduce_eager"});
  if (moe_layer_count(model_) > 0) f.push_back("moe:" + moe_dtype());
  return f;
}

double EngineCostModel::prefill_seconds(const std::vector<PrefillPiece>& pieces) const {
  return iteration_seconds(pieces, DecodeWork{}, 0);
}

template <class F>
double EngineCostModel::kept(TokenTerm term, double tokens, F compute) const {
  if (!(tokens >= 0 && tokens < static_cast<double>(kKeptTokenTerms)) || tokens != std::floor(tokens))
    return compute();
  std::vector<KeptTerm>& table = token_terms_[term];
  const size_t i = static_cast<size_t>(tokens);
  if (table.size() <= i) table.resize(i + 1);
  if (!table[i].known) table[i] = {true, compute()};
  return table[i].ms;
}

double EngineCostModel::decode_seconds(const DecodeWork& work) const {
  if (work.query_tokens <= 0) return 0;
  const double q = static_cast<double>(work.query_tokens);
  const double dense_ms = kept(kDecodeDense, q, [&] {
    double ms = static_cast<double>(model_.n_layers) * (2 * allreduce_ms(q, true) + layer_elementwise_ms(q)) +
                mlp_layers_ms(q) + allreduce_ms(q, true) + step_elementwise_ms(q) + lm_head_ms(q);
    if (mla_) ms += static_cast<double>(model_.n_layers) * attention_gemms_ms(0, q);
    return ms;
  });
  const double sequences = static_cast<double>(std::max<int64_t>(1, work.sequences));
  const double attention_ms =
      static_cast<double>(model_.n_layers) * generation_attention_ms(sequences, work.attention_kv_tokens / sequences);
  return (dense_ms + attention_ms + host_.per_step_ms) / 1e3;
}

double EngineCostModel::iteration_seconds(const std::vector<PrefillPiece>& context, const DecodeWork& generation,
                                          int64_t generation_tokens) const {
  if (generation.query_tokens > generation_tokens)
    throw_error("an iteration's generation batch runs %lld tokens, fewer than its %lld queries",
                static_cast<long long>(generation_tokens), static_cast<long long>(generation.query_tokens));
  const bool graph = context.empty();
  double tokens = 0, attention = 0, context_tokens = 0;
  for (const PrefillPiece& p : context) {
    tokens += static_cast<double>(p.new_tokens);
    context_tokens += static_cast<double>(p.new_tokens);
    attention += context_attention_ms(static_cast<double>(p.new_tokens), static_cast<double>(p.cached_tokens));
  }
  if (generation.query_tokens > 0) {
    tokens += static_cast<double>(generation_tokens);
    const double sequences = static_cast<double>(std::max<int64_t>(1, generation.sequences));
    attention += generation_attention_ms(sequences, generation.attention_kv_tokens / sequences);
  }
  if (context.empty() && generation.query_tokens <= 0) return 0;
  if (mla_)
    attention += attention_gemms_ms(context_tokens, generation.query_tokens > 0 ? static_cast<double>(generation_tokens) : 0);
  const double lm_rows = static_cast<double>(context.size()) + static_cast<double>(generation.query_tokens);
  // The token-count terms kept per count (the same values as computing them, so the same sum).
  const double allreduce =
      kept(graph ? kAllreduceGraph : kAllreduceEager, tokens, [&] { return allreduce_ms(tokens, graph); });
  const double elementwise = kept(kLayerElementwise, tokens, [&] { return layer_elementwise_ms(tokens); });
  const double mlp = kept(kMlpLayers, tokens, [&] { return mlp_layers_ms(tokens); });
  const double step_elementwise = kept(kStepElementwise, tokens, [&] { return step_elementwise_ms(tokens); });
  const double lm_head = kept(kLmHead, lm_rows, [&] { return lm_head_ms(lm_rows); });
  const double layer = attention + 2 * allreduce + elementwise;
  const double ms = static_cast<double>(model_.n_layers) * layer + mlp + allreduce + step_elementwise + lm_head +
                    host_.per_step_ms;
  return ms / 1e3;
}

double EngineCostModel::mixed_seconds(const std::vector<PrefillPiece>& pieces, const DecodeWork& work,
                                      int64_t run_tokens) const {
  int64_t context_tokens = 0;
  for (const PrefillPiece& p : pieces) context_tokens += p.new_tokens;
  // The padding goes with the generation batch (a prefill-only step is costed at its own tokens).
  return iteration_seconds(pieces, work, std::max(work.query_tokens, run_tokens - context_tokens));
}

std::string EngineCostModel::source() const {
  const ServingEngineInfo& e = kServingEngines[db_->engine()];
  std::string s = std::string("engine ") + e.name + " (" + e.aic_folder + " " + e.aic_version + ") kernels measured by "
                  "NVIDIA AIConfigurator on " + db_->gpu_folder();
  if (derived_) s += ", " + gpu_.name + " derived from " + measured_.name + " measurements kernel by kernel (" +
                     derivation_rule_text() + ")";
  const bool fp8 = weights_ == WeightsDtype::fp8;
  if (!mla_) {
    s += ": GEMMs (qkv, o, gate+up, down, LM head" + std::string(fp8 ? (model_.block_scaled_fp8 ? ", fp8 block-scaled" : ", fp8") : "") + ") " +
         db_->table_name(gemm_family()) + "; prefill attention " + db_->table_name("context_attention") +
         "; decode attention " + db_->table_name("generation_attention");
  } else if (module_) {
    s += ": MLA as whole attention modules (projections included" + std::string(fp8 ? ", fp8_block GEMMs" : "") +
         "), prefill " + db_->table_name(AicDatabase::mla_family(true, fp8_kv_, fp8)) + ", decode " +
         db_->table_name(AicDatabase::mla_family(false, fp8_kv_, fp8)) + "; GEMMs (MLP, router, LM head" +
         (fp8 ? (model_.block_scaled_fp8 ? ", fp8 block-scaled" : ", fp8") : "") + ") " + db_->table_name(gemm_family());
  } else {
    s += ": GEMMs (MLA down, query-up, latent-up in prefill, output; MLP, router, LM head" +
         std::string(fp8 ? (model_.block_scaled_fp8 ? ", fp8 block-scaled" : ", fp8") : "") + ") " + db_->table_name(gemm_family()) +
         "; MLA prefill attention " + db_->table_name(AicDatabase::mla_family(true, fp8_kv_, false)) +
         "; MLA decode attention " + db_->table_name(AicDatabase::mla_family(false, fp8_kv_, false)) +
         " between the absorbed up-projections " + db_->table_name(AicDatabase::mla_bmm_family(true, fp8));
  }
  if (fp8_kv_) s += " (fp8 KV cache rows)";
  if (gemm_dtype() == AicGemmDtype::fp8 && !model_.dynamic_fp8_activations) {
    char quant[160];
    std::snprintf(quant, sizeof quant, "%.1f us per call fitted on the tables + the amax pass's read",
                  db_->fp8_dynamic_quant_fixed_ms() * 1e3);
    s += "; fp8 GEMMs with static input scales: the rows less the dynamic input quantization they were timed with (" +
         std::string(quant) + ", profiled/fp8_input_quant.hpp)";
  }
  if (tp_ > 1)
    s += "; all-reduce (" + std::string(e.aic_folder) +
         (db_->engine() == ServingEngine::trtllm ? "" : " CUDA-graph in decode, eager in prefill") + ") " +
         db_->table_name("allreduce_graph");
  s += "; element-wise kernels (5 per layer, 2 per step) as AIConfigurator costs memory-bound ops (3 us + bytes at "
       "0.8 x HBM bandwidth, its systems/<gpu>.yaml); " + std::string(host_.source);
  return s;
}

}  // namespace lynx
