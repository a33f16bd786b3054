// The engine-composed step cost (models/cost/engine/engine_cost.hpp): a TP 4 decode step of Llama-3.1-70B on H100
// with vLLM 0.24 equals the sum of that engine's table lookups, written out here term by term from the formula
// (not through the model's own component functions); a prefill step likewise; an H200 run reads H200's tables; a
// GPU without tables is derived from the nearest one with latency-bound all-reduces kept; the choice in
// make_step_cost (engine names, coverage, fallbacks).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/error.hpp"
#include "models/cost/compute_model.hpp"
#include "models/cost/engine/aic_database.hpp"
#include "models/readers/csv_table.hpp"
#include "models/cost/engine/engine_cost.hpp"
#include "models/validation/engine_validation.hpp"

#include "tests/models/shipped_catalogs.hpp"

// Its own namespace: in a unity build (CMAKE_UNITY_BUILD, the Makefile's sanitized and fuzz builds) another test
// file's helpers of the same names would share its scope.
namespace test_engine_cost {

using namespace lynx;

namespace {
const std::vector<ModelSpec>& models() { return test::shipped_models(); }
const std::vector<GpuSpec>& gpus() { return test::shipped_gpus(); }
std::string aic_root() { return calibration_dir() + "/aiconfigurator"; }
AicPeaks peaks_of(const GpuSpec& g) { return {g.bf16_dense_tflops, g.fp8_dense_tflops, g.hbm_gb_per_s, g.nvlink_gb_per_s}; }
ComputeChoice engine_choice(ServingEngine engine) {
  ComputeChoice c;
  c.engine = engine;
  return c;
}
}  // namespace

TEST_CASE("engine cost: a TP 4 decode step of Llama-3.1-70B on H100 with vLLM is the sum of its kernels") {
  const ModelSpec& m = find_model(models(), "llama-3.1-70b");
  const GpuSpec& h100 = find_gpu(gpus(), "h100-sxm");
  auto step = make_step_cost(m, h100, gpus(), 4, engine_choice(ServingEngine::vllm));
  REQUIRE(step->source().rfind("engine vllm-0.24", 0) == 0);
  // an independent database on the same tables
  const AicDatabase db(aic_root(), "h100_sxm", ServingEngine::vllm, peaks_of(h100));
  // Llama-3.1-70B: hidden 8192, 64 heads, 8 KV heads, head_dim 128, ffn 28672, vocab 128256, 80 layers; TP 4
  const double batch = 48, context = 3000;
  // element-wise kernels: 3 us each + bytes at 0.8 x 3.35 TB/s (AIConfigurator's memory-bound op model); per token
  // and layer 2 x 4 x 8192 (fused add + RMSNorm) + 2 x (16 + 2) x 128 (RoPE) + 2 x 2 x 2 x 128 (KV write) + 3 x 7168
  // (SiLU-and-mul) bf16 values; per step embedding + final norm 4 x 8192 values per token
  auto elementwise = [](double kernels, double values) { return kernels * 3e-3 + values * 2 / (0.8 * 3350e9) * 1e3; };
  const double layer_values = 2 * 4 * 8192 + 2 * 18 * 128 + 2 * 2 * 2 * 128 + 3 * 7168;
  const double per_layer = db.gemm_ms(batch, (16 + 2 * 2) * 128, 8192)  // qkv
                           + db.gemm_ms(batch, 8192, 16 * 128)           // o
                           + db.gemm_ms(batch, 2 * 28672 / 4, 8192)      // gate + up
                           + db.gemm_ms(batch, 8192, 28672 / 4)          // down
                           + db.generation_attention_ms(batch, context, 16, 2, 128) +
                           2 * db.custom_allreduce_ms(batch * 8192, 4, true) + elementwise(5, batch * layer_values);
  const double expected_ms = 80 * per_layer + db.custom_allreduce_ms(batch * 8192, 4, true) +
                             elementwise(2, batch * 4 * 8192) + db.gemm_ms(batch, 128256.0 / 4, 8192) +
                             0 /* vLLM host overhead, exposed */;
  DecodeWork w;
  w.query_tokens = 48, w.sequences = 48, w.attention_kv_tokens = batch * context;
  CHECK(step->decode_seconds(w) * 1e3 == doctest::Approx(expected_ms).epsilon(1e-12));
  MESSAGE("vLLM TP4 Llama-3.1-70B decode, batch 48 at 3000 tokens, H100: " << expected_ms << " ms");
  // the same step again (kept query terms) is the same double
  CHECK(step->decode_seconds(w) == step->decode_seconds(w));
  // a prefill of two prompts: context attention per prompt, eager all-reduce, LM head at one token per prompt
  const double t = 3000;
  const double prefill_layer = db.gemm_ms(t, 20 * 128, 8192) + db.gemm_ms(t, 8192, 2048) +
                               db.gemm_ms(t, 14336, 8192) + db.gemm_ms(t, 8192, 7168) +
                               db.context_attention_ms(1, 1000, 16, 2, 128) +
                               db.context_attention_ms(1, 2000, 16, 2, 128) +
                               2 * db.custom_allreduce_ms(t * 8192, 4, false) + elementwise(5, t * layer_values);
  const double prefill_ms = 80 * prefill_layer + db.custom_allreduce_ms(t * 8192, 4, false) +
                            elementwise(2, t * 4 * 8192) + db.gemm_ms(2, 32064, 8192);
  CHECK(step->prefill_seconds({{1000, 0}, {2000, 0}}) * 1e3 == doctest::Approx(prefill_ms).epsilon(1e-12));
  // a chunk after cached tokens: the time at 1500 scaled by its query-key pairs
  const auto* engine = dynamic_cast<const EngineCostModel*>(step.get());
  REQUIRE(engine);
  CHECK(engine->context_attention_ms(500, 1000) ==
        doctest::Approx(db.context_attention_ms(1, 1500, 16, 2, 128) * (500.0 * 1000 + 500.0 * 501 / 2) /
                        (1500.0 * 1501 / 2))
            .epsilon(1e-12));
}

TEST_CASE("engine cost: under fp8 weights the LM head keeps its bf16 GEMM and the tables list both GEMM families") {
  const ModelSpec& m = find_model(models(), "llama-3.1-70b");
  const GpuSpec& h100 = find_gpu(gpus(), "h100-sxm");
  auto db = std::make_shared<const AicDatabase>(aic_root(), "h100_sxm", ServingEngine::trtllm, peaks_of(h100));
  const EngineCostModel fp8(m, h100, 4, WeightsDtype::fp8, db, h100, true);
  const AicDatabase same(aic_root(), "h100_sxm", ServingEngine::trtllm, peaks_of(h100));
  CHECK(fp8.lm_head_ms(48) == same.gemm_ms(48, 128256.0 / 4, 8192, AicGemmDtype::bf16));
  CHECK(fp8.lm_head_ms(48) != same.gemm_ms(48, 128256.0 / 4, 8192, AicGemmDtype::fp8));
  // the blocks' GEMMs are fp8 with static input scales (the catalog's checkpoint: no activation_scheme "dynamic"):
  // the per-tensor rows less their dynamic input quantization
  REQUIRE_FALSE(m.dynamic_fp8_activations);
  const double layer = same.static_fp8_gemm_ms(48, 20 * 128, 8192) + same.static_fp8_gemm_ms(48, 8192, 2048) +
                       same.static_fp8_gemm_ms(48, 14336, 8192) + same.static_fp8_gemm_ms(48, 8192, 7168);
  CHECK(fp8.layer_gemms_ms(48) == layer);
  const double rows = same.gemm_ms(48, 20 * 128, 8192, AicGemmDtype::fp8) +
                      same.gemm_ms(48, 8192, 2048, AicGemmDtype::fp8) +
                      same.gemm_ms(48, 14336, 8192, AicGemmDtype::fp8) + same.gemm_ms(48, 8192, 7168, AicGemmDtype::fp8);
  CHECK(layer < rows);
  // a checkpoint that scales its inputs at run time reads the rows as measured
  ModelSpec dynamic = m;
  dynamic.dynamic_fp8_activations = true;
  CHECK(EngineCostModel(dynamic, h100, 4, WeightsDtype::fp8, db, h100, true).layer_gemms_ms(48) == rows);
  const auto families = fp8.table_families();
  CHECK(std::count(families.begin(), families.end(), "gemm_fp8") == 1);
  CHECK(std::count(families.begin(), families.end(), "gemm") == 1);
  // weights: the blocks at 1 byte, the embedding table and LM head (128256 x 8192 each) at 2
  CHECK(fp8.weight_bytes() == (70553706496.0 - 2 * 128256.0 * 8192) + 2.0 * (2 * 128256.0 * 8192));
}

TEST_CASE("engine cost: H200 reads H200 tables, SGLang and TRT-LLM read their own") {
  const ModelSpec& m = find_model(models(), "llama-3.1-8b");
  auto h200 = make_step_cost(m, find_gpu(gpus(), "h200-sxm"), gpus(), 2, engine_choice(ServingEngine::vllm));
  CHECK(h200->source().find("on h200_sxm") != std::string::npos);
  CHECK(h200->source().find("aiconfigurator h200_sxm/gemm/vllm/0.24.0/gemm_perf.parquet") != std::string::npos);
  CHECK(h200->source().find("derived") == std::string::npos);
  auto h100 = make_step_cost(m, find_gpu(gpus(), "h100-sxm"), gpus(), 2, engine_choice(ServingEngine::vllm));
  DecodeWork w;
  w.query_tokens = 32, w.sequences = 32, w.attention_kv_tokens = 32 * 2048.0;
  // H200's 4.8 TB/s against H100's 3.35: a memory-bound decode step is faster
  CHECK(h200->decode_seconds(w) < h100->decode_seconds(w));
  auto sglang = make_step_cost(m, find_gpu(gpus(), "h200-sxm"), gpus(), 2, engine_choice(ServingEngine::sglang));
  CHECK(sglang->source().find("sglang/0.5.14/custom_allreduce_perf.parquet") != std::string::npos);
  CHECK(sglang->source().find("lmsys.org/blog/2024-12-04-sglang-v0-4") != std::string::npos);
  auto trt = make_step_cost(m, find_gpu(gpus(), "h200-sxm"), gpus(), 2, engine_choice(ServingEngine::trtllm));
  CHECK(trt->source().find("trtllm/1.3.0rc20/gemm_perf.parquet") != std::string::npos);
  // every engine's step is a positive time of the same order (the same kernels' work)
  for (const auto& s : {sglang, trt}) {
    const double ratio = s->decode_seconds(w) / h200->decode_seconds(w);
    CHECK(ratio > 0.5);
    CHECK(ratio < 2.0);
  }
}

TEST_CASE("engine cost: coverage and errors") {
  const GpuSpec& h100 = find_gpu(gpus(), "h100-sxm");
  // a name that is no engine is refused by the configuration's reader (test_run_config); the engine-composed model
  // itself refuses the one engine AIConfigurator did not measure
  CHECK_THROWS_WITH_AS(make_engine_cost(find_model(models(), "llama-3.1-8b"), h100, gpus(), 1, WeightsDtype::bf16,
                                        ServingEngine::vidur_2024, calibration_dir()),
                       "engine \"vidur-2024\": not one of vllm-0.24, sglang-0.5.14, trtllm-1.3", LynxError);
  // the default engine name is today's model
  auto vidur = make_step_cost(find_model(models(), "llama-3.1-8b"), h100, gpus(), 1, engine_choice(ServingEngine::vidur_2024));
  CHECK(vidur->source().rfind("profiled", 0) == 0);
  // an MLA model of heads the tables did not measure is not composed: roofline under auto, an error under profiled
  ModelSpec other = find_model(models(), "deepseek-v3");
  other.kv_lora_rank = 256;
  auto mla = make_step_cost(other, h100, gpus(), 8, engine_choice(ServingEngine::sglang));
  CHECK(mla->source().find("the MLA tables measured DeepSeek-V3's heads (kv_lora_rank 512, qk_rope 64, qk_nope 128, "
                           "v 128), not deepseek-v3's (256, 64, 128, 128)") != std::string::npos);
  ComputeChoice required = engine_choice(ServingEngine::sglang);
  required.model = ComputeModelKind::profiled;
  CHECK_THROWS_AS(make_step_cost(other, h100, gpus(), 8, required), LynxError);
  // vLLM's module tables hold DeepSeek-V3's own projections: another hidden size is not composed there
  ModelSpec narrow = find_model(models(), "deepseek-v3");
  narrow.hidden_size = 5120;
  CHECK(make_step_cost(narrow, h100, gpus(), 8, engine_choice(ServingEngine::vllm))->source().find(
            "vLLM's MLA tables measured DeepSeek-V3's whole attention module") != std::string::npos);
  CHECK(make_step_cost(narrow, h100, gpus(), 8, engine_choice(ServingEngine::sglang))->source().rfind("engine sglang", 0) == 0);
  // a sliding-window model is not composed either
  auto gpt_oss = make_step_cost(find_model(models(), "gpt-oss-120b"), h100, gpus(), 4, engine_choice(ServingEngine::vllm));
  CHECK(gpt_oss->source().find("sliding windows") != std::string::npos);
  ComputeChoice roof = engine_choice(ServingEngine::vllm);
  roof.model = ComputeModelKind::roofline;
  CHECK(make_step_cost(find_model(models(), "llama-3.1-8b"), h100, gpus(), 1, roof)->source().rfind("roofline", 0) == 0);
}

TEST_CASE("engine cost: a GPU without tables is derived kernel by kernel, latency-bound all-reduces keep their floor") {
  const ModelSpec& m = find_model(models(), "llama-3.1-70b");
  const GpuSpec& h100 = find_gpu(gpus(), "h100-sxm");
  const GpuSpec& h800 = find_gpu(gpus(), "h800-sxm");  // H100's compute and HBM, NVLink 200 GB/s per direction
  auto measured = make_step_cost(m, h100, gpus(), 4, engine_choice(ServingEngine::vllm));
  auto derived = make_step_cost(m, h800, gpus(), 4, engine_choice(ServingEngine::vllm));
  CHECK(derived->source().find("h800-sxm derived from h100-sxm") != std::string::npos);
  CHECK(derived->source().find("3 us launch floor") != std::string::npos);
  const auto* a = dynamic_cast<const EngineCostModel*>(measured.get());
  const auto* b = dynamic_cast<const EngineCostModel*>(derived.get());
  REQUIRE(a);
  REQUIRE(b);
  // same peaks and HBM: GEMMs, attention and element-wise kernels are H100's
  CHECK(b->layer_elementwise_ms(64) == doctest::Approx(a->layer_elementwise_ms(64)).epsilon(1e-12));
  CHECK(b->layer_gemms_ms(64) == doctest::Approx(a->layer_gemms_ms(64)).epsilon(1e-12));
  CHECK(b->generation_attention_ms(64, 2048) == doctest::Approx(a->generation_attention_ms(64, 2048)).epsilon(1e-12));
  // an all-reduce keeps a 5 us floor and scales the rest by NVLink, 450 / 200 GB/s: a decode all-reduce of 8 tokens
  // (128 KiB) stays near its time, a prefill one of 4096 tokens (64 MiB) nears the 2.25x ratio
  const double small = a->allreduce_ms(8, true), large = a->allreduce_ms(4096, false);
  CHECK(b->allreduce_ms(8, true) == doctest::Approx(std::min(small, 5e-3) + (small - std::min(small, 5e-3)) * 2.25));
  CHECK(b->allreduce_ms(8, true) / small < 1.5);
  CHECK(b->allreduce_ms(4096, false) / large > 2.1);
  // H20: tensor peak 148 TFLOP/s against 989, FP32 44 against 67, HBM 4.0 TB/s against 3.35. A prefill layer's GEMMs
  // at 8,192 tokens grow by less than the tensor ratio (6.7x): the part of the H100's time that is not math grows
  // by the FP32 ratio only, so the H20 runs them nearer its peak than the H100 runs them; a decode step's GEMMs
  // (memory-bound) do not grow at all.
  auto h20 = make_step_cost(m, find_gpu(gpus(), "h20"), gpus(), 4, engine_choice(ServingEngine::vllm));
  const auto* c = dynamic_cast<const EngineCostModel*>(h20.get());
  REQUIRE(c);
  CHECK(h20->source().find("h20 derived from h100-sxm") != std::string::npos);
  const EngineShapes& sh = a->shapes();
  double nk = 0;
  for (const GemmShape& g : {sh.qkv, sh.o, sh.gate_up, sh.down}) nk += g.n * g.k;
  const double flops = 2 * 8192 * nk;
  const double h100_fraction = flops / (a->layer_gemms_ms(8192) * 1e-3) / 989e12;
  const double h20_fraction = flops / (c->layer_gemms_ms(8192) * 1e-3) / 148e12;
  CAPTURE(h100_fraction);
  CAPTURE(h20_fraction);
  CHECK(h20_fraction > h100_fraction);
  CHECK(h20_fraction < 1);
  CHECK(c->layer_gemms_ms(8192) / a->layer_gemms_ms(8192) < 989.0 / 148);
  CHECK(c->layer_gemms_ms(1) / a->layer_gemms_ms(1) < 1.05);
  // A100 has no table: derived from H100 as well
  auto a100 = make_step_cost(m, find_gpu(gpus(), "a100-80gb-sxm"), gpus(), 4, engine_choice(ServingEngine::sglang));
  CHECK(a100->source().find("a100-80gb-sxm derived from h100-sxm") != std::string::npos);
}

TEST_CASE("engine validation: the published rows parse, each cited, and a row is predicted by its closed form") {
  ValidationReport report;
  add_engine_validation(report, std::string(LYNX_SOURCE_DIR) + "/models/validation", calibration_dir(),
                        std::string(LYNX_SOURCE_DIR) + "/models/catalog/models.json",
                        std::string(LYNX_SOURCE_DIR) + "/models/catalog/gpus.json");
  int included = 0;
  for (const ValidationRow& r : report.rows) {
    CHECK(r.source.find("https://") == 0);
    CHECK(r.measured_ms > 0);
    CHECK(r.predicted_ms > 0);
    included += r.excluded.empty();
  }
  CHECK(report.rows.size() >= 25);
  CHECK(included >= 20);
  // H100, TRT-LLM, Llama-2-70B TP 4, first token of 2048 tokens: the prefill of one 2048-token prompt with fp8
  // weights and KV from trtllm-1.3's tables
  const ValidationRow* row = nullptr;
  for (const ValidationRow& r : report.rows)
    if (r.condition == "llama-2-70b TP4 first token at input 2048" && r.group.rfind("H100", 0) == 0) row = &r;
  REQUIRE(row);
  CHECK(row->measured_ms == 109);
  auto step = make_engine_cost(find_model(models(), "llama-2-70b"), find_gpu(gpus(), "h100-sxm"), gpus(), 4,
                               WeightsDtype::fp8, ServingEngine::trtllm, calibration_dir(), true);
  CHECK(row->predicted_ms == doctest::Approx(step->prefill_seconds({{2048, 0}}) * 1e3).epsilon(1e-12));
  // a group per (GPU, engine, phase, TP, published engine), each once
  std::set<std::string> names;
  for (const ValidationGroup& g : report.groups) CHECK(names.insert(g.group).second);
}

TEST_CASE("engine validation: a malformed file is one error naming the file and line") {
  const std::string dir = std::string(LYNX_BINARY_DIR) + "/test_engine_validation_bad";
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir + "/x_published.tsv");
    out << "# comment\n"
        << "measured_engine\tengine\tgpu\tmodel\ttp\tweights\tkv\tkind\tbatch\tisl\tosl\tmeasured\tunit\texcluded\t"
           "citation\n"
        << "e\ttrtllm-1.3\th100-sxm\tllama-2-7b\t1\tbf16\tbf16\tfirst_token\t1\t128\t1\t-3\tms\t-\thttps://x\n";
  }
  ValidationReport report;
  CHECK_THROWS_WITH_AS(add_engine_validation(report, dir, calibration_dir(),
                                             std::string(LYNX_SOURCE_DIR) + "/models/catalog/models.json",
                                             std::string(LYNX_SOURCE_DIR) + "/models/catalog/gpus.json"),
                       doctest::Contains("x_published.tsv:3: column measured: \"-3\" is not a positive number"),
                       LynxError);
  std::filesystem::remove_all(dir);
}

