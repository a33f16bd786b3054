// lynx_models: the model and GPU catalogs (JSON files under models/catalog/), validated on load.
// Every field's unit is in its name; a missing, unknown or non-positive field is a LynxError naming the file and
// JSON path. The simulator and the CLI look entries up by name (case-insensitive).
// A user catalog (a configuration's "models_catalog"/"gpus_catalog", the CLI's --models-catalog/--gpus-catalog)
// adds to the shipped one: an entry with a new name is added, an entry with a shipped name replaces that entry
// whole (no field is inherited from it). A model entry either gives a dense Llama-style decoder's shapes itself
// (required: name, n_layers, hidden_size, n_heads, n_kv_heads, head_dim, ffn_size, vocab_size, context_tokens;
// optional: tied_embeddings, qkv_bias, qk_norm, source, and `params`: absent, it is counted from the shapes; given
// (a published figure), it must agree with the count, model_params_from_shapes, within kParamsTolerance: the
// compute model reads weight bytes and FLOPs from it, so a typo there silently rescales every step time; every
// missing required field is named in one error) or names a Hugging Face config.json (`hf_config`, read by models/arch/hf_config.hpp: MoE, MLA and
// sliding-window layers included), whose parameters are counted from its shapes. An hf_config entry whose file is
// missing (no data folder) stays in the catalog, marked unavailable with the reason; using it is that error.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lynx {

// How a layer's attention keeps its KV: grouped-query (K and V per KV head; multi-head and multi-query attention
// are its two ends) or DeepSeek's multi-head latent attention (one compressed latent + a shared RoPE key per token).
enum class AttentionKind { gqa, mla };
const char* attention_kind_name(AttentionKind kind);  // "gqa", "mla"

struct ModelSpec {
  std::string name;
  int64_t n_layers = 0;
  int64_t hidden_size = 0;
  int64_t n_heads = 0;
  int64_t n_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t ffn_size = 0;
  int64_t vocab_size = 0;
  int64_t params = 0;
  int64_t context_tokens = 0;  // longest sequence (prompt + output) the model serves: max_position_embeddings
  bool tied_embeddings = false;
  bool qkv_bias = false;  // q, k and v projections carry a bias (Qwen2): counted by model_params_from_shapes
  // What the fields below describe comes from a Hugging Face config.json (hf_config entries); a shapes-only catalog
  // entry is a dense GQA decoder and leaves them at their defaults.
  std::string architecture;    // config.json "architectures"[0], "" for a shapes-only entry
  std::string hf_config;       // the config.json read (resolved path), "" for a shapes-only entry
  std::string unavailable;     // why an hf_config entry cannot be used (its file is missing); "" = usable
  std::string rope_scaling;    // rope_scaling's kind as the config names it ("llama3", "yarn"), "" = none
  bool o_bias = false;         // the output projection carries a bias (gpt-oss)
  bool qk_norm = false;        // RMSNorm over each head's q and k (Qwen3): 2 x head_dim weights per layer
  bool attention_sinks = false;  // one learned sink logit per query head and layer (gpt-oss)
  // Attention: grouped-query (n_kv_heads x head_dim for K and for V) or MLA.
  AttentionKind attention = AttentionKind::gqa;
  int64_t q_lora_rank = 0;       // MLA: the query's low-rank width (0: full-rank query projection)
  int64_t kv_lora_rank = 0;      // MLA: the KV latent's width (512 in DeepSeek-V3)
  int64_t qk_nope_head_dim = 0;  // MLA: per-head query/key channels without RoPE (128)
  int64_t qk_rope_head_dim = 0;  // MLA: the shared RoPE key's channels, cached beside the latent (64)
  int64_t v_head_dim = 0;        // MLA: per-head value channels (128)
  // The checkpoint's fp8 weights are block-scaled (config.json quantization_config.weight_block_size, DeepSeek-V3's
  // 128 x 128): with weights_dtype fp8 the engines' fp8_block GEMM and MoE kernels, not per-tensor fp8.
  bool block_scaled_fp8 = false;
  // The checkpoint's per-tensor fp8 layers scale their inputs at run time (config.json
  // quantization_config.activation_scheme "dynamic"); false: static input scales stored in the checkpoint, as NVIDIA
  // ModelOpt's FP8 checkpoints carry (profiled/fp8_input_quant.hpp says what each costs).
  bool dynamic_fp8_activations = false;
  // Mixture of experts (n_experts 0: every layer is a dense SwiGLU MLP of ffn_size).
  int64_t n_experts = 0;           // routed experts per MoE layer
  int64_t experts_per_token = 0;   // top-k
  int64_t expert_ffn_size = 0;     // one routed expert's SwiGLU width
  int64_t shared_ffn_size = 0;     // the always-active shared experts' SwiGLU width, all together (DeepSeek)
  int64_t dense_layers = 0;        // the first layers with a dense MLP of ffn_size (DeepSeek first_k_dense_replace)
  bool expert_bias = false;        // experts' projections carry biases (gpt-oss)
  bool router_bias = false;        // the router carries a per-expert bias (gpt-oss; DeepSeek's correction bias)
  // Sliding-window attention: layer l keeps and attends to at most sliding_window tokens when sliding_layers[l].
  int64_t sliding_window = 0;        // tokens; 0 = no sliding layer
  std::vector<bool> sliding_layers;  // one per layer when sliding_window > 0, else empty
  std::string source;      // where the shapes come from ("" when the entry names none)
  bool params_given = false;  // `params` came from the entry (checked against the shapes), not from the count
  std::string file;        // the catalog file the entry was read from
  bool overrides = false;  // a user catalog's entry that replaced the shipped entry of the same name
};

