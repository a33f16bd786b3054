// The roofline cost model against hand-computed closed forms.
#include <doctest/doctest.h>

#include <cmath>

#include "common/error.hpp"
#include "models/arch/attention.hpp"
#include "models/arch/catalog.hpp"
#include "models/arch/moe.hpp"
#include "models/cost/roofline/cost_model.hpp"

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

TEST_CASE("fp8 weights halve the decoder blocks' bytes, keep the embedding table and LM head bf16, and use the fp8 peak") {
  ComputeCostModel bf16(model("llama-3.1-8b"), gpu("h200-sxm"), 1);
  ComputeCostModel fp8(model("llama-3.1-8b"), gpu("h200-sxm"), 1, WeightsDtype::fp8);
  const double table = 128256.0 * 4096;  // vocab x hidden: the embedding table, and the untied LM head
  CHECK(bf16.weight_bytes() == 2.0 * 8030261248.0);
  CHECK(fp8.weight_bytes() == doctest::Approx((8030261248.0 - 2 * table) + 2.0 * (2 * table)).epsilon(1e-12));
  CHECK(model_weight_bytes(model("llama-3.1-8b"), WeightsDtype::fp8) == fp8.weight_bytes());
  CHECK(fp8.peak_flops_per_s() == doctest::Approx(1979e12 * 0.70).epsilon(1e-12));
  // One decode token reads the blocks at 1 byte, the LM head at 2, and one bf16 embedding row.
  const double expected = ((8030261248.0 - 2 * table) + 2.0 * table + 2.0 * 4096) / (4800e9 * 0.86);
  CHECK(fp8.decode_seconds(1, 0, 0) == doctest::Approx(expected).epsilon(1e-12));
}

TEST_CASE("a tied embedding table is kept bf16 once under fp8 weights") {
  ModelSpec tied = model("llama-3.1-8b");
  tied.tied_embeddings = true;
  const double table = 128256.0 * 4096;
  CHECK(bf16_kept_params(tied, WeightsDtype::fp8) == table);
  CHECK(bf16_kept_params(tied, WeightsDtype::bf16) == 0);
  CHECK(model_weight_bytes(tied, WeightsDtype::fp8) == (8030261248.0 - table) + 2.0 * table);
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

namespace {
const ModelSpec& tiny(const std::string& name) {
  static auto models = load_model_catalog(std::string(LYNX_SOURCE_DIR) + "/tests/models/hf_configs/catalog.json");
  return find_model(models, name);
}
}  // namespace

TEST_CASE("MoE decode reads the non-expert weights plus the experts the batch touches, FLOPs from the active ones") {
  const ModelSpec& m = tiny("tiny-moe");
  // Counted by hand (tests/models/hf_configs/tiny-moe_config.json): 4 layers x (attention 256 x (256 + 64 + 64 +
  // 256) + norms 512 + router 256 x 8 + 8 experts x 3 x 256 x 512) + 2 x 1024 x 256 + 256.
  const double expert = 3.0 * 256 * 512;
  CHECK(m.params == 13773056);
  CHECK(model_active_params(m) == 4335872);  // 2 of the 8 experts
  const GpuSpec& g = gpu("h200-sxm");
  ComputeCostModel cost(m, g, 1);
  const double bw = g.hbm_gb_per_s * 1e9 * g.memory_efficiency, peak = g.bf16_dense_tflops * 1e12 * g.compute_efficiency;
  const double table = 2.0 * 1024 * 256, row = 2.0 * 256;
  for (int64_t batch : {1, 3, 64}) {
    CAPTURE(batch);
    const double touched = 8 * (1 - std::pow(0.75, static_cast<double>(batch)));
    const double bytes = 2.0 * (13773056 - 4 * (8 - touched) * expert) - table + std::min(row * static_cast<double>(batch), table) + 1000;
    const double flops = 2.0 * (4335872 - 2 * 1024 * 256) * static_cast<double>(batch) + 2.0 * 1024 * 256 * static_cast<double>(batch) + 4.0 * 8 * 32 * 4 * 500;
    CHECK(cost.decode_seconds(batch, 500, 1000) == doctest::Approx(std::max(bytes / bw, flops / peak)).epsilon(1e-12));
  }
  // Expert parallelism 2 on 2 GPUs: each MoE layer's all-reduce becomes dispatch + combine of the tokens' 2 expert
  // inputs, half of them leaving their GPU, spread over 2 GPUs; a load imbalance of 1.5 scales the expert bytes.
  ComputeCostModel ep(m, g, 2, WeightsDtype::bf16, MoeParallel{2, 1.5});
  const double nv = g.nvlink_gb_per_s * 1e9, T = 100;
  const double allreduce = 2 * 0.5 * T * 256 * 2 / nv, a2a = 2 * (T * 2 * 256 * 2) * 0.5 / 2 / nv;
  CHECK(ep.allreduce_seconds(100) == doctest::Approx(4 * allreduce + 4 * a2a).epsilon(1e-12));
  const double touched = 8 * (1 - std::pow(0.75, 100.0));
  CHECK(ep.weight_bytes_read(100) ==
        doctest::Approx(2.0 * (13773056 - 4 * (8 - touched) * expert + 0.5 * 4 * touched * expert) - table));
  CHECK_THROWS_WITH_AS(ComputeCostModel(m, g, 2, WeightsDtype::bf16, MoeParallel{3, 1}),
                       doctest::Contains("ep: 3 does not divide tp 2"), LynxError);
}

TEST_CASE("MLA: absorbed decode attention over the latent, read whole by every TP rank, plain-form prefill") {
  const ModelSpec& m = tiny("tiny-mla");
  CHECK(m.params == 6863792);
  CHECK(model_active_params(m) == 3324848);
  // Decode pair: QK^T over 64 + 16 latent channels and PV over 64, for 8 heads; prefill: 32 + 16 and 32.
  CHECK(attention_flops_per_pair_decode(m) == 2 * 8 * (64 + 16) + 2 * 8 * 64);
  CHECK(attention_flops_per_pair_prefill(m) == 2 * 8 * (32 + 16) + 2 * 8 * 32);
  const GpuSpec& g = gpu("h200-sxm");
  ComputeCostModel one(m, g, 1), two(m, g, 2);
  const double bw = g.hbm_gb_per_s * 1e9 * g.memory_efficiency;
  const double kv = 1e9;  // enough latent that the step is memory-bound
  const double weights = one.weight_bytes_read(1) + 2.0 * 256;
  CHECK(one.decode_seconds(1, 1000, kv) == doctest::Approx((weights + kv) / bw).epsilon(1e-12));
  // tp 2: the weights split over 2 GPUs, the latent read whole by both.
  const double nv = g.nvlink_gb_per_s * 1e9;
  CHECK(two.decode_seconds(1, 1000, kv) ==
        doctest::Approx((weights + 2 * kv) / (2 * bw) + 2 * 4 * 2 * 0.5 * 256 * 2 / nv).epsilon(1e-12));
}
