#include "models/arch/hf_config.hpp"

#include <cmath>

#include "common/error.hpp"
#include "common/json_reader.hpp"

namespace lynx {

namespace {
enum class Family { llama, mistral, qwen2, qwen3, qwen3_moe, mixtral, deepseek_v3, gpt_oss };

struct Architecture {
  const char* name;
  Family family;
};
constexpr Architecture kArchitectures[] = {
    {"LlamaForCausalLM", Family::llama},         {"MistralForCausalLM", Family::mistral},
    {"Qwen2ForCausalLM", Family::qwen2},         {"Qwen3ForCausalLM", Family::qwen3},
    {"Qwen3MoeForCausalLM", Family::qwen3_moe},  {"MixtralForCausalLM", Family::mixtral},
    {"DeepseekV3ForCausalLM", Family::deepseek_v3}, {"GptOssForCausalLM", Family::gpt_oss}};

// A key that is absent or null (config.json writes unused options as null).
bool present(const JsonObject& o, const std::string& key) {
  return o.value().contains(key) && !o.value()[key].is_null();
}

bool flag(JsonObject& o, const std::string& key) { return present(o, key) && o.boolean_or(key, false); }

// head_dim when the config gives it, else hidden / heads (Llama's and Mistral's default).
int64_t head_dim_of(JsonObject& o, const ModelSpec& m) {
  if (present(o, "head_dim")) return o.positive_integer("head_dim");
  if (m.hidden_size % m.n_heads != 0) o.fail("head_dim", "a positive integer (hidden_size is not a multiple of heads)");
  return m.hidden_size / m.n_heads;
}

void read_rope_scaling(JsonObject& o, ModelSpec& m) {
  if (!present(o, "rope_scaling")) return;
  const nlohmann::json& rope = o.raw("rope_scaling");
  JsonObject r(rope, o.origin(), o.path_of("rope_scaling"));
  // transformers reads "rope_type", older configs "type".
  const std::string key = present(r, "rope_type") ? "rope_type" : "type";
  m.rope_scaling = r.string(key);
  if (m.rope_scaling == "llama3") {  // Llama-3.1: wavelength-dependent scaling of the RoPE frequencies
    r.positive_number("factor");
    r.positive_number("low_freq_factor");
    r.positive_number("high_freq_factor");
    r.positive_integer("original_max_position_embeddings");
  }
}

// Sliding windows as Qwen2/Qwen3 configure them: when use_sliding_window, layers from max_window_layers on.
void read_qwen_sliding(JsonObject& o, ModelSpec& m) {
  if (!flag(o, "use_sliding_window")) return;
  m.sliding_window = o.positive_integer("sliding_window");
  const int64_t first = o.non_negative_integer_or("max_window_layers", 0);
  m.sliding_layers.assign(static_cast<size_t>(m.n_layers), false);
  for (int64_t l = first; l < m.n_layers; ++l) m.sliding_layers[static_cast<size_t>(l)] = true;
}

// Mistral and Mixtral: sliding_window (an integer or null) on every layer.
void read_uniform_sliding(JsonObject& o, ModelSpec& m) {
  if (!present(o, "sliding_window")) return;
  m.sliding_window = o.positive_integer("sliding_window");
  m.sliding_layers.assign(static_cast<size_t>(m.n_layers), true);
}

// Keys every supported architecture has.
void read_common(JsonObject& o, ModelSpec& m) {
  m.n_layers = o.positive_integer("num_hidden_layers");
  m.hidden_size = o.positive_integer("hidden_size");
  m.n_heads = o.positive_integer("num_attention_heads");
  m.n_kv_heads = present(o, "num_key_value_heads") ? o.positive_integer("num_key_value_heads") : m.n_heads;
  m.ffn_size = o.positive_integer("intermediate_size");
  m.vocab_size = o.positive_integer("vocab_size");
  m.context_tokens = o.positive_integer("max_position_embeddings");
  m.tied_embeddings = flag(o, "tie_word_embeddings");
  read_rope_scaling(o, m);
  if (present(o, "quantization_config")) {
    const nlohmann::json& q = o.value()["quantization_config"];
    m.block_scaled_fp8 = q.is_object() && q.contains("weight_block_size") && !q["weight_block_size"].is_null();
    m.dynamic_fp8_activations = q.is_object() && q.contains("activation_scheme") &&
                                q["activation_scheme"].is_string() && q["activation_scheme"] == "dynamic";
  }
}

void read_gqa(JsonObject& o, ModelSpec& m) {
  m.head_dim = head_dim_of(o, m);
  if (m.n_heads % m.n_kv_heads != 0) o.fail("num_key_value_heads", "a divisor of num_attention_heads");
}

void read_experts(JsonObject& o, ModelSpec& m, const char* experts_key, const char* ffn_key) {
  m.n_experts = o.positive_integer(experts_key);
  m.experts_per_token = o.positive_integer("num_experts_per_tok");
  m.expert_ffn_size = o.positive_integer(ffn_key);
  if (m.experts_per_token > m.n_experts) o.fail("num_experts_per_tok", "at most the number of experts");
}

void read_deepseek_v3(JsonObject& o, ModelSpec& m) {
  m.attention = AttentionKind::mla;
  m.q_lora_rank = present(o, "q_lora_rank") ? o.positive_integer("q_lora_rank") : 0;
  m.kv_lora_rank = o.positive_integer("kv_lora_rank");
  m.qk_nope_head_dim = o.positive_integer("qk_nope_head_dim");
  m.qk_rope_head_dim = o.positive_integer("qk_rope_head_dim");
  m.v_head_dim = o.positive_integer("v_head_dim");
  m.head_dim = m.qk_nope_head_dim + m.qk_rope_head_dim;  // a query/key head's width
  read_experts(o, m, "n_routed_experts", "moe_intermediate_size");
  m.shared_ffn_size = o.non_negative_integer_or("n_shared_experts", 0) * m.expert_ffn_size;
  m.dense_layers = o.non_negative_integer_or("first_k_dense_replace", 0);
  if (m.dense_layers > m.n_layers) o.fail("first_k_dense_replace", "at most num_hidden_layers");
  if (o.non_negative_integer_or("moe_layer_freq", 1) != 1) o.fail("moe_layer_freq", "1 (every layer after the dense ones is MoE)");
  // noaux_tc routing adds a per-expert score-correction bias (e_score_correction_bias).
  m.router_bias = present(o, "topk_method") && o.string("topk_method") == "noaux_tc";
  if (flag(o, "attention_bias")) o.fail("attention_bias", "false (MLA projections without biases)");
}

void read_gpt_oss(JsonObject& o, ModelSpec& m) {
  read_gqa(o, m);
  m.qkv_bias = m.o_bias = flag(o, "attention_bias");
  m.attention_sinks = true;
  read_experts(o, m, "num_local_experts", "intermediate_size");
  m.expert_bias = m.router_bias = true;
  const nlohmann::json& types = o.array("layer_types");
  if (types.size() != static_cast<size_t>(m.n_layers)) o.fail("layer_types", "one entry per layer (num_hidden_layers)");
  m.sliding_window = o.positive_integer("sliding_window");
  m.sliding_layers.assign(static_cast<size_t>(m.n_layers), false);
  for (size_t l = 0; l < types.size(); ++l) {
    const std::string t = types[l].is_string() ? types[l].get<std::string>() : "";
    if (t != "sliding_attention" && t != "full_attention")
      throw_error("%s: %s: expected \"sliding_attention\" or \"full_attention\", got %s", o.origin().c_str(),
                  json_index_path(o.path_of("layer_types"), l).c_str(), types[l].dump().c_str());
    m.sliding_layers[l] = t == "sliding_attention";
  }
}
}  // namespace

const std::vector<std::string>& hf_supported_architectures() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const Architecture& a : kArchitectures) v.push_back(a.name);
    return v;
  }();
  return names;
}