TEST_CASE("engine cost: a Mixtral-8x7B decode step at TP 2 is its attention, fused MoE, router and all-reduces") {
  const ModelSpec& m = find_model(models(), "mixtral-8x7b");
  const GpuSpec& h100 = find_gpu(gpus(), "h100-sxm");
  auto step = make_step_cost(m, h100, gpus(), 2, engine_choice(ServingEngine::vllm));
  REQUIRE(step->source().rfind("engine vllm-0.24", 0) == 0);
  const AicDatabase db(aic_root(), "h100_sxm", ServingEngine::vllm, peaks_of(h100));
  // Mixtral-8x7B: 32 layers, hidden 4096, 32 heads, 8 KV heads, 128, experts 8 x 14336, top-2, vocab 32000; TP 2
  const double b = 16, context = 1000;
  auto elementwise = [](double kernels, double values) { return kernels * 3e-3 + values * 2 / (0.8 * 3350e9) * 1e3; };
  const double layer_values = 2 * 4 * 4096 + 2 * (16 + 4) * 128 + 2 * 2 * 4 * 128 + 3 * 7168;
  const double layer = db.gemm_ms(b, (16 + 2 * 4) * 128, 4096) + db.gemm_ms(b, 4096, 16 * 128) +
                       db.moe_ms(b, 4096, 14336, 2, 8, 2, 1) + db.gemm_ms(b, 8, 4096) +
                       db.generation_attention_ms(b, context, 16, 4, 128) +
                       2 * db.custom_allreduce_ms(b * 4096, 2, true) + elementwise(5, b * layer_values);
  const double expected_ms = 32 * layer + db.custom_allreduce_ms(b * 4096, 2, true) + elementwise(2, b * 4 * 4096) +
                             db.gemm_ms(b, 16000, 4096);
  DecodeWork w;
  w.query_tokens = 16, w.sequences = 16, w.attention_kv_tokens = b * context;
  CHECK(step->decode_seconds(w) * 1e3 == doctest::Approx(expected_ms).epsilon(1e-12));
  CHECK(db.grid("moe:bfloat16").points() > 0);
}

