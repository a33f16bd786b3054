// Hugging Face config.json reading: parameter counts against the published figures (the configs written here are
// the keys of the models' own config.json files that lynxsim reads, values copied), MLA's and sliding windows' KV
// bytes, the distinct-experts closed form, and the errors for an unknown architecture, a missing key and a missing
// file. Independent of the data folder.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "common/error.hpp"
#include "models/arch/attention.hpp"
#include "models/arch/catalog.hpp"
#include "models/arch/hf_config.hpp"
#include "models/arch/kv_size.hpp"
#include "models/arch/moe.hpp"

using namespace lynx;

namespace {
std::string write_config(const std::string& name, const nlohmann::json& j) {
  const std::string path = (std::filesystem::temp_directory_path() / ("lynx_test_hf_" + name + "_config.json")).string();
  std::ofstream(path) << j.dump(1);
  return path;
}

nlohmann::json qwen3_235b() {
  return {{"architectures", {"Qwen3MoeForCausalLM"}}, {"attention_bias", false}, {"decoder_sparse_step", 1},
          {"head_dim", 128}, {"hidden_size", 4096}, {"intermediate_size", 12288}, {"max_position_embeddings", 40960},
          {"max_window_layers", 94}, {"mlp_only_layers", nlohmann::json::array()}, {"moe_intermediate_size", 1536},
          {"num_attention_heads", 64}, {"num_experts", 128}, {"num_experts_per_tok", 8}, {"num_hidden_layers", 94},
          {"num_key_value_heads", 4}, {"rope_scaling", nullptr}, {"sliding_window", nullptr},
          {"tie_word_embeddings", false}, {"use_sliding_window", false}, {"vocab_size", 151936}};
}

nlohmann::json deepseek_v3() {
  return {{"architectures", {"DeepseekV3ForCausalLM"}}, {"attention_bias", false}, {"first_k_dense_replace", 3},
          {"hidden_size", 7168}, {"intermediate_size", 18432}, {"kv_lora_rank", 512},
          {"max_position_embeddings", 163840}, {"moe_intermediate_size", 2048}, {"moe_layer_freq", 1},
          {"n_routed_experts", 256}, {"n_shared_experts", 1}, {"num_attention_heads", 128},
          {"num_experts_per_tok", 8}, {"num_hidden_layers", 61}, {"num_key_value_heads", 128},
          {"num_nextn_predict_layers", 1}, {"q_lora_rank", 1536}, {"qk_nope_head_dim", 128},
          {"qk_rope_head_dim", 64}, {"rope_scaling", {{"type", "yarn"}, {"factor", 40}}},
          {"tie_word_embeddings", false}, {"topk_method", "noaux_tc"}, {"v_head_dim", 128}, {"vocab_size", 129280}};
}

nlohmann::json mixtral_8x7b() {
  return {{"architectures", {"MixtralForCausalLM"}}, {"hidden_size", 4096}, {"intermediate_size", 14336},
          {"max_position_embeddings", 32768}, {"num_attention_heads", 32}, {"num_experts_per_tok", 2},
          {"num_hidden_layers", 32}, {"num_key_value_heads", 8}, {"num_local_experts", 8},
          {"sliding_window", nullptr}, {"tie_word_embeddings", false}, {"vocab_size", 32000}};
}

nlohmann::json gpt_oss_120b() {
  nlohmann::json types = nlohmann::json::array();
  for (int l = 0; l < 36; ++l) types.push_back(l % 2 == 0 ? "sliding_attention" : "full_attention");
  return {{"architectures", {"GptOssForCausalLM"}}, {"attention_bias", true}, {"experts_per_token", 4},
          {"head_dim", 64}, {"hidden_size", 2880}, {"intermediate_size", 2880}, {"layer_types", types},
          {"max_position_embeddings", 131072}, {"num_attention_heads", 64}, {"num_experts_per_tok", 4},
          {"num_hidden_layers", 36}, {"num_key_value_heads", 8}, {"num_local_experts", 128},
          {"rope_scaling", {{"rope_type", "yarn"}, {"factor", 32.0}}}, {"sliding_window", 128},
          {"tie_word_embeddings", false}, {"vocab_size", 201088}};
}

uint64_t bf16_bytes(const ModelSpec& m, int64_t tokens) {
  return model_kv_bytes(m, kv_format_parse("bf16"), tokens).total();
}
}  // namespace

