#include "models/arch/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "common/data_folder.hpp"
#include "common/did_you_mean.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "models/arch/hf_config.hpp"

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

void check_available(const ModelSpec& m) {
  if (!m.unavailable.empty()) throw_error("model \"%s\" (%s): %s", m.name.c_str(), m.file.c_str(), m.unavailable.c_str());
}
void check_available(const GpuSpec&) {}

template <typename Spec>
const Spec& find_by_name(const std::vector<Spec>& catalog, const std::string& name, const char* what) {
  for (const auto& s : catalog)
    if (lower(s.name) == lower(name)) {
      check_available(s);
      return s;
    }
  std::string known;
  std::vector<std::string> names;
  for (const auto& s : catalog) {
    known += (known.empty() ? "" : ", ") + s.name;
    names.push_back(s.name);
  }
  throw_error("unknown %s \"%s\"%s (known: %s)", what, name.c_str(), did_you_mean(name, names).c_str(), known.c_str());
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
    spec.file = path;
    for (const auto& other : catalog)
      if (lower(other.name) == lower(spec.name)) o.fail("name", "a name not used by an earlier entry");
    catalog.push_back(spec);
  }
  return catalog;
}

// The shipped entries, then the user's: one with a shipped name replaces that entry in place, a new name follows.
template <typename Spec>
std::vector<Spec> merge_catalogs(std::vector<Spec> shipped, const std::vector<Spec>& user) {
  for (const Spec& entry : user) {
    bool replaced = false;
    for (Spec& s : shipped)
      if (lower(s.name) == lower(entry.name)) {
        s = entry;
        s.overrides = true;
        replaced = true;
      }
    if (!replaced) shipped.push_back(entry);
  }
  return shipped;
}

// A thousands-separated count, as the error shows it.
std::string grouped(double n) {
  char text[64];
  std::snprintf(text, sizeof text, "%.0f", n);
  std::string digits = text, out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

// Every key of `required` that `o` lacks, in one error: "FILE: $.models[3]: missing fields n_layers, ffn_size
// (an entry with shapes needs: ...)".
void require_fields(const JsonObject& o, const std::vector<const char*>& required, const char* needs) {
  std::string missing;
  size_t count = 0;
  for (const char* key : required)
    if (!o.has(key)) missing += std::string(count++ == 0 ? "" : ", ") + key;
  if (count == 0) return;
  throw_error("%s: %s: missing field%s %s (%s)", o.origin().c_str(), o.path().c_str(), count == 1 ? "" : "s",
              missing.c_str(), needs);
}

void check_params(double params, const ModelSpec& m, const JsonObject& o, const char* shapes) {
  const double computed = model_params_from_shapes(m);
  const double off = std::fabs(params - computed) / computed;
  if (off <= kParamsTolerance) return;
  throw_error("%s: %s: params %s disagrees with %s computed from the shapes (%s) by %.1f%%; expected within "
              "%.0f%%: fix params or the shapes",
              o.origin().c_str(), o.path_of("params").c_str(), grouped(params).c_str(), grouped(computed).c_str(),
              shapes, 100.0 * off, 100.0 * kParamsTolerance);
}

// The config.json an entry names: "@data/..." inside the data folder, else relative to the catalog's folder. A
// missing file is not an error here (a user without the data folder keeps every other model): "" and `why` set.
std::string hf_config_path(const std::string& written, const std::string& catalog_path, std::string& why) {
  namespace fs = std::filesystem;
  std::string path;
  if (written.rfind(kDataPrefix, 0) == 0) {
    const DataFolder folder = data_folder();
    path = folder.path + "/" + written.substr(std::string(kDataPrefix).size());
    if (!fs::exists(path))
      why = "its hf_config " + written + " is not in the data folder (" + path + ", chosen by " + folder.chosen_by +
            "); scripts/get-data.sh fetches it, or set --data-dir / LYNX_DATA_DIR";
    return fs::exists(path) ? path : "";
  }
  path = fs::path(written).is_absolute() ? written : (fs::path(catalog_path).parent_path() / written).string();
  if (!fs::exists(path)) why = "its hf_config " + path + " does not exist";
  return fs::exists(path) ? path : "";
}

// An entry naming a config.json: the shapes come from the file; `params`, when given (the published figure), is
// checked against the count as for shapes-only entries.
ModelSpec hf_entry(JsonObject& o, const std::string& only_model) {
  static const char* kShapeKeys[] = {"n_layers", "hidden_size", "n_heads", "n_kv_heads", "head_dim", "ffn_size",
                                     "vocab_size", "context_tokens", "tied_embeddings", "qkv_bias"};
  for (const char* key : kShapeKeys)
    if (o.has(key)) o.fail(key, "no shape field beside hf_config (the config.json gives the shapes)");
  require_fields(o, {"name"}, "an entry with hf_config needs name; source and params are optional");
  const std::string name = o.string("name");
  const std::string written = o.string("hf_config");
  const std::string source = o.string_or("source", "");
  const double published = o.has("params") ? static_cast<double>(o.positive_integer("params")) : 0;
  ModelSpec m;
  std::string why, path;
  if (!only_model.empty() && lower(name) != lower(only_model))
    why = "its config.json (" + written + ") is read only when it is the model simulated";
  else
    path = hf_config_path(written, o.origin(), why);
  if (path.empty()) {
    m.unavailable = why;
    m.hf_config = written;
  } else {
    m = read_hf_config(path);
    if (published > 0) check_params(published, m, o, ("the config.json " + path).c_str());
  }
  m.params_given = published > 0;
  m.name = name;
  m.source = source;
  return m;
}
}  // namespace