TEST_CASE("engine cost: kernel family factors scale each family's kernels, element-wise kernels unchanged") {
  const ModelSpec& m = find_model(models(), "mixtral-8x7b");
  const GpuSpec& h100 = find_gpu(gpus(), "h100-sxm");
  ComputeChoice choice = engine_choice(ServingEngine::vllm);
  choice.kernel_family_factors[KernelFamily::gemm] = 1.25;
  choice.kernel_family_factors[KernelFamily::generation_attention] = 1.5;
  choice.kernel_family_factors[KernelFamily::moe] = 2;
  choice.kernel_family_factors[KernelFamily::allreduce] = 0.5;
  choice.kernel_family_factors[KernelFamily::context_attention] = 3;  // no context in a decode step
  auto step = make_step_cost(m, h100, gpus(), 2, choice);
  const AicDatabase db(aic_root(), "h100_sxm", ServingEngine::vllm, peaks_of(h100));
  // the Mixtral decode step above, each kernel at its family's factor (the router is a GEMM)
  const double b = 16, context = 1000;
  auto elementwise = [](double kernels, double values) { return kernels * 3e-3 + values * 2 / (0.8 * 3350e9) * 1e3; };
  const double layer_values = 2 * 4 * 4096 + 2 * (16 + 4) * 128 + 2 * 2 * 4 * 128 + 3 * 7168;
  const double layer = 1.25 * (db.gemm_ms(b, (16 + 2 * 4) * 128, 4096) + db.gemm_ms(b, 4096, 16 * 128) +
                               db.gemm_ms(b, 8, 4096)) +
                       2 * db.moe_ms(b, 4096, 14336, 2, 8, 2, 1) + 1.5 * db.generation_attention_ms(b, context, 16, 4, 128) +
                       0.5 * 2 * db.custom_allreduce_ms(b * 4096, 2, true) + elementwise(5, b * layer_values);
  const double expected_ms = 32 * layer + 0.5 * db.custom_allreduce_ms(b * 4096, 2, true) +
                             elementwise(2, b * 4 * 4096) + 1.25 * db.gemm_ms(b, 16000, 4096);
  DecodeWork w;
  w.query_tokens = 16, w.sequences = 16, w.attention_kv_tokens = b * context;
  CHECK(step->decode_seconds(w) * 1e3 == doctest::Approx(expected_ms).epsilon(1e-12));
  // a prefill chunk's context attention at its factor
  const EngineCostModel& engine = dynamic_cast<const EngineCostModel&>(*step);
  CHECK(engine.context_attention_ms(500, 1000) ==
        doctest::Approx(3 * db.context_attention_ms(1, 1500, 16, 4, 128) * (500.0 * 1000 + 500.0 * 501 / 2) /
                        (1500.0 * 1501 / 2))
            .epsilon(1e-12));
}

