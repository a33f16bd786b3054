// lynx_models: the model and GPU catalogs (JSON files under models/catalog/), validated on load.
// Every field's unit is in its name; a missing, unknown or non-positive field is a LynxError naming the file and
// JSON path. The simulator and the CLI look entries up by name (case-insensitive).
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
  std::string source;
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
};

std::vector<ModelSpec> load_model_catalog(const std::string& path);
std::vector<GpuSpec> load_gpu_catalog(const std::string& path);

// Default catalog files (under the shipped data directory).
std::string default_model_catalog_path();
std::string default_gpu_catalog_path();

// Lookup by name, case-insensitive; the error lists the known names.
const ModelSpec& find_model(const std::vector<ModelSpec>& catalog, const std::string& name);
const GpuSpec& find_gpu(const std::vector<GpuSpec>& catalog, const std::string& name);

}  // namespace lynx
