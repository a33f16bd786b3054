#include "models/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "common/data_folder.hpp"
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

std::string default_model_catalog_path() { return project_dir() + "/models/catalog/models.json"; }
std::string default_gpu_catalog_path() { return project_dir() + "/models/catalog/gpus.json"; }

namespace {
// Reads {"about": "...", "<key>": [entries]}: each entry parsed by `parse` (which reads every field of it), names
// unique (case-insensitive).
template <typename Spec, typename Parse>
std::vector<Spec> load_catalog(const std::string& path, const std::string& key, Parse parse) {
  nlohmann::json root = json_parse_file(path);
  JsonObject top(root, path, "$");
  top.string_or("about", "");
  const nlohmann::json& entries = top.array(key);
  top.finish();
  std::vector<Spec> catalog;
  for (size_t i = 0; i < entries.size(); ++i) {
    JsonObject o(entries[i], path, json_index_path("$." + key, i));
    Spec spec = parse(o);
    o.finish();
    for (const auto& other : catalog)
      if (lower(other.name) == lower(spec.name)) o.fail("name", "a name not used by an earlier entry");
    catalog.push_back(spec);
  }
  return catalog;
}
}  // namespace

std::vector<ModelSpec> load_model_catalog(const std::string& path) {
  return load_catalog<ModelSpec>(path, "models", [](JsonObject& o) {
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
    m.context_tokens = o.positive_integer("context_tokens");
    m.tied_embeddings = o.boolean_or("tied_embeddings", false);
    m.source = o.string("source");
    if (m.n_heads % m.n_kv_heads != 0) o.fail("n_kv_heads", "a divisor of n_heads");
    return m;
  });
}

std::vector<GpuSpec> load_gpu_catalog(const std::string& path) {
  return load_catalog<GpuSpec>(path, "gpus", [](JsonObject& o) {
    GpuSpec g;
    g.name = o.string("name");
    g.bf16_dense_tflops = o.positive_number("bf16_dense_tflops");
    g.hbm_gb_per_s = o.positive_number("hbm_gb_per_s");
    g.hbm_gb = o.positive_number("hbm_gb");
    g.nvlink_gb_per_s = o.positive_number("nvlink_gb_per_s");
    g.fp8_dense_tflops = o.non_negative_number_or("fp8_dense_tflops", 0);
    g.compute_efficiency = fraction(o, "compute_efficiency");
    g.memory_efficiency = fraction(o, "memory_efficiency");
    g.efficiency_source = o.string("efficiency_source");
    g.source = o.string("source");
    return g;
  });
}

const ModelSpec& find_model(const std::vector<ModelSpec>& catalog, const std::string& name) {
  return find_by_name(catalog, name, "model");
}
const GpuSpec& find_gpu(const std::vector<GpuSpec>& catalog, const std::string& name) {
  return find_by_name(catalog, name, "GPU");
}

}  // namespace lynx