TEST_CASE("engine cost: preload_tables reads the tables a prefill and a decode step read, no more, no other") {
  const GpuSpec& h100 = find_gpu(gpus(), "h100-sxm");
  struct Case {
    const char* model;
    int tp;
    WeightsDtype weights;
    bool fp8_kv;
  };
  for (const Case& c : {Case{"llama-3.1-8b", 1, WeightsDtype::bf16, false}, Case{"llama-3.1-70b", 4, WeightsDtype::bf16, true},
                        Case{"llama-3.1-70b", 2, WeightsDtype::fp8, false}, Case{"mixtral-8x7b", 2, WeightsDtype::bf16, false}}) {
    CAPTURE(c.model);
    CAPTURE(c.tp);
    const ModelSpec& m = find_model(models(), c.model);
    auto fresh = [&] { return std::make_shared<const AicDatabase>(aic_root(), "h100_sxm", ServingEngine::vllm, peaks_of(h100)); };
    auto used = fresh(), preloaded = fresh();
    const EngineCostModel run(m, h100, c.tp, c.weights, used, h100, c.fp8_kv);
    const EngineCostModel warm(m, h100, c.tp, c.weights, preloaded, h100, c.fp8_kv);
    // what one prefill (with a cached prefix) and one decode step look up
    const double prefill = run.prefill_seconds({{512, 256}});
    DecodeWork w;
    w.query_tokens = 8, w.sequences = 8, w.attention_kv_tokens = 8 * 1000;
    const double decode = run.decode_seconds(w);
    warm.preload_tables();
    CHECK(preloaded->families_loaded() == used->families_loaded());
    const std::vector<std::string> families = warm.table_families();
    CHECK(std::set<std::string>(families.begin(), families.end()).size() == used->tables_loaded());
    // and preloading changes no result
    CHECK(warm.prefill_seconds({{512, 256}}) == prefill);
    CHECK(warm.decode_seconds(w) == decode);
    CHECK(preloaded->families_loaded() == used->families_loaded());
  }
}