struct GpuSpec {
  std::string name;
  double bf16_dense_tflops = 0;
  double hbm_gb_per_s = 0;
  double hbm_gb = 0;
  double nvlink_gb_per_s = 0;
  double fp8_dense_tflops = 0;    // 0: no fp8 tensor cores
  double fp32_tflops = 0;         // non-tensor FP32 (CUDA cores): the SMs' own throughput; 0: not given
  double compute_efficiency = 0;  // roofline: fraction of peak FLOP/s reached (MFU), (0, 1]
  double memory_efficiency = 0;   // roofline: fraction of HBM bandwidth reached (MBU), (0, 1]
  std::string efficiency_source;  // the measurement each efficiency comes from
  std::string source;      // where the shapes come from ("" when the entry names none)
  bool params_given = false;  // `params` came from the entry (checked against the shapes), not from the count
  std::string file;        // the catalog file the entry was read from
  bool overrides = false;  // a user catalog's entry that replaced the shipped entry of the same name
};

// Largest relative difference allowed between a model's `params` and model_params_from_shapes: 1%. The shapes
// describe a dense Llama-style decoder exactly; what they leave out (output-projection or MLP biases, extra or
// per-head norms) is under 0.1% of any model of that family, and a published figure rounded to three significant
// digits is within 0.5%. 1% still catches every typo that matters: a parameter count 1% off moves a memory-bound
// decode step by 1%, below the cost model's own validation error, while a dropped or extra digit is 90% off.
constexpr double kParamsTolerance = 0.01;

// Parameters from the shapes (models/arch/param_count.cpp), per layer: attention (GQA: q and o hidden x heads*head_dim,
// k and v hidden x kv_heads*head_dim, plus the biases, q/k norms and sinks the spec names; MLA: the query's
// down/up projections and norm, the KV down-projection to latent + RoPE key, its norm, the latent's up-projection to
// keys and values, the output projection) + MLP (dense: gate, up, down = 3 x hidden x ffn; MoE: every routed expert,
// the shared experts and the router) + two RMSNorm vectors; then the embedding table, the final norm and the LM
// head (none when tied). A double: exact below 2^53 (9e15, far beyond any model), and no overflow on absurd shapes.
double model_params_from_shapes(const ModelSpec& model);
// The parameters one token computes with: as model_params_from_shapes with experts_per_token routed experts per MoE
// layer in place of all of them (the router, shared experts and embedding table counted whole). Equal to the total
// for a dense model. Published "active" figures differ in whether they count the embedding table: Mixtral's 12.9B
// and DeepSeek-V3's 37B do, gpt-oss-120b's 5.1B does not (active_params - vocab x hidden).
double model_active_params(const ModelSpec& model);
// Parameters of one routed expert (gate, up, down, and their biases when expert_bias); 0 for a dense model.
double expert_params(const ModelSpec& model);
// Layers whose MLP is a mixture of experts (n_layers - dense_layers; 0 for a dense model).
int64_t moe_layer_count(const ModelSpec& model);
bool is_moe(const ModelSpec& model);

// What the transfer engine and the KV arithmetic ask of a layer's KV (models/arch/attention.cpp):
// KV tensors per layer and token: 2 (K and V) for GQA, 1 for MLA (the latent with its RoPE key, read as both).
int64_t kv_tensors_per_layer(const ModelSpec& model);
// Heads a layer's KV tensor is sharded by under tensor parallelism: n_kv_heads for GQA; 1 for MLA, whose one latent
// per token and layer is held whole on every TP rank (each rank's query heads all read the whole latent).
int64_t kv_shard_heads(const ModelSpec& model);
// Channels per head of one KV tensor: head_dim for GQA; kv_lora_rank + qk_rope_head_dim for MLA (576 in DeepSeek-V3).
int64_t kv_head_channels(const ModelSpec& model);
// Tokens layer `layer` keeps (and attends to, and sends) for a sequence of `sequence_tokens`: its sliding window
// when it has one, else every token.
int64_t layer_kv_tokens(const ModelSpec& model, int64_t layer, int64_t sequence_tokens);

// One catalog file; every entry checked (models: params against the shapes). With `only_model` (a name), an entry
// that names a Hugging Face config.json and is not that model keeps its config unread (its fields are checked, its
// shapes stay unset and `unavailable` says why): a simulation reads its own model's config.json, not every one
// (six config.json files were a twentieth of a one-request run's start-up).
std::vector<ModelSpec> load_model_catalog(const std::string& path, const std::string& only_model = "");
std::vector<GpuSpec> load_gpu_catalog(const std::string& path);

// The shipped catalog with a user catalog's entries added or overriding by name ("" = the shipped one alone).
// Overriding entries keep the shipped entry's position; new ones follow in the user file's order.
std::vector<ModelSpec> load_model_catalog_with(const std::string& user_path, const std::string& only_model = "");
std::vector<GpuSpec> load_gpu_catalog_with(const std::string& user_path);

// Default catalog files (under the shipped data directory).
std::string default_model_catalog_path();
std::string default_gpu_catalog_path();

// Lookup by name, case-insensitive; the error lists the known names. An unavailable entry (its hf_config file
// missing) is an error saying which file and how to get it.
const ModelSpec& find_model(const std::vector<ModelSpec>& catalog, const std::string& name);
const GpuSpec& find_gpu(const std::vector<GpuSpec>& catalog, const std::string& name);

}  // namespace lynx
