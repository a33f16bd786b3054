// The offline maximum-throughput benchmark (models/validation/offline_bench.hpp): the iteration schedule against
// schedules worked out by hand (a fake iteration cost that records what it is asked), trtllm-bench's limits against
// the heuristic computed by hand, and the engine's mixed iteration against its prefill and decode steps.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "models/readers/csv_table.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "models/arch/catalog.hpp"
#include "models/cost/compute_model.hpp"
#include "models/cost/engine/engine_cost.hpp"
#include "models/validation/engine_validation.hpp"
#include "models/validation/offline_bench.hpp"
#include "models/validation/validation.hpp"

#include "tests/models/shipped_catalogs.hpp"

// Its own namespace: in a unity build (CMAKE_UNITY_BUILD, the Makefile's sanitized and fuzz builds) another test
// file's helpers of the same names would share its scope.
namespace test_offline_bench {

using namespace lynx;

namespace {
const std::vector<ModelSpec>& models() { return test::shipped_models(); }
const std::vector<GpuSpec>& gpus() { return test::shipped_gpus(); }

struct Iteration {
  int64_t context = 0, generation = 0, tokens = 0;
  double kv_tokens = 0;
};

// Every iteration costs 1 s; the schedule is recorded.
OfflineBenchResult record(const OfflineBench& b, std::vector<Iteration>& out) {
  return run_offline_bench(
      [&out](const std::vector<PrefillPiece>& context, const DecodeWork& generation, int64_t tokens) {
        out.push_back({static_cast<int64_t>(context.size()), generation.query_tokens, tokens,
                       generation.attention_kv_tokens});
        return 1.0;
      },
      b);
}

OfflineBench small_bench() {
  OfflineBench b;
  b.requests = 4, b.isl = 10, b.osl = 3;
  b.max_batch_size = 2, b.max_num_tokens = 1000;
  b.kv_capacity_tokens = 1 << 20;
  b.tokens_per_block = 1;
  return b;
}
}  // namespace

TEST_CASE("offline bench: max_batch_size 2 runs 4 requests of 3 tokens as two waves of 1 context + 2 generation "
          "iterations") {
  std::vector<Iteration> it;
  const OfflineBenchResult r = record(small_bench(), it);
  // wave 1: context of 2 (first token each), then 2 generation iterations; wave 2 the same
  REQUIRE(it.size() == 6);
  CHECK(r.iterations == 6);
  CHECK(r.seconds == 6);
  CHECK(r.output_tokens_per_s == doctest::Approx(4.0 * 3 / 6).epsilon(1e-15));
  CHECK(r.peak_running == 2);
  for (int wave = 0; wave < 2; wave++) {
    CHECK(it[3 * wave].context == 2);
    CHECK(it[3 * wave].generation == 0);
    CHECK(it[3 * wave + 1].context == 0);
    CHECK(it[3 * wave + 1].generation == 2);
    // the second and third tokens attend to the prompt plus the tokens generated so far
    CHECK(it[3 * wave + 1].kv_tokens == 2 * (10 + 1));
    CHECK(it[3 * wave + 2].kv_tokens == 2 * (10 + 2));
  }
}

TEST_CASE("offline bench: the KV capacity, the token budget and CUDA-graph padding bound each iteration") {
  SUBCASE("KV for one request at a time: every request runs alone") {
    OfflineBench b = small_bench();
    b.max_batch_size = 64;
    b.tokens_per_block = 4;            // 13 tokens take 4 blocks of 4
    b.kv_capacity_tokens = 4 * 4 + 3;  // 4 whole blocks
    std::vector<Iteration> it;
    const OfflineBenchResult r = record(b, it);
    CHECK(r.iterations == 4 * 3);
    CHECK(r.peak_running == 1);
  }
  SUBCASE("a token budget of 25 admits 2 prompts of 10 beside nothing, then 2 more beside 2 generating") {
    OfflineBench b = small_bench();
    b.max_batch_size = 64;
    b.max_num_tokens = 25;
    std::vector<Iteration> it;
    record(b, it);
    REQUIRE(it.size() >= 2);
    CHECK(it[0].context == 2);
    CHECK(it[1].context == 2);  // 2 generation tokens + 2 x 10 = 22 <= 25
    CHECK(it[1].generation == 2);
    CHECK(it[1].tokens == 2);  // a mixed iteration is not padded
  }
  SUBCASE("a generation batch of 3 runs as the captured size 4; beyond the largest captured size it is not padded") {
    OfflineBench b = small_bench();
    b.requests = 3, b.max_batch_size = 3;
    b.graph_batch_sizes = {1, 2, 4};
    std::vector<Iteration> it;
    record(b, it);
    REQUIRE(it.size() == 3);
    // sizes above min(max_batch_size 3, max_num_tokens) are dropped and 3 itself captured: 3 runs as 3
    CHECK(it[1].tokens == 3);
    b.max_batch_size = 8;  // now 4 is kept: 3 runs padded to 4
    it.clear();
    record(b, it);
    CHECK(it[1].tokens == 4);
    b.graph_batch_sizes = {1, 2};
    b.max_batch_size = 2;  // the cap 2 is the largest size; 2 generating run as 2
    it.clear();
    record(b, it);
    CHECK(it[1].tokens == 2);
  }
  SUBCASE("a request that can never fit is one error") {
    OfflineBench b = small_bench();
    b.kv_capacity_tokens = 12;
    std::vector<Iteration> it;
    CHECK_THROWS_WITH_AS(record(b, it), doctest::Contains("exceeds the instance's KV capacity"), LynxError);
    b = small_bench();
    b.max_num_tokens = 9;
    CHECK_THROWS_WITH_AS(record(b, it), doctest::Contains("exceeds max_num_tokens 9"), LynxError);
  }
}

TEST_CASE("offline bench: trtllm-bench's limits for Llama-3.1-8B fp8 on one H100, 128/2048, as computed by hand") {
  const ModelSpec& m = find_model(models(), "llama-3.1-8b");
  const GpuSpec& h100 = find_gpu(gpus(), "h100-sxm");
  // KV per token: 2 x 32 layers x 8 heads x 128 x 1 byte = 65,536 B; engine 8.03e9 x 1 B; memory 80 GiB
  const double gib = 1024.0 * 1024 * 1024;
  const double requests = (80 - static_cast<double>(m.params) / gib) * 0.95 / (65536.0 / gib * (128 + 2048));
  REQUIRE(requests > 256);
  REQUIRE(requests < 1024);
  const int64_t batch = 128 * static_cast<int64_t>(std::ceil(requests / 128));
  const TrtllmBenchLimits l = trtllm_bench_limits(m, h100, 1, 1.0, 1.0, 128, 2048, 0.95);
  CHECK(l.max_batch_size == batch);
  // tokens: batch x (1 + 128 / 2048) under 4096 -> 256-aligned, at least 2048; and at least 128 + batch
  const double raw_tokens = std::min(requests, 4096.0) * (1 + 128.0 / 2048);
  CHECK(l.max_num_tokens == std::max<int64_t>(2048, 256 * static_cast<int64_t>(std::ceil(raw_tokens / 256))));
  // a 20,000-token prompt forces the budget to the prompt plus the batch
  const TrtllmBenchLimits long_prompt = trtllm_bench_limits(m, h100, 1, 1.0, 1.0, 20000, 2000, 0.95);
  CHECK(long_prompt.max_num_tokens >= 20000 + long_prompt.max_batch_size);
  // the instance's KV: 0.95 x (80 GiB - weights - the engine's own memory) / 65,536 B per token
  CHECK(instance_kv_tokens(m, h100, 1, static_cast<double>(m.params), 1.0, 0.95, 1e9) ==
        static_cast<int64_t>(0.95 * (80 * gib - static_cast<double>(m.params) - 1e9) / 65536.0));
}

TEST_CASE("offline bench: TensorRT-LLM's own memory per GPU, AIConfigurator's model by hand") {
  const ModelSpec& m8 = find_model(models(), "llama-3.1-8b");
  const ModelSpec& m70 = find_model(models(), "llama-3.1-70b");
  const double mib = 1024.0 * 1024;
  // activations 2 x tokens x (32 heads x 128) x 11 at TP 1, no NCCL, the CUDA context's 551 MiB
  CHECK(trtllm_runtime_bytes_per_gpu(m8, 1, 8192, kTrtllmOtherBytes) ==
        doctest::Approx(2.0 * 8192 * 4096 * 11 + 551 * mib).epsilon(1e-15));
  // Llama-3.1-70B (64 heads x 128): TP 2 -> 6.5 and 342 MiB of NCCL; TP 4 and 8 -> 5 and 392 MiB
  CHECK(trtllm_runtime_bytes_per_gpu(m70, 2, 4096, 0) == doctest::Approx(2.0 * 4096 * 8192 * 6.5 + 342 * mib));
  CHECK(trtllm_runtime_bytes_per_gpu(m70, 4, 4096, 0) == doctest::Approx(2.0 * 4096 * 8192 * 5 + 392 * mib));
  CHECK(trtllm_runtime_bytes_per_gpu(m70, 8, 4096, 0) == trtllm_runtime_bytes_per_gpu(m70, 4, 4096, 0));
  // a tiny token budget still holds AIConfigurator's 70 MiB floor
  CHECK(trtllm_runtime_bytes_per_gpu(m8, 1, 16, 0) == doctest::Approx(70 * mib));
  CHECK(kTrtllmOtherBytesSafe == 3.5 * 1024 * mib);
}

TEST_CASE("engine cost: an iteration with only context is the prefill step, with only generation the decode step") {
  const ModelSpec& m = find_model(models(), "llama-3.1-70b");
  auto step = make_engine_cost(m, find_gpu(gpus(), "h100-sxm"), gpus(), 2, WeightsDtype::fp8, ServingEngine::trtllm,
                               calibration_dir(), true);
  const std::vector<PrefillPiece> context = {{1000, 0}, {500, 0}};
  CHECK(step->iteration_seconds(context, DecodeWork{}, 0) ==
        doctest::Approx(step->prefill_seconds(context)).epsilon(1e-12));
  DecodeWork w;
  w.query_tokens = 96, w.sequences = 96, w.attention_kv_tokens = 96 * 3000.0;
  CHECK(step->iteration_seconds({}, w, 96) == doctest::Approx(step->decode_seconds(w)).epsilon(1e-12));
  // padding to 128 costs the dense terms at 128 tokens: more than 96, less than the step at 128 sequences
  const double padded = step->iteration_seconds({}, w, 128);
  DecodeWork w128 = w;
  w128.query_tokens = 128, w128.sequences = 128, w128.attention_kv_tokens = 128 * 3000.0;
  CHECK(padded > step->decode_seconds(w));
  CHECK(padded < step->decode_seconds(w128));
  // a mixed iteration reads the weights once: less than the two steps apart
  CHECK(step->iteration_seconds(context, w, 96) < step->prefill_seconds(context) + step->decode_seconds(w));
  CHECK_THROWS_AS(step->iteration_seconds({}, w, 95), LynxError);
}

TEST_CASE("engine validation: a trtllm-bench row is 1000 / the simulated benchmark's tokens per second") {
  // The shipped file's header and its H100 405B TP 8 2048/2048 row, validated alone (the whole folder is the other
  // test case's; the row is taken from the shipped file so that the two cannot drift apart).
  std::istringstream shipped(read_file(std::string(LYNX_SOURCE_DIR) + "/models/validation/trtllm_published.tsv"));
  std::string line, header, chosen;
  while (std::getline(shipped, line)) {
    if (line.rfind("measured_engine\t", 0) == 0) header = line;
    if (line.rfind("TensorRT-LLM 1.0\ttrtllm-1.3\th100-sxm\tllama-3.1-405b\t8\tfp8\tfp8\ttrtllm_bench_throughput\t1500\t"
                   "2048\t2048\t", 0) == 0)
      chosen = line;
  }
  REQUIRE(!header.empty());
  REQUIRE(!chosen.empty());
  const std::string dir = std::string(LYNX_BINARY_DIR) + "/test_offline_bench_row";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  write_file_atomic(dir + "/one_published.tsv", header + "\n" + chosen + "\n");
  ValidationReport report;
  add_engine_validation(report, dir, calibration_dir(), std::string(LYNX_SOURCE_DIR) + "/models/catalog/models.json",
                        std::string(LYNX_SOURCE_DIR) + "/models/catalog/gpus.json");
  REQUIRE(report.rows.size() == 1);
  const ValidationRow& row = report.rows[0];
  CHECK(row.condition == "llama-3.1-405b TP8 1500 requests 2048/2048 (ms/token)");
  CHECK(row.measured_ms == doctest::Approx(1e3 / 2296).epsilon(1e-15));
  const ModelSpec& m = find_model(models(), "llama-3.1-405b");
  const GpuSpec& h100 = find_gpu(gpus(), "h100-sxm");
  auto step = make_engine_cost(m, h100, gpus(), 8, WeightsDtype::fp8, ServingEngine::trtllm, calibration_dir(), true);
  auto predicted_ms = [&](double kv_fraction, double other_bytes) {
    const TrtllmBenchLimits l = trtllm_bench_limits(m, h100, 8, 1.0, 1.0, 2048, 2048, kv_fraction);
    OfflineBench b;
    b.requests = 1500, b.isl = 2048, b.osl = 2048;
    b.max_batch_size = l.max_batch_size, b.max_num_tokens = l.max_num_tokens;
    b.kv_capacity_tokens = instance_kv_tokens(m, h100, 8, step->weight_bytes(), 1.0, kv_fraction,
                                              trtllm_runtime_bytes_per_gpu(m, 8, l.max_num_tokens, other_bytes));
    b.graph_batch_sizes = trtllm_bench_graph_sizes();
    return 1e3 / run_offline_bench(*step, b).output_tokens_per_s;
  };
  CHECK(row.predicted_ms == doctest::Approx(predicted_ms(0.95, kTrtllmOtherBytes)).epsilon(1e-12));
  // the assumptions' reach is reported beside the headline group: the same row at a KV fraction of 0.90, and with
  // AIConfigurator's 3.5 GiB deployment figure for the CUDA context and libraries
  REQUIRE(report.breakdown.size() == 2);
  CHECK(report.breakdown[0].group == row.group + " at kv_cache_free_gpu_mem_fraction 0.90");
  CHECK(report.breakdown[0].mape_percent ==
        doctest::Approx(100 * std::fabs(predicted_ms(0.90, kTrtllmOtherBytes) / row.measured_ms - 1)).epsilon(1e-9));
  CHECK(report.breakdown[1].group ==
        row.group + " with 3.5 GiB of CUDA context and libraries (AIConfigurator's safe figure)");
  CHECK(report.breakdown[1].mape_percent ==
        doctest::Approx(100 * std::fabs(predicted_ms(0.95, kTrtllmOtherBytesSafe) / row.measured_ms - 1))
            .epsilon(1e-9));
  std::filesystem::remove_all(dir);
}

}  // namespace test_offline_bench