namespace {
// DeepSeek-V3's shapes as the tests below write them out (checked against the catalog's entry first).
void require_deepseek_v3_shapes(const ModelSpec& m) {
  REQUIRE(m.attention == AttentionKind::mla);
  REQUIRE(m.n_layers == 61);
  REQUIRE(m.dense_layers == 3);
  REQUIRE(m.hidden_size == 7168);
  REQUIRE(m.n_heads == 128);
  REQUIRE(m.q_lora_rank == 1536);
  REQUIRE(m.kv_lora_rank == 512);
  REQUIRE(m.qk_nope_head_dim == 128);
  REQUIRE(m.qk_rope_head_dim == 64);
  REQUIRE(m.v_head_dim == 128);
  REQUIRE(m.ffn_size == 18432);
  REQUIRE(m.n_experts == 256);
  REQUIRE(m.experts_per_token == 8);
  REQUIRE(m.expert_ffn_size == 2048);
  REQUIRE(m.shared_ffn_size == 2048);
  REQUIRE(m.vocab_size == 129280);
}
}  // namespace

TEST_CASE("engine cost: a DeepSeek-V3 decode step at TP 8 with SGLang is its MLA kernels, BMMs, GEMMs and MoE") {
  const ModelSpec& m = find_model(models(), "deepseek-v3");
  require_deepseek_v3_shapes(m);
  const GpuSpec& h100 = find_gpu(gpus(), "h100-sxm");
  auto step = make_step_cost(m, h100, gpus(), 8, engine_choice(ServingEngine::sglang));
  REQUIRE(step->source().rfind("engine sglang-0.5.14", 0) == 0);
  CHECK(step->source().find("mla/sglang/0.5.14/generation_mla_perf.parquet") != std::string::npos);
  const AicDatabase db(aic_root(), "h100_sxm", ServingEngine::sglang, peaks_of(h100));
  const double b = 32, context = 4000;
  auto elementwise = [](double kernels, double values) { return kernels * 3e-3 + values * 2 / (0.8 * 3350e9) * 1e3; };
  // per layer and token: 2 fused add + RMSNorm (4 x 7168), SiLU-and-mul (3 x 18432 / 8), the latents' RMSNorms
  // (2 x (1536 + 512)), RoPE on 16 query heads' and the key's 64 rope channels (2 x 17 x 64), the latent's cache
  // write (2 x 576): 7 kernels
  const double layer_values = 2 * 4 * 7168 + 3 * 18432 / 8 + 2 * (1536 + 512) + 2 * 17 * 64 + 2 * 576;
  const double attention = db.gemm_ms(b, 1536 + 512 + 64, 7168)  // down (q_a + kv_a, replicated)
                           + db.gemm_ms(b, 16 * 192, 1536)        // query-up
                           + db.mla_bmm_ms(b, 16, true) + db.mla_generation_ms(b, context, 16) +
                           db.mla_bmm_ms(b, 16, false) + db.gemm_ms(b, 7168, 16 * 128);  // output
  const double per_layer = attention + 2 * db.custom_allreduce_ms(b * 7168, 8, true) + elementwise(7, b * layer_values);
  const double dense_mlp = db.gemm_ms(b, 2 * 18432 / 8, 7168) + db.gemm_ms(b, 7168, 18432 / 8);
  const double moe_mlp = db.moe_ms(b, 7168, 2048, 8, 256, 8, 1) + db.gemm_ms(b, 256, 7168) +
                         db.gemm_ms(b, 2 * 2048 / 8, 7168) + db.gemm_ms(b, 7168, 2048 / 8);
  const double expected_ms = 61 * per_layer + 3 * dense_mlp + 58 * moe_mlp + db.custom_allreduce_ms(b * 7168, 8, true) +
                             elementwise(2, b * 4 * 7168) + db.gemm_ms(b, 129280.0 / 8, 7168) +
                             engine_host_overhead(ServingEngine::sglang).per_step_ms;
  DecodeWork w;
  w.query_tokens = 32, w.sequences = 32, w.attention_kv_tokens = b * context;
  CHECK(step->decode_seconds(w) * 1e3 == doctest::Approx(expected_ms).epsilon(1e-12));
  DecodeWork one;
  one.query_tokens = 1, one.sequences = 1, one.attention_kv_tokens = context;
  MESSAGE("SGLang TP8 DeepSeek-V3 decode on H100: batch 32 at 4000 tokens " << expected_ms << " ms, batch 1 "
          << step->decode_seconds(one) * 1e3 << " ms");
  // a decode step of the same batch as an in-flight-batching iteration is the same sum
  CHECK(dynamic_cast<const EngineCostModel&>(*step).iteration_seconds({}, w, 32) ==
        doctest::Approx(step->decode_seconds(w)).epsilon(1e-12));
}

