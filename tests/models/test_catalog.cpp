#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "models/arch/catalog.hpp"

#include <nlohmann/json.hpp>

using namespace lynx;

namespace {
std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}
// Parameter count from the shapes (attention + SwiGLU + norms + embeddings (+ classifier) (+ Qwen's qkv bias)),
// written independently of the library's.
int64_t params_from_shapes(const ModelSpec& m, bool qkv_bias) {
  int64_t h = m.hidden_size, q = m.n_heads * m.head_dim, kv = m.n_kv_heads * m.head_dim;
  int64_t attention = h * q + 2 * h * kv + q * h + (qkv_bias ? q + 2 * kv : 0);
  int64_t per_layer = attention + 3 * h * m.ffn_size + 2 * h;
  return m.n_layers * per_layer + m.vocab_size * h * (m.tied_embeddings ? 1 : 2) + h;
}
// The entry named `name`, available or not (find_model refuses an unavailable one).
const ModelSpec& find_model_entry(const std::vector<ModelSpec>& catalog, const std::string& name) {
  for (const ModelSpec& m : catalog)
    if (m.name == name) return m;
  throw LynxError("no catalog entry " + name);
}
}  // namespace

TEST_CASE("the shipped catalogs load and hold the issue's models and GPUs") {
  auto models = load_model_catalog(std::string(LYNX_SOURCE_DIR) + "/models/catalog/models.json");
  for (const char* name : {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen2.5-7b", "qwen2.5-32b",
                           "qwen2.5-72b", "mistral-7b-v0.3", "stories260k"}) {
    const ModelSpec& m = find_model(models, name);
    CAPTURE(name);
    CHECK(m.qkv_bias == (m.name.rfind("qwen", 0) == 0));
    CHECK(m.params == params_from_shapes(m, m.name.rfind("qwen", 0) == 0));
    CHECK(model_params_from_shapes(m) == static_cast<double>(m.params));  // every shipped model passes, exactly
    CHECK(m.n_heads * m.head_dim == m.hidden_size);
  }
  CHECK(find_model(models, "Llama-3.1-8B").params == 8030261248);
  CHECK(find_model(models, "llama-3.1-70b").params == 70553706496);
  auto gpus = load_gpu_catalog(std::string(LYNX_SOURCE_DIR) + "/models/catalog/gpus.json");
  for (const char* name : {"a100-80gb-sxm", "h100-sxm", "h200-sxm", "ascend-910b"}) CHECK_NOTHROW(find_gpu(gpus, name));
  CHECK(find_gpu(gpus, "H200-SXM").hbm_gb_per_s == 4800);
  CHECK_THROWS_WITH_AS(find_gpu(gpus, "tpu"), doctest::Contains("unknown GPU \"tpu\" (known: a100-80gb-sxm"),
                       LynxError);
}

