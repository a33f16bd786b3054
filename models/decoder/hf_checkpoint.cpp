#include "models/decoder/hf_checkpoint.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "common/sha256.hpp"
#include "models/decoder/safetensors.hpp"

namespace lynx {

namespace {

constexpr const char* kArchitectures[] = {"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM",
                                          "Qwen3ForCausalLM"};

bool is_directory(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// config.json's values, each read with an error naming the file and key.
struct ConfigReader {
  std::string path;
  nlohmann::json j;
  bool has(const char* key) const { return j.contains(key) && !j[key].is_null(); }
  [[noreturn]] void bad(const char* key, const char* expected) const {
    throw_error("%s: \"%s\": expected %s, got %s", path.c_str(), key, expected,
                j.contains(key) ? j[key].dump().c_str() : "nothing (the key is missing)");
  }
  int positive_int(const char* key) const {
    if (!has(key) || !j[key].is_number_integer() || j[key].get<int64_t>() <= 0 || j[key].get<int64_t>() > (1 << 30))
      bad(key, "a positive integer");
    return j[key].get<int>();
  }
  int positive_int_or(const char* key, int fallback) const { return has(key) ? positive_int(key) : fallback; }
  double positive_number_or(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    if (!j[key].is_number() || !(j[key].get<double>() > 0)) bad(key, "a positive number");
    return j[key].get<double>();
  }
  bool boolean_or(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!j[key].is_boolean()) bad(key, "true or false");
    return j[key].get<bool>();
  }
  // A token id, the first of a list (eos_token_id may list several), or -1 for null/absent.
  int token_or_none(const char* key) const {
    if (!has(key)) return -1;
    const auto& v = j[key].is_array() && !j[key].empty() ? j[key][0] : j[key];
    if (!v.is_number_integer() || v.get<int64_t>() < 0) bad(key, "a token id (or a list of them, or null)");
    return v.get<int>();
  }
};

// The weight files of `dir` and which file holds each tensor.
struct WeightFiles {
  std::vector<std::unique_ptr<SafetensorsFile>> files;
  std::map<std::string, const SafetensorsFile*> by_tensor;
  std::string index;  // model.safetensors.index.json when sharded
};

WeightFiles open_weights(const std::string& dir) {
  WeightFiles w;
  const std::string index = dir + "/model.safetensors.index.json", single = dir + "/model.safetensors";
  if (is_file(index)) {
    w.index = index;
    nlohmann::json j;
    j = json_parse_text(read_file(index), index);  // a tensor mapped twice is refused, not the last taken
    if (!j.is_object() || !j.contains("weight_map") || !j["weight_map"].is_object())
      throw_error("%s: \"weight_map\": expected an object of tensor name -> shard file", index.c_str());
    std::map<std::string, const SafetensorsFile*> opened;
    for (const auto& [tensor, file] : j["weight_map"].items()) {
      if (!file.is_string() || file.get<std::string>().find('/') != std::string::npos)
        throw_error("%s: \"weight_map\".\"%s\": expected a file name in the same folder, got %s", index.c_str(),
                    tensor.c_str(), file.dump().c_str());
      const std::string name = file.get<std::string>();
      if (!opened.count(name)) {
        if (!is_file(dir + "/" + name))
          throw_error("%s: \"weight_map\".\"%s\" names %s, which is not in %s", index.c_str(), tensor.c_str(),
                      name.c_str(), dir.c_str());
        w.files.push_back(std::make_unique<SafetensorsFile>(dir + "/" + name));
        opened[name] = w.files.back().get();
      }
      if (!opened[name]->contains(tensor))
        throw_error("%s: tensor \"%s\" is missing (%s lists it in this file)", opened[name]->path().c_str(),
                    tensor.c_str(), index.c_str());
      w.by_tensor[tensor] = opened[name];
    }
  } else if (is_file(single)) {
    w.files.push_back(std::make_unique<SafetensorsFile>(single));
    for (const auto& [tensor, t] : w.files.back()->tensors()) w.by_tensor[tensor] = w.files.back().get();
  } else {
    throw_error("%s: no model.safetensors and no model.safetensors.index.json (a Hugging Face model folder holds "
                "config.json and its weights as safetensors)",
                dir.c_str());
  }
  return w;
}

class TensorBinder {
 public:
  TensorBinder(const std::string& dir, const WeightFiles& files, LlamaModel& model)
      : dir_(dir), files_(files), model_(model) {}

