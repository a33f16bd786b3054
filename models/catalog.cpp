#include "models/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "common/error.hpp"
#include "common/json_reader.hpp"

namespace lynx {

namespace {
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

double fraction(JsonObject& o, const std::string& key) {
  double v = o.positive_number(key);
  if (v > 1) o.fail(key, "a fraction in (0, 1]");
  return v;
}

template <typename Spec>
const Spec& find_by_name(const std::vector<Spec>& catalog, const std::string& name, const char* what) {
  for (const auto& s : catalog)
    if (lower(s.name) == lower(name)) return s;
  std::string known;
  for (const auto& s : catalog) known += (known.empty() ? "" : ", ") + s.name;
  throw_error("unknown %s \"%s\" (known: %s)", what, name.c_str(), known.c_str());
}
}  // namespace

std::string lynx_data_dir() {
  const char* env = std::getenv("LYNX_DATA_DIR");
  if (env && *env) return env;
#ifdef LYNX_DEFAULT_DATA_DIR
  return LYNX_DEFAULT_DATA_DIR;
#else
  return ".";
#endif
}

std::string default_model_catalog_path() { return lynx_data_dir() + "/models/catalog/models.json"; }
std::string default_gpu_catalog_path() { return lynx_data_dir() + "/models/catalog/gpus.json"; }

std::vector<ModelSpec> load_model_catalog(const std::string& path) {
  nlohmann::json root = json_parse_file(path);
  JsonObject top(root, path, "$");
  top.string_or("about", "");
  const nlohmann::json& entries = top.array("models");
  top.finish();
  std::vector<ModelSpec> models;
  for (size_t i = 0; i < entries.size(); ++i) {
    JsonObject o(entries[i], path, json_index_path("$.models", i));
    ModelSpec m;
    m.name = o.string("name");
    m.n_layers = o.positive_integer("n_layers");
    m.hidden_size = o.positive_integer("hidden_size");
    m.n_heads = o.positive_integer("n_heads");
    m.n_kv_heads = o.positive_integer("n_kv_heads");
    m.head_dim = o.positive_integer("head_dim");
    m.ffn_size = o.positive_integer("ffn_size");
    m.vocab_size = o.positive_integer("vocab_size");
    m.params = o.positive_integer("params");
    m.tied_embeddings = o.boolean_or("tied_embeddings", false);
    m.source = o.string("source");
    o.finish();
    if (m.n_heads % m.n_kv_heads != 0) o.fail("n_kv_heads", "a divisor of n_heads");
    for (const auto& other : models)
      if (lower(other.name) == lower(m.name)) o.fail("name", "a name not used by an earlier entry");
    models.push_back(m);
  }
  return models;
}

std::vector<GpuSpec> load_gpu_catalog(const std::string& path) {
  nlohmann::json root = json_parse_file(path);
  JsonObject top(root, path, "$");
  top.string_or("about", "");
  const nlohmann::json& entries = top.array("gpus");
  top.finish();
  std::vector<GpuSpec> gpus;
  for (size_t i = 0; i < entries.size(); ++i) {
    JsonObject o(entries[i], path, json_index_path("$.gpus", i));
    GpuSpec g;
    g.name = o.string("name");
    g.bf16_dense_tflops = o.positive_number("bf16_dense_tflops");
    g.hbm_gb_per_s = o.positive_number("hbm_gb_per_s");
    g.hbm_gb = o.positive_number("hbm_gb");
    g.nvlink_gb_per_s = o.positive_number("nvlink_gb_per_s");
    g.compute_efficiency = fraction(o, "compute_efficiency");
    g.memory_efficiency = fraction(o, "memory_efficiency");
    g.source = o.string("source");
    o.finish();
    for (const auto& other : gpus)
      if (lower(other.name) == lower(g.name)) o.fail("name", "a name not used by an earlier entry");
    gpus.push_back(g);
  }
  return gpus;
}

const ModelSpec& find_model(const std::vector<ModelSpec>& catalog, const std::string& name) {
  return find_by_name(catalog, name, "model");
}
const GpuSpec& find_gpu(const std::vector<GpuSpec>& catalog, const std::string& name) {
  return find_by_name(catalog, name, "GPU");
}

}  // namespace lynx