TEST_CASE("engine cost: a DeepSeek-V3 prefill at TP 8 with vLLM is its MLA module, MoE and all-reduces") {
  const ModelSpec& m = find_model(models(), "deepseek-v3");
  require_deepseek_v3_shapes(m);
  const GpuSpec& h100 = find_gpu(gpus(), "h100-sxm");
  auto step = make_step_cost(m, h100, gpus(), 8, engine_choice(ServingEngine::vllm));
  REQUIRE(step->source().rfind("engine vllm-0.24", 0) == 0);
  CHECK(step->source().find("mla_context_module_perf.parquet") != std::string::npos);
  const AicDatabase db(aic_root(), "h100_sxm", ServingEngine::vllm, peaks_of(h100));
  // the module table's rows name the backend vLLM ran: FLASH_ATTN_MLA up to 512 tokens, FLASH_ATTN from 1024 (H100,
  // batch 1, 16 heads: 0.1884 and 0.5747 ms measured); both are the module's grid
  CHECK(db.mla_context_ms(1, 512, 16) == doctest::Approx(0.1884).epsilon(1e-9));
  CHECK(db.mla_context_ms(1, 3072, 16) == doctest::Approx(0.5747).epsilon(1e-9));
  CHECK(db.source(AicDatabase::mla_family(true, false, false)).find("(FLASH_ATTN_MLA+FLASH_ATTN,") != std::string::npos);
  const double n = 3000;
  auto elementwise = [](double kernels, double values) { return kernels * 3e-3 + values * 2 / (0.8 * 3350e9) * 1e3; };
  // the module holds the projections, norms of the latents, RoPE and the cache write: 3 kernels outside it
  const double per_layer = db.mla_context_ms(1, n, 16) + 2 * db.custom_allreduce_ms(n * 7168, 8, false) +
                           elementwise(3, n * (2 * 4 * 7168 + 3 * 18432 / 8));
  const double dense_mlp = db.gemm_ms(n, 2 * 18432 / 8, 7168) + db.gemm_ms(n, 7168, 18432 / 8);
  const double moe_mlp = db.moe_ms(n, 7168, 2048, 8, 256, 8, 1) + db.gemm_ms(n, 256, 7168) +
                         db.gemm_ms(n, 2 * 2048 / 8, 7168) + db.gemm_ms(n, 7168, 2048 / 8);
  const double expected_ms = 61 * per_layer + 3 * dense_mlp + 58 * moe_mlp + db.custom_allreduce_ms(n * 7168, 8, false) +
                             elementwise(2, n * 4 * 7168) + db.gemm_ms(1, 129280.0 / 8, 7168) +
                             engine_host_overhead(ServingEngine::vllm).per_step_ms;
  CHECK(step->prefill_seconds({{3000, 0}}) * 1e3 == doctest::Approx(expected_ms).epsilon(1e-12));
  MESSAGE("vLLM TP8 DeepSeek-V3 prefill of 3000 tokens on H100: " << expected_ms << " ms");
  // and a decode step reads the generation module
  DecodeWork w;
  w.query_tokens = 8, w.sequences = 8, w.attention_kv_tokens = 8 * 2000;
  const double decode_attention = 61 * db.mla_generation_ms(8, 2000, 16);
  CHECK(step->decode_seconds(w) * 1e3 > decode_attention);
}

