#include "models/decoder/hf_export.hpp"

#include <algorithm>
#include <filesystem>
#include <cstdio>
#include <cstring>
#include <nlohmann/json.hpp>
#include <random>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "models/decoder/safetensors.hpp"

namespace lynx {

namespace {

struct Tensor {
  std::string name;
  std::vector<int64_t> shape;
  std::vector<float> values;
};

std::string encoded(const std::vector<float>& values, WeightDtype dtype) {
  std::string out(values.size() * static_cast<size_t>(weight_dtype_bytes(dtype)), '\0');
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == WeightDtype::f32) {
      std::memcpy(&out[i * 4], &values[i], 4);
      continue;
    }
    const uint16_t h = dtype == WeightDtype::bf16 ? float_to_bf16(values[i]) : float_to_half(values[i]);
    std::memcpy(&out[i * 2], &h, 2);
  }
  return out;
}

// Rows of a [heads * head_dim x cols] matrix from interleaved RoPE pairs to rotate-half order.
std::vector<float> to_rotate_half(const float* w, int64_t heads, int64_t head_dim, int64_t cols) {
  std::vector<float> out(static_cast<size_t>(heads * head_dim * cols));
  const int64_t half = head_dim / 2;
  for (int64_t h = 0; h < heads; ++h)
    for (int64_t j = 0; j < half; ++j)
      for (int64_t p = 0; p < 2; ++p)
        std::memcpy(&out[static_cast<size_t>((h * head_dim + p * half + j) * cols)],
                    w + (h * head_dim + 2 * j + p) * cols, static_cast<size_t>(cols) * sizeof(float));
  return out;
}

void make_directory(const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw_error("%s: cannot create the folder: %s", dir.c_str(), error.message().c_str());
}

void write_config(const std::string& dir, const std::string& architecture, const LlamaConfig& c, WeightDtype dtype) {
  nlohmann::ordered_json j;
  j["architectures"] = {architecture};
  j["hidden_size"] = c.dim;
  j["intermediate_size"] = c.hidden_dim;
  j["num_hidden_layers"] = c.n_layers;
  j["num_attention_heads"] = c.n_heads;
  j["num_key_value_heads"] = c.n_kv_heads;
  if (c.head_dim_override > 0) j["head_dim"] = c.head_dim_override;
  j["vocab_size"] = c.vocab_size;
  j["max_position_embeddings"] = c.seq_len;
  j["rms_norm_eps"] = c.rms_eps;
  j["rope_theta"] = c.rope_theta;
  if (c.rope_factor > 0)
    j["rope_scaling"] = {{"rope_type", "llama3"},
                         {"factor", c.rope_factor},
                         {"low_freq_factor", c.rope_low_freq_factor},
                         {"high_freq_factor", c.rope_high_freq_factor},
                         {"original_max_position_embeddings", c.rope_original_context}};
  else
    j["rope_scaling"] = nullptr;
  j["hidden_act"] = "silu";
  j["tie_word_embeddings"] = c.shared_classifier;
  j["bos_token_id"] = c.bos_token >= 0 ? nlohmann::ordered_json(c.bos_token) : nlohmann::ordered_json();
  j["eos_token_id"] = c.eos_token >= 0 ? nlohmann::ordered_json(c.eos_token) : nlohmann::ordered_json();
  j["torch_dtype"] = dtype == WeightDtype::f32 ? "float32" : dtype == WeightDtype::bf16 ? "bfloat16" : "float16";
  write_file_atomic(dir + "/config.json", j.dump(2) + "\n");
}

// The tensors in `shards` files (consecutive runs of about equal count), with the index when more than one.
void write_weights(const std::string& dir, std::vector<Tensor>& tensors, WeightDtype dtype, int shards) {
  if (shards < 1) throw_error("hf export: %d shards, expected >= 1", shards);
  if (shards == 1) {
    std::vector<SafetensorsEntry> entries;
    for (auto& t : tensors) {
      entries.push_back({t.name, weight_dtype_name(dtype), t.shape, encoded(t.values, dtype)});
      std::vector<float>().swap(t.values);
    }
    safetensors_write(dir + "/model.safetensors", entries);
    return;
  }
  nlohmann::ordered_json map = nlohmann::ordered_json::object();
  const size_t per = (tensors.size() + static_cast<size_t>(shards) - 1) / static_cast<size_t>(shards);
  for (int s = 0; s < shards; ++s) {
    char name[64];
    std::snprintf(name, sizeof name, "model-%05d-of-%05d.safetensors", s + 1, shards);
    std::vector<SafetensorsEntry> entries;
    for (size_t i = static_cast<size_t>(s) * per; i < std::min(tensors.size(), (static_cast<size_t>(s) + 1) * per); ++i) {
      entries.push_back({tensors[i].name, weight_dtype_name(dtype), tensors[i].shape, encoded(tensors[i].values, dtype)});
      std::vector<float>().swap(tensors[i].values);
      map[tensors[i].name] = name;
    }
    safetensors_write(dir + "/" + name, entries);
  }
  nlohmann::ordered_json index = {{"metadata", nlohmann::ordered_json::object()}, {"weight_map", map}};
  write_file_atomic(dir + "/model.safetensors.index.json", index.dump(2) + "\n");
}

std::vector<float> copy_of(const float* p, int64_t n) { return std::vector<float>(p, p + n); }

}  // namespace