TEST_CASE("Qwen3-235B-A22B: 235B total, 22B active, GQA KV 94 x 2 x 4 x 128 x 2 B") {
  const ModelSpec m = read_hf_config(write_config("qwen3", qwen3_235b()));
  // Counted by hand: 94 layers x (attention 4096 x (64 + 2 x 4 + 64) x 128 + q/k norms 256 + router 4096 x 128 +
  // 128 experts x 3 x 4096 x 1536 + norms 8192) + 2 x 151936 x 4096 + 4096.
  CHECK(m.params == 235093634560);
  CHECK(model_active_params(m) == doctest::Approx(22190763520.0).epsilon(1e-15));
  CHECK(std::fabs(static_cast<double>(m.params) / 235e9 - 1) < 0.01);  // model card: 235B
  CHECK(std::fabs(model_active_params(m) / 22e9 - 1) < 0.01);          // model card: 22B activated
  CHECK(m.attention == AttentionKind::gqa);
  CHECK(m.qk_norm);
  CHECK(bf16_bytes(m, 1) == 94u * 2 * 4 * 128 * 2);
}

TEST_CASE("DeepSeek-V3: 671B / 37B, MLA KV 61 x 576 x 2 = 70,272 B per token, one latent held whole per TP rank") {
  const ModelSpec m = read_hf_config(write_config("dsv3", deepseek_v3()));
  CHECK(m.params == 671026419200);
  CHECK(model_active_params(m) == doctest::Approx(37552297472.0).epsilon(1e-15));
  CHECK(std::fabs(static_cast<double>(m.params) / 671e9 - 1) < 0.01);
  CHECK(std::fabs(model_active_params(m) / 37e9 - 1) < 0.02);  // "37B activated" (37.55B counted)
  CHECK(m.attention == AttentionKind::mla);
  CHECK(moe_layer_count(m) == 58);
  CHECK(m.shared_ffn_size == 2048);
  CHECK(m.rope_scaling == "yarn");
  CHECK(kv_tensors_per_layer(m) == 1);
  CHECK(kv_shard_heads(m) == 1);
  CHECK(kv_head_channels(m) == 576);
  CHECK(bf16_bytes(m, 1) == 70272u);
  CHECK(bf16_bytes(m, 1000) == 70272000u);
  // Every format applies to the latent, bytes exact: int8-g64 per token and layer = 576 codes + 9 groups x 4 B.
  CHECK(model_kv_bytes(m, kv_format_parse("int8-g64"), 10).total() == 61u * 10 * (576 + 9 * 4));
  // lynx-a4r4-g64: a 4-bit anchor with the group metadata, a 4-bit residual.
  const KvStreamBytes lynx = model_kv_bytes(m, kv_format_parse("lynx-a4r4-g64"), 10);
  CHECK(lynx.anchor == 61u * 10 * (288 + 9 * 4));
  CHECK(lynx.residual == 61u * 10 * 288);
}

TEST_CASE("Mixtral-8x7B 46.7B / 12.9B and gpt-oss-120b 116.8B / 5.13B without embeddings, sliding layers hold 128") {
  const ModelSpec mixtral = read_hf_config(write_config("mixtral", mixtral_8x7b()));
  CHECK(mixtral.params == 46702792704);
  CHECK(model_active_params(mixtral) == doctest::Approx(12879925248.0).epsilon(1e-15));
  const ModelSpec oss = read_hf_config(write_config("gptoss", gpt_oss_120b()));
  CHECK(oss.params == 116829156672);
  const double embedding = 201088.0 * 2880;
  CHECK(model_active_params(oss) - embedding == doctest::Approx(5132849472.0).epsilon(1e-15));  // card: 5.13B
  CHECK(sliding_layer_count(oss) == 18);
  CHECK(layer_kv_tokens(oss, 0, 1000) == 128);
  CHECK(layer_kv_tokens(oss, 1, 1000) == 1000);
  // 18 full layers hold 1000 tokens, 18 sliding ones 128: K and V of 8 x 64 in bf16.
  CHECK(bf16_bytes(oss, 1000) == 18u * (1000 + 128) * 2 * 8 * 64 * 2);
  CHECK(bf16_bytes(oss, 100) == 36u * 100 * 2 * 8 * 64 * 2);
  // A transfer chunk of layers 0..2 holds two sliding layers and one full layer.
  CHECK(layers_kv_bytes(oss, kv_format_parse("bf16"), 1000, 0, 3).total() == (2u * 128 + 1000) * 2 * 8 * 64 * 2);
  CHECK(layers_kv_elements(oss, 1000, 0, 3) == (2.0 * 128 + 1000) * 2 * 8 * 64);
}