TEST_CASE("engine cost: the MLA composition of kernels and projections predicts TRT-LLM's own whole-module tables") {
  // TensorRT-LLM also measured DeepSeek-V3's whole attention module (mla_*_module_perf, projections included), which
  // the composition does not read: it is an independent check of the sum of GEMMs, MLA kernel and absorbed BMMs.
  // Every bf16 point at 128, 32 and 16 heads per GPU (TP 1, 4, 8) of batch 1 (prefill: the model composes one
  // sequence at a time) or any batch (decode), on H100 and H200. Measured: decode median 4.0%, max 21%; prefill
  // median 8.7%, max 26% (the composition is lower, most at short contexts: the module's own norms and RoPE are
  // element-wise kernels here). Before glitches were dropped (aic_grid.hpp), two H200 rows 100x their neighbours
  // made the decode maximum 900%.
  const ModelSpec& m = find_model(models(), "deepseek-v3");
  require_deepseek_v3_shapes(m);
  std::vector<double> decode_err, prefill_err;
  for (const char* gpu_name : {"h100-sxm", "h200-sxm"}) {
    const GpuSpec& gpu = find_gpu(gpus(), gpu_name);
    const std::string folder = aic_gpu_folder(gpu_name);
    auto db = std::make_shared<const AicDatabase>(aic_root(), folder, ServingEngine::trtllm, peaks_of(gpu));
    const std::string dir = aic_root() + "/systems/data/" + folder + "/mla/trtllm/1.3.0rc20/";
    const std::vector<std::pair<std::string, std::string>> bf16 = {
        {"mla_dtype", "bfloat16"}, {"kv_cache_dtype", "bfloat16"}, {"gemm_type", "bfloat16"}};
    const auto gen = aic_points_from_table(dir + "mla_generation_module_perf.parquet", bf16, {},
                                           {"num_heads", "batch_size", "isl+step"}, nullptr);
    const auto ctx = aic_points_from_table(dir + "mla_context_module_perf.parquet", bf16, {},
                                           {"num_heads", "batch_size", "isl"}, nullptr);
    for (int tp : {1, 4, 8}) {
      const EngineCostModel model(m, gpu, tp, WeightsDtype::bf16, db, gpu);
      const double heads = 128.0 / tp;
      for (const AicPoint& p : gen) {
        if (p.x[0] != heads) continue;
        const double b = p.x[1], kv = p.x[2];
        const double ms = model.attention_gemms_ms(0, b) + model.generation_attention_ms(b, kv);
        decode_err.push_back(std::abs(ms / p.ms - 1));
      }
      for (const AicPoint& p : ctx) {
        if (p.x[0] != heads || p.x[1] != 1) continue;
        const double s = p.x[2];
        const double ms = model.attention_gemms_ms(s, 0) + model.context_attention_ms(s, 0);
        prefill_err.push_back(std::abs(ms / p.ms - 1));
      }
    }
  }
  REQUIRE(decode_err.size() > 500);
  REQUIRE(prefill_err.size() > 50);
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  const double decode_max = *std::max_element(decode_err.begin(), decode_err.end());
  const double prefill_max = *std::max_element(prefill_err.begin(), prefill_err.end());
  MESSAGE("MLA composition vs TRT-LLM's module tables: decode " << decode_err.size() << " points, median "
                                                               << median(decode_err) << ", max " << decode_max
                                                               << "; prefill " << prefill_err.size()
                                                               << " points, median " << median(prefill_err)
                                                               << ", max " << prefill_max);
  CHECK(median(decode_err) < 0.06);
  CHECK(decode_max < 0.25);
  CHECK(median(prefill_err) < 0.12);
  CHECK(prefill_max < 0.3);
}

