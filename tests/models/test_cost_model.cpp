// The roofline cost model against hand-computed closed forms.
#include <doctest/doctest.h>

#include "common/error.hpp"
#include "models/catalog.hpp"
#include "models/cost_model.hpp"

using namespace lynx;

namespace {
const ModelSpec& model(const char* name) {
  static auto models = load_model_catalog(std::string(LYNX_SOURCE_DIR) + "/models/catalog/models.json");
  return find_model(models, name);
}
const GpuSpec& gpu(const char* name) {
  static auto gpus = load_gpu_catalog(std::string(LYNX_SOURCE_DIR) + "/models/catalog/gpus.json");
  return find_gpu(gpus, name);
}
}  // namespace

TEST_CASE("prefill of Llama-3.1-8B on one H200 is compute-bound: dense + causal attention flops at the catalog's MFU") {
  const GpuSpec& h200 = gpu("h200-sxm");
  CHECK(h200.compute_efficiency == 0.70);  // measured on H100 (gpus.json efficiency_source)
  ComputeCostModel cost(model("llama-3.1-8b"), h200, 1);
  const double T = 32768;
  const double body = 8030261248.0 - 2 * 128256.0 * 4096;            // untied embeddings and classifier
  const double flops = 2 * body * T + 4.0 * 32 * 128 * 32 * (T * (T + 1) / 2) + 2 * 128256.0 * 4096;
  CHECK(cost.prefill_seconds(32768, 0) == doctest::Approx(flops / (989e12 * 0.70)).epsilon(1e-12));
  // ~1.07 s at 70% MFU.
  CHECK(cost.prefill_seconds(32768, 0) == doctest::Approx(1.07).epsilon(0.01));
  // Chunked: the second half attends to the first half too.
  const double second_half = 2 * body * 16384 + 4.0 * 32 * 128 * 32 * (16384.0 * 16384 + 16384.0 * 16385 / 2) +
                             2 * 128256.0 * 4096;
  CHECK(cost.prefill_seconds(16384, 16384) == doctest::Approx(second_half / (989e12 * 0.70)).epsilon(1e-12));
}

TEST_CASE("a decode step is memory-bound: weights without the embedding table, one embedding row, the KV read") {
  ComputeCostModel cost(model("llama-3.1-8b"), gpu("h200-sxm"), 1);
  const double kv = 32768.0 * 131072;  // 32K tokens of bf16 KV
  const double table = 2 * 128256.0 * 4096, row = 2 * 4096.0;
  const double expected = (2 * 8030261248.0 - table + row + kv) / (4800e9 * 0.86);
  CHECK(cost.decode_seconds(1, 32768, kv) == doctest::Approx(expected).epsilon(1e-12));
  CHECK(expected == doctest::Approx(4.88e-3).epsilon(0.01));
}

TEST_CASE("fp8 weights halve the weight bytes and use the fp8 peak") {
  ComputeCostModel bf16(model("llama-3.1-8b"), gpu("h200-sxm"), 1);
  ComputeCostModel fp8(model("llama-3.1-8b"), gpu("h200-sxm"), 1, WeightsDtype::fp8);
  CHECK(fp8.weight_bytes() == doctest::Approx(bf16.weight_bytes() / 2).epsilon(1e-12));
  CHECK(fp8.peak_flops_per_s() == doctest::Approx(1979e12 * 0.70).epsilon(1e-12));
  const double expected = (8030261248.0 - 128256.0 * 4096 + 4096.0) / (4800e9 * 0.86);
  CHECK(fp8.decode_seconds(1, 0, 0) == doctest::Approx(expected).epsilon(1e-12));
}

TEST_CASE("tensor parallelism divides the roofline over the GPUs and adds two ring all-reduces per layer") {
  ComputeCostModel one(model("llama-3.1-70b"), gpu("h100-sxm"), 1), four(model("llama-3.1-70b"), gpu("h100-sxm"), 4);
  const double allreduce = 2.0 * 80 * 2.0 * 3 / 4 * (8192.0 * 8192 * 2) / 450e9;
  CHECK(four.allreduce_seconds(8192) == doctest::Approx(allreduce).epsilon(1e-12));
  CHECK(four.prefill_seconds(8192, 0) == doctest::Approx(one.prefill_seconds(8192, 0) / 4 + allreduce).epsilon(1e-12));
  CHECK(one.allreduce_seconds(8192) == 0);
}

TEST_CASE("a batched prefill reads the weights once") {
  ComputeCostModel cost(model("stories260k"), gpu("h100-sxm"), 1);  // tiny: memory-bound; tied embeddings
  const double one = cost.prefill_seconds(10, 0);
  const double both = cost.prefill_seconds({{10, 0}, {10, 0}});
  CHECK(both < 2 * one);
  CHECK(both == doctest::Approx((2 * 260032.0 + 20 * 640.0) / (3350e9 * 0.86)).epsilon(1e-12));
}