  bool has(const std::string& name) const { return files_.by_tensor.count(name) > 0; }

  // The tensor `name` with the shape config.json implies.
  const SafetensorsTensor& find(const std::string& name, const std::vector<int64_t>& shape, const char* why) const {
    auto it = files_.by_tensor.find(name);
    if (it == files_.by_tensor.end())
      throw_error("%s: tensor \"%s\" is missing (%s; looked in %s)", dir_.c_str(), name.c_str(), why,
                  files_.index.empty() ? "model.safetensors" : "model.safetensors.index.json");
    const SafetensorsTensor& t = it->second->tensor(name);
    if (t.shape != shape)
      throw_error("%s: tensor \"%s\" has shape %s, config.json (%s) gives %s", it->second->path().c_str(),
                  name.c_str(), shape_text(t.shape).c_str(), why, shape_text(shape).c_str());
    if (t.dtype != "F32" && t.dtype != "BF16" && t.dtype != "F16")
      throw_error("%s: tensor \"%s\" is %s; the decoder reads F32, BF16 and F16", it->second->path().c_str(),
                  name.c_str(), t.dtype.c_str());
    return t;
  }

  WeightMatrix matrix(const std::string& name, int64_t rows, int64_t cols, const char* why) {
    const SafetensorsTensor& t = find(name, {rows, cols}, why);
    WeightMatrix w{t.data, dtype_of(t), rows, cols};
    // fp32 is read in place when aligned (our writer and HF's pad the header to 8 bytes); else copied once.
    if (w.dtype == WeightDtype::f32 && t.file_offset % alignof(float) != 0) {
      model_.vectors.emplace_back(static_cast<size_t>(rows * cols));
      weights_to_f32(model_.vectors.back().data(), t.data, w.dtype, 0, rows * cols);
      w.data = model_.vectors.back().data();
    }
    return w;
  }

  // A small vector (norm weight, bias) converted to fp32 now.
  const float* vector(const std::string& name, int64_t n, const char* why) {
    const SafetensorsTensor& t = find(name, {n}, why);
    model_.vectors.emplace_back(static_cast<size_t>(n));
    weights_to_f32(model_.vectors.back().data(), t.data, dtype_of(t), 0, n);
    for (float v : model_.vectors.back())
      if (!std::isfinite(v)) throw_error("%s: tensor \"%s\" holds a non-finite value", dir_.c_str(), name.c_str());
    return model_.vectors.back().data();
  }