TEST_CASE("engine cost: a block-scaled fp8 checkpoint (DeepSeek-V3) reads the engines' fp8_block GEMM and MoE rows") {
  // DeepSeek-V3's config.json names quantization_config.weight_block_size [128, 128]; Qwen3-235B-A22B's names none
  const ModelSpec& m = find_model(models(), "deepseek-v3");
  CHECK(m.block_scaled_fp8);
  CHECK_FALSE(find_model(models(), "qwen3-235b-a22b").block_scaled_fp8);
  const GpuSpec& h200 = find_gpu(gpus(), "h200-sxm");
  ComputeChoice c = engine_choice(ServingEngine::sglang);
  c.weights = WeightsDtype::fp8;
  c.model = ComputeModelKind::profiled;  // composed, not a fallback: SGLang measured MoE in fp8_block only
  auto step = make_step_cost(m, h200, gpus(), 8, c);
  const EngineCostModel& e = dynamic_cast<const EngineCostModel&>(*step);
  CHECK(e.gemm_family() == "gemm_fp8_block");
  CHECK(e.moe_dtype() == "fp8_block");
  CHECK(step->source().find("fp8 block-scaled") != std::string::npos);
  const AicDatabase db(aic_root(), "h200_sxm", ServingEngine::sglang, peaks_of(h200));
  // the router is one of the GEMMs: at 16 tokens the fp8_block row, not the per-tensor one
  CHECK(e.moe_layer_mlp_ms(16) == doctest::Approx(db.moe_ms(16, 7168, 2048, 8, 256, 8, 1, "fp8_block") +
                                                  db.gemm_ms(16, 256, 7168, AicGemmDtype::fp8_block) +
                                                  db.gemm_ms(16, 2 * 2048 / 8, 7168, AicGemmDtype::fp8_block) +
                                                  db.gemm_ms(16, 7168, 2048 / 8, AicGemmDtype::fp8_block))
                                       .epsilon(1e-12));
  DecodeWork w;
  w.query_tokens = 16, w.sequences = 16, w.attention_kv_tokens = 16 * 2000;
  const double fp8_ms = step->decode_seconds(w) * 1e3;
  c.weights = WeightsDtype::bf16;
  const double bf16_ms = make_step_cost(m, h200, gpus(), 8, c)->decode_seconds(w) * 1e3;
  MESSAGE("SGLang TP8 DeepSeek-V3 decode on H200, batch 16 at 2000 tokens: fp8 block-scaled " << fp8_ms
                                                                                            << " ms, bf16 " << bf16_ms
                                                                                            << " ms");
  CHECK(fp8_ms < bf16_ms);  // a memory-bound decode step reads half the weight bytes
}

}  // namespace test_engine_cost