TEST_CASE("Llama-3.1-8B's config.json gives the shipped entry's shapes, with its llama3 rope scaling") {
  const nlohmann::json llama = {
      {"architectures", {"LlamaForCausalLM"}}, {"attention_bias", false}, {"hidden_size", 4096},
      {"intermediate_size", 14336}, {"max_position_embeddings", 131072}, {"mlp_bias", false},
      {"num_attention_heads", 32}, {"num_hidden_layers", 32}, {"num_key_value_heads", 8},
      {"rope_scaling", {{"factor", 8.0}, {"low_freq_factor", 1.0}, {"high_freq_factor", 4.0},
                        {"original_max_position_embeddings", 8192}, {"rope_type", "llama3"}}},
      {"tie_word_embeddings", false}, {"vocab_size", 128256}};
  const ModelSpec m = read_hf_config(write_config("llama", llama));
  CHECK(m.params == 8030261248);
  CHECK(m.head_dim == 128);
  CHECK(m.rope_scaling == "llama3");
  CHECK_FALSE(m.dynamic_fp8_activations);  // no quantization_config: static input scales if run in fp8
  // a per-tensor fp8 checkpoint that scales its inputs at run time says so; "static" or no scheme is static
  nlohmann::json dynamic = llama;
  dynamic["quantization_config"] = {{"quant_method", "fp8"}, {"activation_scheme", "dynamic"}};
  CHECK(read_hf_config(write_config("llama_dynamic", dynamic)).dynamic_fp8_activations);
  dynamic["quantization_config"]["activation_scheme"] = "static";
  CHECK_FALSE(read_hf_config(write_config("llama_static", dynamic)).dynamic_fp8_activations);
  nlohmann::json broken = llama;
  broken["rope_scaling"].erase("low_freq_factor");
  const std::string path = write_config("llama_broken", broken);
  CHECK_THROWS_WITH_AS(read_hf_config(path), (path + ": $.rope_scaling.low_freq_factor: missing field, expected a "
                                              "positive number").c_str(), LynxError);
}

TEST_CASE("an unknown architecture and a missing key are refused by name") {
  nlohmann::json unknown = mixtral_8x7b();
  unknown["architectures"] = {"MambaForCausalLM"};
  const std::string path = write_config("unknown", unknown);
  CHECK_THROWS_WITH_AS(read_hf_config(path),
                       doctest::Contains((path + ": $.architectures[0]: architecture \"MambaForCausalLM\" is not "
                                                 "supported (supported: LlamaForCausalLM")
                                             .c_str()),
                       LynxError);
  nlohmann::json missing = deepseek_v3();
  missing.erase("kv_lora_rank");
  const std::string missing_path = write_config("missing", missing);
  CHECK_THROWS_WITH_AS(read_hf_config(missing_path),
                       (missing_path + ": $.kv_lora_rank: missing field, expected a positive integer").c_str(),
                       LynxError);
}

TEST_CASE("a catalog entry whose hf_config is missing stays listed, unavailable, and using it says why") {
  const std::string catalog = (std::filesystem::temp_directory_path() / "lynx_test_hf_catalog.json").string();
  std::ofstream(catalog) << R"({"models": [{"name": "gone", "hf_config": "no-such_config.json", "source": "test"},
    {"name": "big", "hf_config": ")" << write_config("mixtral_cat", mixtral_8x7b())
                         << R"(", "params": 46700000000, "source": "test"}]})";
  const std::vector<ModelSpec> models = load_model_catalog(catalog);
  REQUIRE(models.size() == 2);
  CHECK(models[0].unavailable.find("no-such_config.json does not exist") != std::string::npos);
  CHECK_THROWS_WITH_AS(find_model(models, "gone"), doctest::Contains("model \"gone\""), LynxError);
  CHECK(find_model(models, "big").n_experts == 8);
  // A published params figure that disagrees with the config's shapes is refused like a shapes-only entry's.
  std::ofstream(catalog) << R"({"models": [{"name": "big", "hf_config": ")"
                         << write_config("mixtral_cat", mixtral_8x7b()) << R"(", "params": 56700000000, "source": "t"}]})";
  CHECK_THROWS_WITH_AS(load_model_catalog(catalog), doctest::Contains("$.models[0].params: params 56,700,000,000"),
                       LynxError);
}

TEST_CASE("distinct experts touched: E (1 - (1 - k/E)^B), from k at one token to E") {
  CHECK(expected_distinct_experts(8, 2, 1) == doctest::Approx(2));
  CHECK(expected_distinct_experts(8, 2, 2) == doctest::Approx(8 * (1 - 0.75 * 0.75)));  // 3.5
  CHECK(expected_distinct_experts(256, 8, 64) == doctest::Approx(256 * (1 - std::pow(248.0 / 256, 64))));
  CHECK(expected_distinct_experts(128, 8, 1e6) == doctest::Approx(128));
  CHECK(expected_distinct_experts(0, 0, 5) == 0);
}

TEST_CASE("causal pairs under a sliding window") {
  CHECK(causal_pairs(5, 0, 0) == 15);       // 1 + 2 + 3 + 4 + 5
  CHECK(causal_pairs(5, 0, 2) == 9);        // 1 + 2 + 2 + 2 + 2
  CHECK(causal_pairs(3, 4, 2) == 6);        // positions 4, 5, 6: 2 each
  CHECK(causal_pairs(3, 1, 3) == 2 + 3 + 3);
  CHECK(causal_pairs(4, 2, 0) == 4 * 2 + 10);
}
