// lynxsim list models|gpus|formats: the catalogs a configuration names entries from, as an aligned table or JSON.
// With --models-catalog/--gpus-catalog (the same user catalogs a configuration's "models_catalog"/"gpus_catalog"
// name) it shows the merged view the simulator would use, each entry with its origin: shipped, added by the user
// file, or overriding the shipped entry of that name. Formats are a grammar, not a file: the standard set (or the
// --format names) with their bits and the exact bytes per token of a reference model. `list models --hf-config
// FILE` reads one Hugging Face config.json as a catalog entry would and shows what it took from it.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "common/error.hpp"
#include "common/enum_names.hpp"
#include "models/cost/compute_model.hpp"
#include "models/cost/engine/aic_database.hpp"
#include "kernels/kv_format.hpp"
#include "common/data_folder.hpp"
#include "models/arch/attention.hpp"
#include "models/arch/catalog.hpp"
#include "models/arch/hf_config.hpp"
#include "models/arch/kv_size.hpp"

namespace lynx {

namespace {
enum class ListWhat { models, gpus, formats };
constexpr auto kListWhatNames =
    enum_names<ListWhat>({{ListWhat::models, "models"}, {ListWhat::gpus, "gpus"}, {ListWhat::formats, "formats"}});

struct ListOptions {
  ListWhat what = ListWhat::models;
  bool json = false;
  std::string models_catalog, gpus_catalog;
  std::string hf_config;  // models: show this config.json as read
  std::string model = "llama-3.1-8b";
  int64_t tokens = 4096;
  std::vector<std::string> formats;
};

// A cell as printed: every control byte escaped (a newline as \n, a tab as \t, ESC and the rest as \xNN), so a
// name from a user's catalog stays on its row and cannot rewrite the terminal.
std::string cell_text(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else out += c;
  }
  return printable(out);
}

// Rows of cells printed with each column as wide as its widest cell: text left-aligned, the rest right-aligned.
struct Table {
  std::vector<std::string> header;
  std::vector<bool> left;  // per column
  std::vector<std::vector<std::string>> rows;
  void print() const {
    std::vector<std::vector<std::string>> shown;
    for (const auto& row : rows) {
      shown.emplace_back();
      for (const std::string& cell : row) shown.back().push_back(cell_text(cell));
    }
    std::vector<size_t> width(header.size());
    for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
    for (const auto& row : shown)
      for (size_t c = 0; c < row.size(); ++c) width[c] = std::max(width[c], row[c].size());
    auto line = [&](const std::vector<std::string>& cells) {
      std::string out;
      for (size_t c = 0; c < cells.size(); ++c) {
        const std::string pad(width[c] - cells[c].size(), ' ');
        const bool last = c + 1 == cells.size();
        out += left[c] ? cells[c] + (last ? "" : pad) : pad + cells[c];
        if (!last) out += "  ";
      }
      std::printf("%s\n", out.c_str());
    };
    line(header);
    for (const auto& row : shown) line(row);
  }
};

std::string number(double v, const char* format = "%g") {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

// An exact count with thousands separators: 8,030,261,248.
std::string grouped(int64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

template <typename Spec>
std::string origin_text(const Spec& s) {
  if (s.file == default_model_catalog_path() || s.file == default_gpu_catalog_path()) return "shipped";
  return (s.overrides ? "overrides shipped: " : "added: ") + s.file;
}

template <typename Spec>
void add_origin(nlohmann::json& j, const Spec& s) {
  const bool shipped = origin_text(s) == "shipped";
  j["origin"] = shipped ? "shipped" : "user";
  j["overrides_shipped"] = s.overrides;
  j["file"] = s.file;
}

// bf16 KV bytes per token of a long sequence (65,536 tokens: a sliding layer counts its window, amortised).
double bf16_kv_bytes_per_token(const ModelSpec& m) {
  constexpr int64_t kTokens = 1 << 16;
  static const KvFormat kBf16 = kv_format_parse("bf16");
  return static_cast<double>(model_kv_bytes(m, kBf16, kTokens).total()) / static_cast<double>(kTokens);
}

std::string experts_text(const ModelSpec& m) {
  if (!is_moe(m)) return "-";
  std::string t = std::to_string(m.experts_per_token) + "/" + std::to_string(m.n_experts);
  if (m.shared_ffn_size > 0) t += "+shared";
  return t;
}

std::string window_text(const ModelSpec& m) {
  if (m.sliding_window <= 0) return "-";
  return std::to_string(m.sliding_window) + "x" + std::to_string(sliding_layer_count(m));
}

nlohmann::json model_json(const ModelSpec& m) {
  nlohmann::json j = {{"name", m.name}, {"params", m.params}, {"params_from_shapes", model_params_from_shapes(m)},
                      {"active_params", model_active_params(m)}, {"attention", attention_kind_name(m.attention)},
                      {"n_layers", m.n_layers}, {"hidden_size", m.hidden_size}, {"n_heads", m.n_heads},
                      {"n_kv_heads", m.n_kv_heads}, {"head_dim", m.head_dim}, {"ffn_size", m.ffn_size},
                      {"vocab_size", m.vocab_size}, {"context_tokens", m.context_tokens},
                      {"tied_embeddings", m.tied_embeddings}, {"qkv_bias", m.qkv_bias},
                      {"kv_bytes_per_token_bf16", bf16_kv_bytes_per_token(m)},
                      {"kv_tensors_per_layer", kv_tensors_per_layer(m)}, {"kv_shard_heads", kv_shard_heads(m)},
                      {"kv_head_channels", kv_head_channels(m)}, {"source", m.source}};
  if (!m.architecture.empty()) {
    j["architecture"] = m.architecture;
    j["hf_config"] = m.hf_config;
    j["o_bias"] = m.o_bias;
    j["qk_norm"] = m.qk_norm;
    j["attention_sinks"] = m.attention_sinks;
    j["rope_scaling"] = m.rope_scaling;
  }
  if (m.attention == AttentionKind::mla)
    j["mla"] = {{"q_lora_rank", m.q_lora_rank}, {"kv_lora_rank", m.kv_lora_rank},
                {"qk_nope_head_dim", m.qk_nope_head_dim}, {"qk_rope_head_dim", m.qk_rope_head_dim},
                {"v_head_dim", m.v_head_dim}};
  if (is_moe(m))
    j["moe"] = {{"n_experts", m.n_experts}, {"experts_per_token", m.experts_per_token},
                {"expert_ffn_size", m.expert_ffn_size}, {"shared_ffn_size", m.shared_ffn_size},
                {"dense_layers", m.dense_layers}, {"moe_layers", moe_layer_count(m)},
                {"expert_params", expert_params(m)}, {"expert_bias", m.expert_bias}, {"router_bias", m.router_bias}};
  if (m.sliding_window > 0)
    j["sliding_window"] = {{"tokens", m.sliding_window}, {"layers", sliding_layer_count(m)}};
  return j;
}

// One config.json, as a catalog entry naming it would read it: every figure the simulator takes from it.
void show_hf_config(const ListOptions& o) {
  ModelSpec m = read_hf_config(resolve_input_path(o.hf_config, ""));
  m.name = o.hf_config;
  const nlohmann::json j = model_json(m);
  if (o.json) {
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  std::printf("# %s: %s, read by models/arch/hf_config.cpp\n", cell_text(m.hf_config).c_str(),
              cell_text(m.architecture).c_str());
  Table t{{"field", "value"}, {true, false}, {}};
  for (const auto& [key, value] : j.items()) {
    if (key == "name" || key == "source") continue;
    if (value.is_object())
      for (const auto& [sub, v] : value.items()) t.rows.push_back({key + "." + sub, v.dump()});
    else t.rows.push_back({key, value.is_string() ? value.get<std::string>() : value.dump()});
  }
  t.print();
}

void list_models(const ListOptions& o) {
  if (!o.hf_config.empty()) return show_hf_config(o);
  const std::vector<ModelSpec> models = load_model_catalog_with(o.models_catalog);
  nlohmann::json out = nlohmann::json::array();
  Table t{{"name", "params", "active", "attention", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn",
           "experts", "window", "kv_B/token", "vocab", "context_tokens", "tied", "qkv_bias", "origin"},
          {true, false, false, true, false, false, false, false, false, false, true, true, false, false, false, true,
           true, true},
          {}};
  for (const ModelSpec& m : models) {
    if (!m.unavailable.empty()) {
      std::vector<std::string> row(t.header.size(), "?");
      row.front() = m.name;
      row.back() = "unavailable: " + m.unavailable;
      t.rows.push_back(row);
      nlohmann::json j = {{"name", m.name}, {"hf_config", m.hf_config}, {"unavailable", m.unavailable},
                          {"source", m.source}};
      add_origin(j, m);
      out.push_back(j);
      continue;
    }
    t.rows.push_back({m.name, grouped(m.params), grouped(std::llround(model_active_params(m))),
                      attention_kind_name(m.attention), std::to_string(m.n_layers), std::to_string(m.hidden_size),
                      std::to_string(m.n_heads), std::to_string(kv_shard_heads(m)), std::to_string(m.head_dim),
                      std::to_string(m.ffn_size), experts_text(m), window_text(m),
                      number(bf16_kv_bytes_per_token(m), "%.0f"), std::to_string(m.vocab_size),
                      std::to_string(m.context_tokens), m.tied_embeddings ? "yes" : "no", m.qkv_bias ? "yes" : "no",
                      origin_text(m)});
    nlohmann::json j = model_json(m);
    add_origin(j, m);
    out.push_back(j);
  }
  if (o.json) std::printf("%s\n", nlohmann::json{{"models", out}}.dump(2).c_str());
  else t.print();
}

void list_gpus(const ListOptions& o) {
  const std::vector<GpuSpec> gpus = load_gpu_catalog_with(o.gpus_catalog);
  nlohmann::json out = nlohmann::json::array();
  Table t{{"name", "bf16_TFLOPS", "fp8_TFLOPS", "fp32_TFLOPS", "HBM_GB/s", "HBM_GB", "NVLink_GB/s", "MFU", "MBU",
           "kernels", "origin"},
          {true, false, false, false, false, false, false, false, false, true, true},
          {}};
  // Kernel tables: AIConfigurator's measurements, or derived from the nearest measured GPU's
  // (models/cost/engine/gpu_derivation.hpp), as the engine-composed cost model takes them.
  std::vector<std::string> measured;
  for (const GpuSpec& g : gpus)
    if (!aic_gpu_folder(g.name).empty()) measured.push_back(g.name);
  for (const GpuSpec& g : gpus) {
    const std::string from = profile_gpu_for(g, gpus, measured);
    const std::string kernels = from == g.name ? "measured" : from.empty() ? "-" : "derived from " + from;
    t.rows.push_back({g.name, number(g.bf16_dense_tflops), g.fp8_dense_tflops > 0 ? number(g.fp8_dense_tflops) : "-",
                      g.fp32_tflops > 0 ? number(g.fp32_tflops) : "-", number(g.hbm_gb_per_s), number(g.hbm_gb),
                      number(g.nvlink_gb_per_s), number(g.compute_efficiency, "%.2f"),
                      number(g.memory_efficiency, "%.2f"), kernels, origin_text(g)});
    nlohmann::json j = {{"name", g.name}, {"bf16_dense_tflops", g.bf16_dense_tflops},
                        {"fp8_dense_tflops", g.fp8_dense_tflops}, {"fp32_tflops", g.fp32_tflops},
                        {"hbm_gb_per_s", g.hbm_gb_per_s}, {"kernels", kernels},
                        {"hbm_gb", g.hbm_gb}, {"nvlink_gb_per_s", g.nvlink_gb_per_s},
                        {"compute_efficiency", g.compute_efficiency}, {"memory_efficiency", g.memory_efficiency},
                        {"efficiency_source", g.efficiency_source}, {"source", g.source}};
    add_origin(j, g);
    out.push_back(j);
  }
  if (o.json) {
    std::printf("%s\n", nlohmann::json{{"gpus", out}}.dump(2).c_str());
    return;
  }
  t.print();
  std::printf("# NICs are not a GPU property: each configuration sets cluster.network.nic_gbps and nics_per_instance\n");
}

const char* kind_name(const KvFormat& f) {
  switch (f.kind) {
    case KvFormatKind::fp32: return "float";
    case KvFormatKind::bf16: return "float";
    case KvFormatKind::fp8_e4m3: return "float8+scale";
    case KvFormatKind::int_group: return "int-group";
    case KvFormatKind::kivi: return "kivi";
    case KvFormatKind::lynx: return f.split == LynxSplit::bit_slice ? "lynx bit-slice" : "lynx residual-quant";
  }
  return "";
}

void list_formats(const ListOptions& o) {
  const std::vector<std::string> names = o.formats.empty() ? kv_format_default_names() : o.formats;
  std::vector<KvFormat> formats;
  for (const std::string& name : names) formats.push_back(kv_format_parse(name));  // every name checked first
  const std::vector<ModelSpec> models = load_model_catalog_with(o.models_catalog);
  const ModelSpec& model = find_model(models, o.model);
  const double values = layers_kv_elements(model, o.tokens, 0, model.n_layers);  // values of the reference context
  const double tokens = static_cast<double>(o.tokens);
  const KvStreamBytes bf16 = model_kv_bytes(model, kv_format_parse("bf16"), o.tokens);
  nlohmann::json out = nlohmann::json::array();
  Table t{{"format", "kind", "anchor_bits", "residual_bits", "group", "bits/value", "anchor_B/token",
           "residual_B/token", "total_B/token", "vs_bf16"},
          {true, true, false, false, false, false, false, false, false, false},
          {}};
  for (const KvFormat& f : formats) {
    const KvStreamBytes b = model_kv_bytes(model, f, o.tokens);
    const double bits_per_value = 8.0 * static_cast<double>(b.total()) / values;
    const double ratio = static_cast<double>(b.total()) / static_cast<double>(bf16.total());
    t.rows.push_back({f.name, kind_name(f), std::to_string(f.anchor_bits), std::to_string(f.residual_bits),
                      f.group_size > 0 ? std::to_string(f.group_size) : "-", number(bits_per_value, "%.3f"),
                      number(static_cast<double>(b.anchor) / tokens, "%.1f"),
                      number(static_cast<double>(b.residual) / tokens, "%.1f"),
                      number(static_cast<double>(b.total()) / tokens, "%.1f"), number(ratio, "%.3f")});
    out.push_back({{"name", f.name}, {"kind", kind_name(f)}, {"anchor_bits", f.anchor_bits},
                   {"residual_bits", f.residual_bits}, {"group_size", f.group_size},
                   {"bits_per_value", bits_per_value}, {"anchor_bytes", b.anchor}, {"residual_bytes", b.residual},
                   {"total_bytes", b.total()}, {"total_vs_bf16", ratio}});
  }
  if (o.json) {
    std::printf("%s\n", nlohmann::json{{"reference", {{"model", model.name}, {"tokens", o.tokens}}},
                                       {"formats", out}, {"grammar", kv_format_grammar()}}
                            .dump(2)
                            .c_str());
    return;
  }
  std::printf("# bytes of the whole KV cache (every layer, K and V, metadata included) of %s at %lld tokens, per "
              "token\n",
              model.name.c_str(), static_cast<long long>(o.tokens));
  t.print();
  std::printf("# any name of the form: %s\n", kv_format_grammar().c_str());
}
}  // namespace

void add_list_command(CLI::App& app) {
  auto o = std::make_shared<ListOptions>();
  CLI::App* cmd = app.add_subcommand("list", "List the models, GPUs or KV formats a configuration can name");
  cmd->add_option("what", o->what, "models, gpus or formats")
      ->required()
      ->transform(CLI::CheckedTransformer(enum_name_map(kListWhatNames)));
  cmd->add_flag("--json", o->json, "Print JSON instead of a table");
  cmd->add_option("--models-catalog", o->models_catalog,
                  "User model catalog JSON: adds to or overrides the shipped entries by name");
  cmd->add_option("--gpus-catalog", o->gpus_catalog,
                  "User GPU catalog JSON: adds to or overrides the shipped entries by name");
  cmd->add_option("--model", o->model, "formats: the reference model of the byte counts (default llama-3.1-8b)");
  cmd->add_option("--tokens", o->tokens, "formats: the reference context in tokens (default 4096)")
      ->check(CLI::Range(int64_t{1}, int64_t{1'000'000'000}));
  cmd->add_option("--format", o->formats, "formats: list these names (repeatable; default: a standard set)");
  cmd->add_option("--hf-config", o->hf_config,
                  "models: show what lynxsim reads from this Hugging Face config.json (a path or @data/...)");
  cmd->callback([o] {
    switch (o->what) {
      case ListWhat::models: list_models(*o); break;
      case ListWhat::gpus: list_gpus(*o); break;
      case ListWhat::formats: list_formats(*o); break;
    }
  });
}

}  // namespace lynx