TEST_CASE("catalog validation names the file and the JSON path") {
  std::string base = R"({"name": "x", "bf16_dense_tflops": 1, "hbm_gb_per_s": 1, "hbm_gb": 1, "nvlink_gb_per_s": 1,
                         "compute_efficiency": 0.5, "memory_efficiency": 0.5, "efficiency_source": "e", "source": "s")";
  std::string ok = write_temp("lynx_gpus_ok.json", R"({"gpus": [)" + base + "}]}");
  CHECK(load_gpu_catalog(ok).size() == 1);
  std::string second = base;  // a complete entry but for one negative value
  second.replace(second.find("\"x\""), 3, "\"y\"");
  second.replace(second.find("\"bf16_dense_tflops\": 1"), 22, "\"bf16_dense_tflops\": -3");
  std::string negative = write_temp("lynx_gpus_neg.json", R"({"gpus": [)" + base + "}, " + second + "}]}");
  CHECK_THROWS_WITH_AS(load_gpu_catalog(negative),
                       doctest::Contains("lynx_gpus_neg.json: $.gpus[1].bf16_dense_tflops: expected a positive number, got -3"),
                       LynxError);
  std::string unknown = write_temp("lynx_gpus_unknown.json", R"({"gpus": [)" + base + R"(, "hbm_tb": 3}]})");
  CHECK_THROWS_WITH_AS(load_gpu_catalog(unknown), doctest::Contains("$.gpus[0].hbm_tb: unknown field"), LynxError);
  std::string over = write_temp("lynx_gpus_over.json",
                                std::string(R"({"gpus": [)") + R"({"name": "x", "bf16_dense_tflops": 1, "hbm_gb_per_s": 1, "hbm_gb": 1, "nvlink_gb_per_s": 1,
                         "compute_efficiency": 1.5, "memory_efficiency": 0.5, "efficiency_source": "e", "source": "s"}]})");
  CHECK_THROWS_WITH_AS(load_gpu_catalog(over), doctest::Contains("$.gpus[0].compute_efficiency: expected a fraction"),
                       LynxError);
  std::string missing = write_temp("lynx_models_missing.json", R"({"models": [{"name": "m", "n_layers": 2}]})");
  // Every missing field at once, with what an entry needs.
  CHECK_THROWS_WITH_AS(load_model_catalog(missing),
                       doctest::Contains("lynx_models_missing.json: $.models[0]: missing fields hidden_size, n_heads, "
                                         "n_kv_heads, head_dim, ffn_size, vocab_size, context_tokens (an entry with "
                                         "shapes needs: name, n_layers,"),
                       LynxError);
  CHECK_THROWS_WITH_AS(load_model_catalog(write_temp("lynx_models_one_missing.json",
                                                     R"({"models": [{"n_layers": 2, "hidden_size": 64, "n_heads": 8,
      "n_kv_heads": 4, "head_dim": 8, "ffn_size": 172, "vocab_size": 512, "context_tokens": 256}]})")),
                       doctest::Contains("$.models[0]: missing field name (an entry with shapes needs:"), LynxError);
  CHECK_THROWS_WITH_AS(load_gpu_catalog(write_temp("lynx_gpus_missing.json",
                                                   R"({"gpus": [{"name": "g", "hbm_gb": 80}]})")),
                       doctest::Contains("lynx_gpus_missing.json: $.gpus[0]: missing fields bf16_dense_tflops, "
                                         "hbm_gb_per_s, nvlink_gb_per_s, compute_efficiency, memory_efficiency, "
                                         "efficiency_source, source (a GPU entry needs:"),
                       LynxError);
  std::string syntax = write_temp("lynx_models_syntax.json", "{\"models\": [\n{,}]}");
  CHECK_THROWS_WITH_AS(load_model_catalog(syntax), doctest::Contains("lynx_models_syntax.json:2:"), LynxError);
  CHECK_THROWS_WITH_AS(load_model_catalog("/nonexistent/models.json"),
                       doctest::Contains("/nonexistent/models.json: cannot open file"), LynxError);
}

namespace {
// A llama-3.1-8b entry with the given params (its true count is 8,030,261,248).
std::string llama8b_entry(const std::string& name, const std::string& params, int64_t context_tokens = 131072) {
  return R"({"name": ")" + name + R"(", "n_layers": 32, "hidden_size": 4096, "n_heads": 32, "n_kv_heads": 8,
            "head_dim": 128, "ffn_size": 14336, "vocab_size": 128256, "params": )" + params +
         R"(, "context_tokens": )" + std::to_string(context_tokens) + R"(, "source": "test"})";
}
}  // namespace

