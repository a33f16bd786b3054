#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "common/error.hpp"
#include "models/catalog.hpp"

using namespace lynx;

namespace {
std::string write_temp(const std::string& name, const std::string& text) {
  std::string path = (std::filesystem::temp_directory_path() / name).string();
  std::ofstream(path) << text;
  return path;
}
// Parameter count from the shapes (attention + SwiGLU + norms + embeddings (+ classifier) (+ Qwen's qkv bias)).
int64_t params_from_shapes(const ModelSpec& m, bool qkv_bias) {
  int64_t h = m.hidden_size, q = m.n_heads * m.head_dim, kv = m.n_kv_heads * m.head_dim;
  int64_t attention = h * q + 2 * h * kv + q * h + (qkv_bias ? q + 2 * kv : 0);
  int64_t per_layer = attention + 3 * h * m.ffn_size + 2 * h;
  return m.n_layers * per_layer + m.vocab_size * h * (m.tied_embeddings ? 1 : 2) + h;
}
}  // namespace

TEST_CASE("the shipped catalogs load and hold the issue's models and GPUs") {
  auto models = load_model_catalog(std::string(LYNX_SOURCE_DIR) + "/models/catalog/models.json");
  for (const char* name : {"llama-3.1-8b", "llama-3.1-70b", "llama-3.1-405b", "qwen2.5-7b", "qwen2.5-32b",
                           "qwen2.5-72b", "mistral-7b-v0.3", "stories260k"}) {
    const ModelSpec& m = find_model(models, name);
    CAPTURE(name);
    CHECK(m.params == params_from_shapes(m, m.name.rfind("qwen", 0) == 0));
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
  std::string negative = write_temp("lynx_gpus_neg.json", R"({"gpus": [)" + base + "}, " +
                                    R"({"name": "y", "bf16_dense_tflops": -3}]})");
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
  CHECK_THROWS_WITH_AS(load_model_catalog(missing), doctest::Contains("$.models[0].hidden_size: missing field"),
                       LynxError);
  std::string syntax = write_temp("lynx_models_syntax.json", "{\"models\": [\n{,}]}");
  CHECK_THROWS_WITH_AS(load_model_catalog(syntax), doctest::Contains("lynx_models_syntax.json:2:"), LynxError);
  CHECK_THROWS_WITH_AS(load_model_catalog("/nonexistent/models.json"),
                       doctest::Contains("/nonexistent/models.json: cannot open file"), LynxError);
}