void hf_write_from_llama2c(const LlamaModel& m, const std::string& dir, WeightDtype dtype, int shards) {
  const LlamaConfig& c = m.config;
  if (m.format != "llama2.c") throw_error("hf export: %s is not a llama2.c checkpoint", m.path.c_str());
  make_directory(dir);
  LlamaConfig hf = c;
  hf.rope_rotate_half = true;
  write_config(dir, "LlamaForCausalLM", hf, dtype);
  const int64_t dim = c.dim, kv_dim = c.kv_dim(), hidden = c.hidden_dim, hd = c.head_dim();
  std::vector<Tensor> t;
  t.push_back({"model.embed_tokens.weight", {c.vocab_size, dim}, copy_of(m.token_embedding.f32(), c.vocab_size * dim)});
  for (int l = 0; l < c.n_layers; ++l) {
    const LlamaLayer& L = m.layers[static_cast<size_t>(l)];
    const std::string p = "model.layers." + std::to_string(l) + ".";
    t.push_back({p + "input_layernorm.weight", {dim}, copy_of(L.rms_att, dim)});
    t.push_back({p + "self_attn.q_proj.weight", {dim, dim}, to_rotate_half(L.wq.f32(), c.n_heads, hd, dim)});
    t.push_back({p + "self_attn.k_proj.weight", {kv_dim, dim}, to_rotate_half(L.wk.f32(), c.n_kv_heads, hd, dim)});
    t.push_back({p + "self_attn.v_proj.weight", {kv_dim, dim}, copy_of(L.wv.f32(), kv_dim * dim)});
    t.push_back({p + "self_attn.o_proj.weight", {dim, dim}, copy_of(L.wo.f32(), dim * dim)});
    t.push_back({p + "post_attention_layernorm.weight", {dim}, copy_of(L.rms_ffn, dim)});
    t.push_back({p + "mlp.gate_proj.weight", {hidden, dim}, copy_of(L.w1.f32(), hidden * dim)});
    t.push_back({p + "mlp.up_proj.weight", {hidden, dim}, copy_of(L.w3.f32(), hidden * dim)});
    t.push_back({p + "mlp.down_proj.weight", {dim, hidden}, copy_of(L.w2.f32(), dim * hidden)});
  }
  t.push_back({"model.norm.weight", {dim}, copy_of(m.rms_final, dim)});
  if (!c.shared_classifier)
    t.push_back({"lm_head.weight", {c.vocab_size, dim}, copy_of(m.classifier.f32(), c.vocab_size * dim)});
  write_weights(dir, t, dtype, shards);
}

void hf_write_synthetic(const std::string& dir, const SyntheticCheckpoint& spec) {
  const LlamaConfig& c = spec.config;
  const std::string& arch = spec.architecture;
  make_directory(dir);
  write_config(dir, arch, c, spec.dtype);
  std::mt19937 rng(spec.seed);
  std::uniform_real_distribution<float> uniform(-spec.scale, spec.scale);
  auto random = [&](int64_t n, float offset) {
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = offset + uniform(rng);
    return v;
  };
  const int64_t dim = c.dim, q_dim = c.q_dim(), kv_dim = c.kv_dim(), hidden = c.hidden_dim, hd = c.head_dim();
  std::vector<Tensor> t;
  t.push_back({"model.embed_tokens.weight", {c.vocab_size, dim}, random(c.vocab_size * dim, 0)});
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    t.push_back({p + "input_layernorm.weight", {dim}, random(dim, 1)});
    t.push_back({p + "self_attn.q_proj.weight", {q_dim, dim}, random(q_dim * dim, 0)});
    t.push_back({p + "self_attn.k_proj.weight", {kv_dim, dim}, random(kv_dim * dim, 0)});
    t.push_back({p + "self_attn.v_proj.weight", {kv_dim, dim}, random(kv_dim * dim, 0)});
    if (arch == "Qwen2ForCausalLM") {
      t.push_back({p + "self_attn.q_proj.bias", {q_dim}, random(q_dim, 0)});
      t.push_back({p + "self_attn.k_proj.bias", {kv_dim}, random(kv_dim, 0)});
      t.push_back({p + "self_attn.v_proj.bias", {kv_dim}, random(kv_dim, 0)});
    }
    if (arch == "Qwen3ForCausalLM") {
      t.push_back({p + "self_attn.q_norm.weight", {hd}, random(hd, 1)});
      t.push_back({p + "self_attn.k_norm.weight", {hd}, random(hd, 1)});
    }
    t.push_back({p + "self_attn.o_proj.weight", {dim, q_dim}, random(dim * q_dim, 0)});
    t.push_back({p + "post_attention_layernorm.weight", {dim}, random(dim, 1)});
    t.push_back({p + "mlp.gate_proj.weight", {hidden, dim}, random(hidden * dim, 0)});
    t.push_back({p + "mlp.up_proj.weight", {hidden, dim}, random(hidden * dim, 0)});
    t.push_back({p + "mlp.down_proj.weight", {dim, hidden}, random(dim * hidden, 0)});
  }
  t.push_back({"model.norm.weight", {dim}, random(dim, 1)});
  if (!c.shared_classifier) t.push_back({"lm_head.weight", {c.vocab_size, dim}, random(c.vocab_size * dim, 0)});
  write_weights(dir, t, spec.dtype, spec.shards);
}

}  // namespace lynx