TEST_CASE("a model's params must agree with the count from its shapes within 1%") {
  // The issue's case: a params value far off (here a dropped digit) was accepted and rescaled every step time.
  std::string wrong = write_temp("lynx_models_wrong_params.json",
                                 R"({"models": [)" + llama8b_entry("ok", "8030261248") + ", " +
                                     llama8b_entry("bad", "803026124") + "]}");
  CHECK_THROWS_WITH_AS(load_model_catalog(wrong),
                       doctest::Contains("lynx_models_wrong_params.json: $.models[1].params: params 803,026,124 "
                                         "disagrees with 8,030,261,248 computed from the shapes"),
                       LynxError);
  CHECK_THROWS_WITH_AS(load_model_catalog(wrong), doctest::Contains("by 90.0%; expected within 1%"), LynxError);
  // Within 1% passes (a published figure rounded: 8.03e9 is 0.003% off); just beyond fails.
  CHECK(load_model_catalog(write_temp("lynx_models_rounded.json",
                                      R"({"models": [)" + llama8b_entry("m", "8030000000") + "]}"))
            .at(0)
            .params == 8030000000);
  CHECK(load_model_catalog(write_temp("lynx_models_edge_in.json",
                                      R"({"models": [)" + llama8b_entry("m", "8110563860") + "]}"))
            .size() == 1);  // +0.99999%
  CHECK_THROWS_WITH_AS(load_model_catalog(write_temp("lynx_models_edge_out.json",
                                                     R"({"models": [)" + llama8b_entry("m", "8110600000") + "]}")),
                       doctest::Contains("by 1.0%; expected within 1%"), LynxError);
  // GQA and the tied LM head are counted: stories260k (tied, 8 heads, 4 kv heads) is exactly 260,032.
  ModelSpec tiny;
  tiny.n_layers = 5, tiny.hidden_size = 64, tiny.n_heads = 8, tiny.n_kv_heads = 4, tiny.head_dim = 8;
  tiny.ffn_size = 172, tiny.vocab_size = 512, tiny.tied_embeddings = true;
  CHECK(model_params_from_shapes(tiny) == 260032);
  tiny.tied_embeddings = false;
  CHECK(model_params_from_shapes(tiny) == 260032 + 512 * 64);
  tiny.qkv_bias = true;
  CHECK(model_params_from_shapes(tiny) == 260032 + 512 * 64 + 5 * (64 + 2 * 32));
}

TEST_CASE("a user catalog adds entries and overrides shipped ones by name, whole") {
  const auto shipped = load_model_catalog_with("");
  const ModelSpec& shipped8b = find_model(shipped, "llama-3.1-8b");
  CHECK(shipped8b.file == default_model_catalog_path());
  CHECK_FALSE(shipped8b.overrides);
  std::string user = write_temp("lynx_models_user.json",
                                R"({"models": [)" + llama8b_entry("LLAMA-3.1-8B", "8030261248", 8192) + ", " +
                                    llama8b_entry("my-8b", "8030261248") + "]}");
  const auto merged = load_model_catalog_with(user);
  REQUIRE(merged.size() == shipped.size() + 1);
  // The override keeps the shipped entry's position, takes every field from the user's entry (context 8192, and
  // its source "test": nothing inherited) and says where it came from.
  size_t at = 0;
  while (shipped[at].name != "llama-3.1-8b") ++at;
  CHECK(merged[at].name == "LLAMA-3.1-8B");
  CHECK(merged[at].context_tokens == 8192);
  CHECK(merged[at].source == "test");
  CHECK(merged[at].overrides);
  CHECK(merged[at].file == user);
  CHECK(merged.back().name == "my-8b");
  CHECK_FALSE(merged.back().overrides);
  CHECK(find_model(merged, "qwen2.5-7b").file == default_model_catalog_path());
  // GPUs the same way.
  std::string gpus = write_temp("lynx_gpus_user.json", R"({"gpus": [{"name": "h100-sxm", "bf16_dense_tflops": 500,
      "hbm_gb_per_s": 3000, "hbm_gb": 80, "nvlink_gb_per_s": 450, "compute_efficiency": 0.5, "memory_efficiency": 0.5,
      "efficiency_source": "e", "source": "s"}]})");
  const auto merged_gpus = load_gpu_catalog_with(gpus);
  CHECK(merged_gpus.size() == load_gpu_catalog_with("").size());
  CHECK(find_gpu(merged_gpus, "h100-sxm").bf16_dense_tflops == 500);
  CHECK(find_gpu(merged_gpus, "h100-sxm").fp8_dense_tflops == 0);  // replaced whole: the shipped 1979 is gone
  CHECK(find_gpu(merged_gpus, "h200-sxm").bf16_dense_tflops == 989);
}