 private:
  static WeightDtype dtype_of(const SafetensorsTensor& t) {
    return t.dtype == "F32" ? WeightDtype::f32 : t.dtype == "BF16" ? WeightDtype::bf16 : WeightDtype::f16;
  }
  const std::string& dir_;
  const WeightFiles& files_;
  LlamaModel& model_;
};

}  // namespace

bool hf_is_model_directory(const std::string& path) { return is_directory(path); }

LlamaConfig hf_read_config(const std::string& dir, std::string* architecture_out) {
  const std::string path = dir + "/config.json";
  if (!is_file(path)) throw_error("%s: no config.json (a Hugging Face model folder holds config.json and "
                                  "*.safetensors)", dir.c_str());
  return hf_config_from_text(read_file(path), path, architecture_out);
}

LlamaConfig hf_config_from_text(const std::string& text, const std::string& path, std::string* architecture_out) {
  ConfigReader r;
  r.path = path;
  r.j = json_parse_text(text, path);  // a syntax error at its line and column, a key named twice refused
  if (!r.j.is_object()) throw_error("%s: expected a JSON object", r.path.c_str());
  std::string supported;
  for (const char* a : kArchitectures) supported += std::string(supported.empty() ? "" : ", ") + a;
  if (!r.has("architectures") || !r.j["architectures"].is_array() || r.j["architectures"].size() != 1 ||
      !r.j["architectures"][0].is_string())
    r.bad("architectures", ("a list of one architecture name (" + supported + ")").c_str());
  const std::string arch = r.j["architectures"][0].get<std::string>();
  if (std::find_if(std::begin(kArchitectures), std::end(kArchitectures), [&](const char* a) { return arch == a; }) ==
      std::end(kArchitectures))
    throw_error("%s: \"architectures\": %s is not supported by the decoder (supported: %s)", r.path.c_str(),
                arch.c_str(), supported.c_str());
  if (architecture_out) *architecture_out = arch;
  LlamaConfig c;
  c.dim = r.positive_int("hidden_size");
  c.hidden_dim = r.positive_int("intermediate_size");
  c.n_layers = r.positive_int("num_hidden_layers");
  c.n_heads = r.positive_int("num_attention_heads");
  c.n_kv_heads = r.positive_int_or("num_key_value_heads", c.n_heads);
  c.vocab_size = r.positive_int("vocab_size");
  c.seq_len = r.positive_int("max_position_embeddings");
  c.rope_theta = static_cast<float>(r.positive_number_or("rope_theta", 10000.0));  // HF LlamaConfig's default
  c.rms_eps = static_cast<float>(r.positive_number_or("rms_norm_eps", 1e-6));      // HF LlamaConfig's default
  c.shared_classifier = r.boolean_or("tie_word_embeddings", false);  // the default of all four HF config classes
  c.rope_rotate_half = true;
  c.bos_token = r.token_or_none("bos_token_id");
  c.eos_token = r.token_or_none("eos_token_id");
  if (r.has("head_dim")) {
    c.head_dim_override = r.positive_int("head_dim");
  } else if (c.dim % c.n_heads != 0) {
    throw_error("%s: \"hidden_size\" %d is not a multiple of \"num_attention_heads\" %d and there is no \"head_dim\"",
                r.path.c_str(), c.dim, c.n_heads);
  }
  if (c.n_heads % c.n_kv_heads != 0)
    throw_error("%s: \"num_attention_heads\" %d is not a multiple of \"num_key_value_heads\" %d", r.path.c_str(),
                c.n_heads, c.n_kv_heads);
  if (c.head_dim() % 2 != 0)
    throw_error("%s: head_dim %d must be even for rotary embeddings", r.path.c_str(), c.head_dim());
  if (r.has("hidden_act") && r.j["hidden_act"] != "silu")
    throw_error("%s: \"hidden_act\": %s; the decoder's feed-forward block is SwiGLU (\"silu\")", r.path.c_str(),
                r.j["hidden_act"].dump().c_str());
  if (arch == "LlamaForCausalLM" || arch == "MistralForCausalLM" || arch == "Qwen3ForCausalLM")
    for (const char* key : {"attention_bias", "mlp_bias"})
      if (r.boolean_or(key, false))
        throw_error("%s: \"%s\": true is not supported for %s (only Qwen2's q/k/v biases are)", r.path.c_str(), key,
                    arch.c_str());
  if (arch == "MistralForCausalLM" && r.has("sliding_window"))
    c.seq_len = std::min(c.seq_len, r.positive_int("sliding_window"));
  if (r.has("rope_scaling")) {
    const auto& s = r.j["rope_scaling"];
    const std::string type = s.is_object() && s.contains("rope_type") && s["rope_type"].is_string()
                                 ? s["rope_type"].get<std::string>()
                             : s.is_object() && s.contains("type") && s["type"].is_string() ? s["type"].get<std::string>()
                                                                                            : "";
    if (type != "llama3")
      throw_error("%s: \"rope_scaling\": %s is not supported (the decoder implements \"rope_type\": \"llama3\", "
                  "Llama-3.1's, or none)",
                  r.path.c_str(), s.dump().c_str());
    ConfigReader sr{r.path + " \"rope_scaling\"", s};
    c.rope_factor = static_cast<float>(sr.positive_number_or("factor", 0));
    c.rope_low_freq_factor = static_cast<float>(sr.positive_number_or("low_freq_factor", 0));
    c.rope_high_freq_factor = static_cast<float>(sr.positive_number_or("high_freq_factor", 0));
    c.rope_original_context = sr.positive_int("original_max_position_embeddings");
    if (!(c.rope_factor > 0) || !(c.rope_high_freq_factor > c.rope_low_freq_factor) || !(c.rope_low_freq_factor > 0))
      throw_error("%s: \"rope_scaling\": factor, low_freq_factor and high_freq_factor must be positive with "
                  "high_freq_factor > low_freq_factor, got %s",
                  r.path.c_str(), s.dump().c_str());
  }
  return c;
}

LlamaModel hf_load(const std::string& dir, bool hash) {
  std::string arch;
  LlamaModel m;
  m.config = hf_read_config(dir, &arch);
  m.format = "huggingface";
  m.path = dir;
  const LlamaConfig& c = m.config;
  const WeightFiles files = open_weights(dir);
  for (const auto& f : files.files) m.mappings.push_back(f->mapping());
  TensorBinder bind(dir, files, m);
  const int64_t dim = c.dim, q_dim = c.q_dim(), kv_dim = c.kv_dim(), hidden = c.hidden_dim, vocab = c.vocab_size;
  const int64_t head_dim = c.head_dim();
  const bool qwen2 = arch == "Qwen2ForCausalLM", qwen3 = arch == "Qwen3ForCausalLM";
  m.token_embedding = bind.matrix("model.embed_tokens.weight", vocab, dim, "[vocab_size, hidden_size]");
  m.rms_final = bind.vector("model.norm.weight", dim, "[hidden_size]");
  if (c.shared_classifier)
    m.classifier = m.token_embedding;
  else
    m.classifier = bind.matrix("lm_head.weight", vocab, dim, "[vocab_size, hidden_size], tie_word_embeddings false");
  for (int l = 0; l < c.n_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    LlamaLayer L;
    L.rms_att = bind.vector(p + "input_layernorm.weight", dim, "[hidden_size]");
    L.wq = bind.matrix(p + "self_attn.q_proj.weight", q_dim, dim, "[num_attention_heads * head_dim, hidden_size]");
    L.wk = bind.matrix(p + "self_attn.k_proj.weight", kv_dim, dim, "[num_key_value_heads * head_dim, hidden_size]");
    L.wv = bind.matrix(p + "self_attn.v_proj.weight", kv_dim, dim, "[num_key_value_heads * head_dim, hidden_size]");
    L.wo = bind.matrix(p + "self_attn.o_proj.weight", dim, q_dim, "[hidden_size, num_attention_heads * head_dim]");
    if (qwen2) {
      L.bq = bind.vector(p + "self_attn.q_proj.bias", q_dim, "Qwen2: q bias [num_attention_heads * head_dim]");
      L.bk = bind.vector(p + "self_attn.k_proj.bias", kv_dim, "Qwen2: k bias [num_key_value_heads * head_dim]");
      L.bv = bind.vector(p + "self_attn.v_proj.bias", kv_dim, "Qwen2: v bias [num_key_value_heads * head_dim]");
    }
    if (qwen3) {
      L.q_norm = bind.vector(p + "self_attn.q_norm.weight", head_dim, "Qwen3: q norm [head_dim]");
      L.k_norm = bind.vector(p + "self_attn.k_norm.weight", head_dim, "Qwen3: k norm [head_dim]");
    }
    L.rms_ffn = bind.vector(p + "post_attention_layernorm.weight", dim, "[hidden_size]");
    L.w1 = bind.matrix(p + "mlp.gate_proj.weight", hidden, dim, "[intermediate_size, hidden_size]");
    L.w3 = bind.matrix(p + "mlp.up_proj.weight", hidden, dim, "[intermediate_size, hidden_size]");
    L.w2 = bind.matrix(p + "mlp.down_proj.weight", dim, hidden, "[hidden_size, intermediate_size]");
    m.layers.push_back(L);
  }
  if (hash) {
    std::string record = "config.json " + sha256_hex(read_file(dir + "/config.json")) + "\n";
    std::vector<const SafetensorsFile*> sorted;
    for (const auto& f : files.files) sorted.push_back(f.get());
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->path() < b->path(); });
    for (const SafetensorsFile* f : sorted) {
      Sha256 sha;
      const auto* base = static_cast<const char*>(f->mapping().get());
      const uint64_t chunk = uint64_t{1} << 24;
      for (uint64_t at = 0; at < f->file_bytes(); at += chunk) sha.update(base + at, std::min(chunk, f->file_bytes() - at));
      const std::string& path = f->path();
      record += path.substr(path.find_last_of('/') + 1) + " " + sha.hex() + "\n";
    }
    m.sha256 = sha256_hex(record);
  }
  return m;
}

LlamaModel model_load(const std::string& path) { return hf_is_model_directory(path) ? hf_load(path) : llama_load(path); }

}  // namespace lynx
