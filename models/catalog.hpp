// lynx_models: the model and GPU catalogs (JSON files under models/catalog/), validated on load.
// Every field's unit is in its name; a missing, unknown or non-positive field is a LynxError naming the file and
// JSON path. The simulator and the CLI look entries up by name (case-insensitive).
// A user catalog (a configuration's "models_catalog"/"gpus_catalog", the CLI's --models-catalog/--gpus-catalog)
// adds to the shipped one: an entry with a new name is added, an entry with a shipped name replaces that entry
// whole (no field is inherited from it). A model's `params` must agree with the count recomputed from its shapes
// (model_params_from_shapes) within kParamsTolerance: the compute model reads weight bytes and FLOPs from
// `params`, so a typo there silently rescales every step time.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace lynx {

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
  std::string source;
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
  double compute_efficiency = 0;  // roofline: fraction of peak FLOP/s reached (MFU), (0, 1]
  double memory_efficiency = 0;   // roofline: fraction of HBM bandwidth reached (MBU), (0, 1]
  std::string efficiency_source;  // the measurement each efficiency comes from
  std::string source;
  std::string file;        // the catalog file the entry was read from
  bool overrides = false;  // a user catalog's entry that replaced the shipped entry of the same name
};

// Largest relative difference allowed between a model's `params` and model_params_from_shapes: 1%. The shapes
// describe a dense Llama-style decoder exactly; what they leave out (output-projection or MLP biases, extra or
// per-head norms) is under 0.1% of any model of that family, and a published figure rounded to three significant
// digits is within 0.5%. 1% still catches every typo that matters: a parameter count 1% off moves a memory-bound
// decode step by 1%, below the cost model's own validation error, while a dropped or extra digit is 90% off.
constexpr double kParamsTolerance = 0.01;

// Parameters of a dense decoder from its shapes: per layer, attention (q and o: hidden x heads*head_dim; k and v:
// hidden x kv_heads*head_dim, GQA; plus q/k/v biases when qkv_bias) + SwiGLU MLP (gate, up, down: 3 x hidden x
// ffn) + two RMSNorm weight vectors; then the embedding table, the final norm and the LM head (none when tied).
// A double: exact below 2^53 (9e15, far beyond any model), and no overflow on absurd shapes.
double model_params_from_shapes(const ModelSpec& model);

// One catalog file; every entry checked (models: params against the shapes).
std::vector<ModelSpec> load_model_catalog(const std::string& path);
std::vector<GpuSpec> load_gpu_catalog(const std::string& path);

// The shipped catalog with a user catalog's entries added or overriding by name ("" = the shipped one alone).
// Overriding entries keep the shipped entry's position; new ones follow in the user file's order.
std::vector<ModelSpec> load_model_catalog_with(const std::string& user_path);
std::vector<GpuSpec> load_gpu_catalog_with(const std::string& user_path);

// Default catalog files (under the shipped data directory).
std::string default_model_catalog_path();
std::string default_gpu_catalog_path();

// Lookup by name, case-insensitive; the error lists the known names.
const ModelSpec& find_model(const std::vector<ModelSpec>& catalog, const std::string& name);
const GpuSpec& find_gpu(const std::vector<GpuSpec>& catalog, const std::string& name);

}  // namespace lynx