TEST_CASE("adding a model takes only its shapes: params is counted from them") {
  // Qwen3-8B's shapes as its config.json gives them (data folder:
  // calibration/aiconfigurator/model_configs/Qwen--Qwen3-8B_config.json): 36 layers, hidden 4096, 32 heads of 128,
  // 8 KV heads, intermediate 12288, vocabulary 151,936, untied, max_position_embeddings 40960; Qwen3 normalises
  // each head's q and k (qk_norm).
  const std::string user = write_temp("lynx_models_qwen3_shapes.json", R"({"models": [{"name": "my-qwen3-8b",
      "n_layers": 36, "hidden_size": 4096, "n_heads": 32, "n_kv_heads": 8, "head_dim": 128, "ffn_size": 12288,
      "vocab_size": 151936, "context_tokens": 40960, "qk_norm": true}]})");
  const auto catalog = load_model_catalog_with(user);
  const ModelSpec& m = find_model(catalog, "my-qwen3-8b");
  // Per layer: q, k, v, o (2 x 4096^2 + 2 x 4096 x 1024) + SwiGLU (3 x 4096 x 12288) + 2 norms (2 x 4096) + q/k
  // norms (2 x 128) = 192,946,432; x 36, + embedding and LM head (2 x 151,936 x 4096) + final norm (4096).
  const int64_t expected = 36 * (2 * 4096LL * 4096 + 2 * 4096LL * 1024 + 3 * 4096LL * 12288 + 2 * 4096 + 2 * 128) +
                           2 * 151936LL * 4096 + 4096;
  CHECK(expected == 8190735360);
  CHECK(m.params == expected);
  CHECK_FALSE(m.params_given);
  CHECK(m.source.empty());
  // Qwen's published 8.2B (the shipped entry's params) is within the check's tolerance of the count.
  CHECK(std::fabs(8.2e9 - static_cast<double>(m.params)) / static_cast<double>(m.params) <= kParamsTolerance);
  // The shipped entry reads the same config.json: the same count (when the data folder is there).
  const ModelSpec& shipped = find_model_entry(catalog, "qwen3-8b");
  if (shipped.unavailable.empty()) CHECK(shipped.params == expected);
}

TEST_CASE("every shipped model's given params agree with the count from its shapes within the tolerance") {
  // The figures as written in the file (an hf_config entry keeps its count, so read them from the JSON itself).
  std::ifstream in(default_model_catalog_path());
  const nlohmann::json file = nlohmann::json::parse(in);
  const auto catalog = load_model_catalog(default_model_catalog_path());
  int checked = 0;
  for (const nlohmann::json& entry : file.at("models")) {
    const ModelSpec& m = find_model_entry(catalog, entry.at("name").get<std::string>());
    CAPTURE(m.name);
    CHECK(entry.contains("source"));  // the shipped entries name where their shapes come from
    if (!m.unavailable.empty() || !entry.contains("params")) continue;  // no data folder: no shapes to count
    const double given = entry.at("params").get<double>(), counted = model_params_from_shapes(m);
    CHECK(std::fabs(given - counted) / counted <= kParamsTolerance);
    ++checked;
  }
  CHECK(checked >= 8);  // the dense shapes-only entries at least
}

TEST_CASE("a catalog read for one model reads that model's config.json and leaves the others' unread, said so") {
  const auto all = load_model_catalog_with("");
  const auto one = load_model_catalog_with("", "QWEN3-8B");
  REQUIRE(one.size() == all.size());
  size_t unread = 0;
  for (size_t i = 0; i < all.size(); ++i) {
    CAPTURE(all[i].name);
    CHECK(one[i].name == all[i].name);
    if (one[i].unavailable.find("read only when it is the model simulated") != std::string::npos) {
      ++unread;
      CHECK(all[i].name != "qwen3-8b");
      CHECK(all[i].unavailable.empty());
      CHECK_THROWS_WITH_AS(find_model(one, all[i].name), doctest::Contains("read only when it is the model simulated"),
                           LynxError);
    } else {
      CHECK(one[i].unavailable == all[i].unavailable);
      CHECK(one[i].params == all[i].params);
      CHECK(one[i].n_layers == all[i].n_layers);
      CHECK(one[i].hidden_size == all[i].hidden_size);
      CHECK(one[i].n_experts == all[i].n_experts);
    }
  }
  CHECK(unread == 7);  // the shipped hf_config entries but qwen3-8b
  CHECK(find_model(one, "qwen3-8b").n_layers == 36);
}
