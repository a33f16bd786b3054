// The simulator on the profiled compute model: the summary names the model and its derivation, and the decode step
// reads the kernel cost table (attention over a quantized cache costs that format's share of bf16 attention).
#include <doctest/doctest.h>

#include "kernels/cost_table.hpp"
#include "sim/transfer/kernel_costs.hpp"
#include "sim_test_support.hpp"

using namespace lynx;
using namespace lynx::test;

namespace {
nlohmann::json config(const std::string& format) {
  return {{"model", "llama-3.1-8b"},
          {"format", format},
          {"cluster", {{"network", {{"nic_gbps", 400}, {"latency_us", 5}}}}},
          {"lynx", {{"acceptance_rate", 0.9}}}};
}
}  // namespace

TEST_CASE("attention over a quantized cache costs the table's attention rate relative to bf16") {
  const CostTable table = load_cost_table(std::string(LYNX_SOURCE_DIR) + "/kernels/costs/h200.json");
  const KernelCosts int4 = kernel_costs_from_table(table, kv_format_parse("int4-g64"), 1);
  CHECK(int4.attention_full_relative ==
        doctest::Approx(table.elements_per_s("attention_full", "bf16") /
                        table.elements_per_s("attention_full", "int4-g64")).epsilon(1e-12));
  CHECK(int4.attention_full_relative < 0.5);
  const KernelCosts lynx = kernel_costs_from_table(table, kv_format_parse("lynx-a4r4-g64"), 1);
  CHECK(lynx.attention_anchor_relative < lynx.attention_full_relative);
}

TEST_CASE("vidur-2024 on H200: the compute model is profiled, derived from H100, and quantized KV decodes faster") {
  std::vector<Request> requests{make_request(0, 0.0, 32768, 64)};
  SimRun bf16 = run_simulation(config("bf16"), requests), int4 = run_simulation(config("int4-g64"), requests);
  const std::string source = bf16.summary["sources"]["decode_compute"].get<std::string>();
  CHECK(source.find("profiled") == 0);
  CHECK(source.find("derived from h100-sxm measurements") != std::string::npos);
  CHECK(bf16.summary["sources"]["prefill_compute"].get<std::string>().find("extrapolated") != std::string::npos);
  auto tpot = [](const SimRun& r) { return r.summary["metrics"]["mean_tpot_ms"].get<double>(); };
  CHECK(tpot(int4) < tpot(bf16));
  nlohmann::json roofline = config("bf16");
  roofline["compute_model"] = "roofline";
  SimRun r = run_simulation(roofline, requests);
  CHECK(r.summary["sources"]["decode_compute"].get<std::string>().find("roofline") == 0);
}

TEST_CASE("a pool's engine: an H200 run with vllm-0.24 reads H200's tables, and quantized KV still decodes faster") {
  std::vector<Request> requests{make_request(0, 0.0, 8192, 64)};
  auto with_engine = [](const std::string& format) {
    nlohmann::json c = config(format);
    c["cluster"]["prefill"] = {{"gpu", "h200-sxm"}, {"engine", "vllm-0.24"}};
    c["cluster"]["decode"] = {{"gpu", "h200-sxm"}, {"engine", "vllm-0.24"}};
    return c;
  };
  SimRun bf16 = run_simulation(with_engine("bf16"), requests), int4 = run_simulation(with_engine("int4-g64"), requests);
  for (const char* pool : {"prefill_compute", "decode_compute"}) {
    const std::string source = bf16.summary["sources"][pool].get<std::string>();
    CHECK(source.find("engine vllm-0.24") == 0);
    CHECK(source.find("aiconfigurator h200_sxm/gemm/vllm/0.24.0/gemm_perf.parquet") != std::string::npos);
    CHECK(source.find("derived") == std::string::npos);
  }
  auto tpot = [](const SimRun& r) { return r.summary["metrics"]["mean_tpot_ms"].get<double>(); };
  CHECK(tpot(int4) < tpot(bf16));
  // the engine's kernels without the 2024 engine's Ray and host overheads: a faster decode step than vidur-2024's
  CHECK(tpot(bf16) < tpot(run_simulation(config("bf16"), requests)));
}
