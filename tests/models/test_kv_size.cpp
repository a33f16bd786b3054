#include <doctest/doctest.h>

#include "models/arch/catalog.hpp"
#include "models/arch/kv_size.hpp"

using namespace lynx;

namespace {
const std::vector<ModelSpec>& catalog() {
  static auto models = load_model_catalog(std::string(LYNX_SOURCE_DIR) + "/models/catalog/models.json");
  return models;
}
bool find_if_available(const char* name) {
  for (const auto& m : catalog())
    if (m.name == name) return m.unavailable.empty();
  return false;
}
uint64_t per_token(const char* model, const char* format) {
  return model_kv_bytes(find_model(catalog(), model), kv_format_parse(format), 1).total();
}
}  // namespace

TEST_CASE("bf16 KV bytes per token of every catalog model: layers * KV tensors * shard heads * channels * 2") {
  CHECK(per_token("llama-3.1-8b", "bf16") == 131072);
  CHECK(per_token("llama-3.1-70b", "bf16") == 327680);
  CHECK(per_token("llama-3.1-405b", "bf16") == 516096);
  CHECK(per_token("qwen2.5-7b", "bf16") == 57344);
  CHECK(per_token("qwen2.5-32b", "bf16") == 262144);
  CHECK(per_token("qwen2.5-72b", "bf16") == 327680);
  CHECK(per_token("mistral-7b-v0.3", "bf16") == 131072);
  CHECK(per_token("stories260k", "bf16") == 640);
  if (find_if_available("deepseek-v3")) CHECK(per_token("deepseek-v3", "bf16") == 61 * 576 * 2);  // 70,272: MLA
  if (find_if_available("qwen3-235b-a22b")) CHECK(per_token("qwen3-235b-a22b", "bf16") == 94 * 2 * 4 * 128 * 2);
  for (const auto& m : catalog()) {
    if (!m.unavailable.empty()) continue;  // an hf_config entry without the data folder
    CAPTURE(m.name);
    CHECK(per_token(m.name.c_str(), "bf16") ==
          static_cast<uint64_t>(m.n_layers * kv_tensors_per_layer(m) * kv_shard_heads(m) * kv_head_channels(m) * 2));
  }
}

TEST_CASE("every format's bytes for every model follow the closed form") {
  for (const auto& m : catalog()) {
    // Sliding-window layers (gpt-oss) hold less than T tokens: tests/models/test_hf_config.cpp checks them.
    if (!m.unavailable.empty() || m.sliding_window > 0) continue;
    const uint64_t tensors = static_cast<uint64_t>(kv_tensors_per_layer(m) * m.n_layers);
    const uint64_t row = static_cast<uint64_t>(kv_shard_heads(m) * kv_head_channels(m));
    const uint64_t elements = tensors * row;  // per token
    const uint64_t key_tensors = static_cast<uint64_t>(m.n_layers);  // K, or MLA's latent, in the key role
    const uint64_t value_tensors = tensors - key_tensors;
    const uint64_t T = 32768;
    CAPTURE(m.name);
    CHECK(model_kv_bytes(m, kv_format_parse("fp32"), T).total() == T * elements * 4);
    CHECK(model_kv_bytes(m, kv_format_parse("fp8-e4m3"), T).total() == T * elements + tensors * 4);
    for (int G : {32, 64, 128}) {
      uint64_t groups = tensors * ((row + G - 1) / G);  // per token
      std::string g = std::to_string(G);
      CHECK(model_kv_bytes(m, kv_format_parse("int8-g" + g), T).total() == T * (elements + groups * 4));
      CHECK(model_kv_bytes(m, kv_format_parse("int4-g" + g), T).total() == T * (elements / 2 + groups * 4));
      KvStreamBytes lynx = model_kv_bytes(m, kv_format_parse("lynx-a4r4-g" + g), T);
      CHECK(lynx.anchor == T * (elements / 2 + groups * 4));
      CHECK(lynx.residual == T * elements / 2);
      // KIVI-2: 32768 tokens is a whole number of token groups, so there is no fp16 tail.
      KvStreamBytes kivi = model_kv_bytes(m, kv_format_parse("kivi2-g" + g), T);
      uint64_t keys = (T * row / 4 + (T / G) * row * 4) * key_tensors;
      uint64_t values = T * (row / 4 + ((row + G - 1) / G) * 4) * value_tensors;
      CHECK(kivi.anchor == keys + values);
    }
  }
}

TEST_CASE("the issue's kv-size figures for Llama-3.1-8B at 32768 tokens") {
  const ModelSpec& m = find_model(catalog(), "llama-3.1-8b");
  CHECK(model_kv_bytes(m, kv_format_parse("bf16"), 32768).total() == 4294967296ull);           // 4 GiB
  CHECK(model_kv_bytes(m, kv_format_parse("int8-g64"), 32768).total() == 32768ull * 69632);     // 8.5 bits
  KvStreamBytes lynx = model_kv_bytes(m, kv_format_parse("lynx-a4r4-g64"), 32768);
  CHECK(lynx.anchor == 32768ull * 36864);
  CHECK(lynx.residual == 32768ull * 32768);
}