ModelSpec read_hf_config(const std::string& path) { return read_hf_config_text(json_file_text(path), path); }

ModelSpec read_hf_config_text(const std::string& text, const std::string& path) {
  nlohmann::json root = json_parse_text(text, path);
  JsonObject o(root, path, "$");
  const nlohmann::json& archs = o.array("architectures");
  if (archs.empty() || !archs[0].is_string()) o.fail("architectures", "a list naming the model class");
  ModelSpec m;
  m.architecture = archs[0].get<std::string>();
  m.hf_config = path;
  const Architecture* arch = nullptr;
  for (const Architecture& a : kArchitectures)
    if (m.architecture == a.name) arch = &a;
  if (!arch) {
    std::string known;
    for (const std::string& a : hf_supported_architectures()) known += (known.empty() ? "" : ", ") + a;
    throw_error("%s: %s: architecture \"%s\" is not supported (supported: %s)", path.c_str(),
                json_index_path(o.path_of("architectures"), 0).c_str(), m.architecture.c_str(), known.c_str());
  }
  read_common(o, m);
  switch (arch->family) {
    case Family::llama:
      read_gqa(o, m);
      m.qkv_bias = m.o_bias = flag(o, "attention_bias");
      if (flag(o, "mlp_bias")) o.fail("mlp_bias", "false (MLP biases are not counted)");
      break;
    case Family::mistral:
      read_gqa(o, m);
      read_uniform_sliding(o, m);
      break;
    case Family::qwen2:
      read_gqa(o, m);
      m.qkv_bias = true;  // modeling_qwen2: q, k and v projections with bias, o without
      read_qwen_sliding(o, m);
      break;
    case Family::qwen3:
    case Family::qwen3_moe:
      read_gqa(o, m);
      m.qk_norm = true;
      m.qkv_bias = m.o_bias = flag(o, "attention_bias");
      read_qwen_sliding(o, m);
      if (arch->family == Family::qwen3_moe) {
        read_experts(o, m, "num_experts", "moe_intermediate_size");
        if (o.non_negative_integer_or("decoder_sparse_step", 1) != 1)
          o.fail("decoder_sparse_step", "1 (every layer MoE)");
        if (present(o, "mlp_only_layers") && !o.array("mlp_only_layers").empty())
          o.fail("mlp_only_layers", "[] (dense layers among MoE layers are not supported)");
      }
      break;
    case Family::mixtral:
      read_gqa(o, m);
      read_experts(o, m, "num_local_experts", "intermediate_size");
      read_uniform_sliding(o, m);
      break;
    case Family::deepseek_v3:
      read_deepseek_v3(o, m);
      break;
    case Family::gpt_oss:
      read_gpt_oss(o, m);
      break;
  }
  m.params = std::llround(model_params_from_shapes(m));
  return m;
}

}  // namespace lynx