std::vector<ModelSpec> load_model_catalog(const std::string& path, const std::string& only_model) {
  return load_catalog<ModelSpec>(path, "models", [&only_model](JsonObject& o) {
    if (o.has("hf_config")) return hf_entry(o, only_model);
    require_fields(o, {"name", "n_layers", "hidden_size", "n_heads", "n_kv_heads", "head_dim", "ffn_size",
                       "vocab_size", "context_tokens"},
                   "an entry with shapes needs: name, n_layers, hidden_size, n_heads, n_kv_heads, head_dim, ffn_size, "
                   "vocab_size, context_tokens; optional: params (counted from the shapes when absent), source, "
                   "tied_embeddings, qkv_bias, qk_norm, fp8_block_scaled, fp8_dynamic_activations; or name and "
                   "hf_config, a Hugging Face config.json");
    ModelSpec m;
    m.name = o.string("name");
    m.n_layers = o.positive_integer("n_layers");
    m.hidden_size = o.positive_integer("hidden_size");
    m.n_heads = o.positive_integer("n_heads");
    m.n_kv_heads = o.positive_integer("n_kv_heads");
    m.head_dim = o.positive_integer("head_dim");
    m.ffn_size = o.positive_integer("ffn_size");
    m.vocab_size = o.positive_integer("vocab_size");
    m.params_given = o.has("params");
    if (m.params_given) m.params = o.positive_integer("params");
    m.context_tokens = o.positive_integer("context_tokens");
    m.tied_embeddings = o.boolean_or("tied_embeddings", false);
    m.qkv_bias = o.boolean_or("qkv_bias", false);
    m.qk_norm = o.boolean_or("qk_norm", false);
    // An fp8 checkpoint's quantization, as its config.json's quantization_config would say it (weight_block_size,
    // activation_scheme "dynamic"): how its fp8 GEMMs run (models/cost/engine/engine_cost.hpp).
    m.block_scaled_fp8 = o.boolean_or("fp8_block_scaled", false);
    m.dynamic_fp8_activations = o.boolean_or("fp8_dynamic_activations", false);
    m.source = o.string_or("source", "");
    if (m.n_heads % m.n_kv_heads != 0) o.fail("n_kv_heads", "a divisor of n_heads");
    if (!m.params_given) {
      m.params = std::llround(model_params_from_shapes(m));
      return m;
    }
    check_params(static_cast<double>(m.params), m, o,
                 "n_layers, hidden_size, n_heads, n_kv_heads, head_dim, ffn_size, vocab_size, tied_embeddings, "
                 "qkv_bias, qk_norm");
    return m;
  });
}

std::vector<GpuSpec> load_gpu_catalog(const std::string& path) {
  return load_catalog<GpuSpec>(path, "gpus", [](JsonObject& o) {
    require_fields(o, {"name", "bf16_dense_tflops", "hbm_gb_per_s", "hbm_gb", "nvlink_gb_per_s",
                       "compute_efficiency", "memory_efficiency", "efficiency_source", "source"},
                   "a GPU entry needs: name, bf16_dense_tflops, hbm_gb_per_s, hbm_gb, nvlink_gb_per_s, "
                   "compute_efficiency, memory_efficiency, efficiency_source, source; optional: fp8_dense_tflops, "
                   "fp32_tflops");
    GpuSpec g;
    g.name = o.string("name");
    g.bf16_dense_tflops = o.positive_number("bf16_dense_tflops");
    g.hbm_gb_per_s = o.positive_number("hbm_gb_per_s");
    g.hbm_gb = o.positive_number("hbm_gb");
    g.nvlink_gb_per_s = o.positive_number("nvlink_gb_per_s");
    g.fp8_dense_tflops = o.non_negative_number_or("fp8_dense_tflops", 0);
    g.fp32_tflops = o.non_negative_number_or("fp32_tflops", 0);
    g.compute_efficiency = fraction(o, "compute_efficiency");
    g.memory_efficiency = fraction(o, "memory_efficiency");
    g.efficiency_source = o.string("efficiency_source");
    g.source = o.string("source");
    return g;
  });
}

std::vector<ModelSpec> load_model_catalog_with(const std::string& user_path, const std::string& only_model) {
  std::vector<ModelSpec> shipped = load_model_catalog(default_model_catalog_path(), only_model);
  return user_path.empty() ? shipped
                           : merge_catalogs(std::move(shipped), load_model_catalog(user_path, only_model));
}

std::vector<GpuSpec> load_gpu_catalog_with(const std::string& user_path) {
  std::vector<GpuSpec> shipped = load_gpu_catalog(default_gpu_catalog_path());
  return user_path.empty() ? shipped : merge_catalogs(std::move(shipped), load_gpu_catalog(user_path));
}

const ModelSpec& find_model(const std::vector<ModelSpec>& catalog, const std::string& name) {
  return find_by_name(catalog, name, "model");
}
const GpuSpec& find_gpu(const std::vector<GpuSpec>& catalog, const std::string& name) {
  return find_by_name(catalog, name, "GPU");
}

}  // namespace lynx
