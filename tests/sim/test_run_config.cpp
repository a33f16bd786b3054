// `simulate` end to end on the shipped Mooncake trace: every format writes its per-request CSV and summary, the
// orderings a user expects between formats hold on a slow network, and bad configurations are one clear error.
#include <doctest/doctest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernels/cost_table.hpp"
#include "common/data_folder.hpp"

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "sim/engine/isolated_run.hpp"
#include "sim/config/run_config.hpp"

using namespace lynx;
namespace fs = std::filesystem;

namespace {
nlohmann::json mooncake_config(const std::string& format, double nic_gbps) {
  return {{"model", "llama-3.1-8b"},
          {"format", format},
          {"cluster", {{"prefill", {{"instances", 4}}}, {"decode", {{"instances", 4}}}, {"network", {{"nic_gbps", nic_gbps}}}}},
          {"workload", {{"trace", lynx::data_file("traces/mooncake/conversation_trace.jsonl")},
                        {"first_n", 400}}}};
}

nlohmann::json run_in_dir(const nlohmann::json& config, const std::string& dir) {
  return nlohmann::json::parse(run_isolated([&] {
    return run_config(resolve_config(config, "test.json", ""), dir).summary.dump();
  }));
}

size_t lines(const std::string& path) {
  std::ifstream in(path);
  size_t n = 0;
  std::string line;
  while (std::getline(in, line)) ++n;
  return n;
}
}  // namespace

TEST_CASE("simulate on the shipped trace writes the per-request CSV and summary for every format") {
  const fs::path root = fs::temp_directory_path() / "lynx_run_config_test";
  fs::remove_all(root);
  std::map<std::string, nlohmann::json> metrics;
  for (const char* format : {"bf16", "fp8-e4m3", "int8-g64", "int4-g64", "kivi2-g32", "lynx-a4r4-g64", "lynx-a4r4-g64-rq"}) {
    CAPTURE(format);
    const std::string dir = (root / format).string();
    nlohmann::json summary = run_in_dir(mooncake_config(format, 25), dir);
    CHECK(lines(dir + "/requests.csv") == 401);
    CHECK(json_parse_file(dir + "/summary.json") == summary);
    CHECK(summary["metrics"]["completed"] == 400);
    CHECK(summary["metrics"]["bytes_delivered"] == summary["metrics"]["bytes_expected"]);
    CHECK(summary["config"]["format"] == format);
    CHECK(summary["sources"]["workload"].get<std::string>().find("conversation_trace.jsonl") != std::string::npos);
    const std::string kernels = summary["sources"]["prefill_kernel_costs"];
    CHECK(kernels.find("kernels/costs/h200.json (derived, not measured") != std::string::npos);
    if (std::string(format).rfind("lynx-a4r4-g64", 0) == 0)
      CHECK(summary["sources"]["acceptance"].get<std::string>().find("models/accuracy/stories260k.json") !=
            std::string::npos);
    metrics[format] = summary["metrics"];
    for (auto& entry : fs::directory_iterator(dir)) CHECK(entry.path().string().find(".tmp") == std::string::npos);
  }
  // At 25 Gbps fewer bytes mean earlier first tokens; Lynx's first token comes with int4's, its final one after.
  auto ttft = [&](const char* f, const char* m = "mean_ttft_ms") { return metrics[f][m].get<double>(); };
  CHECK(ttft("bf16") > ttft("int8-g64"));
  CHECK(ttft("int8-g64") > ttft("int4-g64"));
  CHECK(ttft("int4-g64") > ttft("kivi2-g32"));
  CHECK(ttft("lynx-a4r4-g64", "mean_ttft_spec_ms") < ttft("int8-g64"));
  CHECK(ttft("lynx-a4r4-g64", "mean_ttft_spec_ms") == doctest::Approx(ttft("int4-g64")).epsilon(0.05));
  CHECK(ttft("lynx-a4r4-g64") >= ttft("lynx-a4r4-g64", "mean_ttft_spec_ms"));
  CHECK(metrics["lynx-a4r4-g64"]["mean_spec_tokens"].get<double>() > 0);
  CHECK(metrics["int8-g64"]["mean_spec_tokens"].get<double>() == 0);
  fs::remove_all(root);
}

TEST_CASE("the same configuration twice writes byte-identical files") {
  const fs::path root = fs::temp_directory_path() / "lynx_determinism_test";
  fs::remove_all(root);
  run_in_dir(mooncake_config("lynx-a4r4-g64", 50), (root / "a").string());
  run_in_dir(mooncake_config("lynx-a4r4-g64", 50), (root / "b").string());
  for (const char* file : {"requests.csv", "summary.json"})
    CHECK(read_file((root / "a" / file).string()) == read_file((root / "b" / file).string()));
  fs::remove_all(root);
}

TEST_CASE("bad configurations are one clear error naming the file and JSON path") {
  auto error_of = [](nlohmann::json config) {
    try {
      SimConfig c = sim_config_from_json(config, "cfg.json", "");
      JsonObject w(c.workload, c.origin, "$.workload");
      return std::string("no error");
    } catch (const LynxError& e) {
      return std::string(e.what());
    }
  };
  nlohmann::json ok = mooncake_config("int8-g64", 25);
  nlohmann::json c = ok;
  c["cluster"]["network"]["nic_gbps"] = -10;
  CHECK(error_of(c) == "cfg.json: $.cluster.network.nic_gbps: expected a number in (0, 100000] Gbps, got -10");
  // Every number has a declared range; integers are integers and cannot wrap.
  c = ok;
  c["cluster"]["network"]["nic_gbps"] = 1e300;
  CHECK(error_of(c) == "cfg.json: $.cluster.network.nic_gbps: expected a number in (0, 100000] Gbps, got 1e+300");
  c = ok;
  c["cluster"]["network"]["latency_us"] = 1e308;
  CHECK(error_of(c) == "cfg.json: $.cluster.network.latency_us: expected a number in [0, 1000000] us, got 1e+308");
  for (int64_t instances : {int64_t{1} << 31, (int64_t{1} << 32) + 1, int64_t{INT32_MAX}}) {
    c = ok;
    c["cluster"]["prefill"]["instances"] = instances;
    CHECK(error_of(c) == "cfg.json: $.cluster.prefill.instances: expected an integer in [1, 65536] instances, got " +
                             std::to_string(instances));
  }
  c = ok;
  c["transfer"] = {{"chunk_layers", int64_t{1} << 31}};
  CHECK(error_of(c) == "cfg.json: $.transfer.chunk_layers: expected an integer in [1, 1024] layers, got 2147483648");
  c = ok;
  c["cluster"]["decode"]["memory_reserve_fraction"] = 0.2;  // the default engine, vllm-0.24, sizes KV its own way
  CHECK(error_of(c) == "cfg.json: $.cluster.decode.memory_reserve_fraction: expected no memory_reserve_fraction with "
                       "engine vllm-0.24: a named engine sizes its KV cache by its own rule (set memory_fraction), "
                       "got 0.2");
  c["cluster"]["decode"]["engine"] = "vidur-2024";
  CHECK(sim_config_from_json(c, "cfg.json", "").decode.memory_reserve_fraction == 0.2);
  c["cluster"]["decode"]["memory_reserve_fraction"] = 1;
  CHECK(error_of(c) ==
        "cfg.json: $.cluster.decode.memory_reserve_fraction: expected a number in [0, 0.99] fraction, got 1");
  c.erase("cluster");
  c["cluster"]["decode"]["engine"] = "vidur-2024";  // vidur's own reserve when the field is absent
  CHECK(sim_config_from_json(c, "cfg.json", "").decode.memory_reserve_fraction == 0.1);
  c = ok;
  c["lynx"] = {{"acceptance", "/dev/null"}, {"acceptance_rate", 0.5}};
  CHECK(error_of(c) == "cfg.json: $.lynx.acceptance_rate: expected one acceptance source: acceptance (a file), "
                       "acceptance_rate, acceptance_histogram or acceptance_published, not several, got 0.5");
  c = ok;
  c["lynx"] = {{"acceptance_rate", 0}};
  CHECK(sim_config_from_json(c, "cfg.json", "").lynx.acceptance_rate == 0.0);  // 0 is a rate, not "unset"
  c = ok;
  c["format"] = "int9-g64";
  CHECK(error_of(c).find("cfg.json: $.format: expected a KV format name") == 0);
  c = ok;
  c["cluster"]["decode"]["max_bacth"] = 3;
  CHECK(error_of(c) == "cfg.json: $.cluster.decode.max_bacth: unknown field; did you mean \"max_batch\"? (valid here: chunked_prefill, "
                       "chunked_prefill_tokens, engine, ep, frontend_ms, frontend_serial_ms, gpu, host_per_request_us, host_step_ms, "
                       "instances, kernel_family_factors, kernel_time_factor, kv_cache_dtype, max_batch, memory_fraction, "
                       "memory_reserve_fraction, moe_load_imbalance, overlap_scheduling, plan_iterations, tp)");
  c = ok;
  c["cluster"]["prefill"]["engine"] = "vllm";  // a pool's engine is one of the named engines
  CHECK(error_of(c).find("cfg.json: $.cluster.prefill.engine: ") == 0);
  CHECK(error_of(c).find("vllm-0.24") != std::string::npos);
  c = ok;
  c["cluster"]["decode"]["engine"] = "sglang-0.5.14";
  CHECK(sim_config_from_json(c, "cfg.json", "").decode.engine == ServingEngine::sglang);
  CHECK(sim_config_from_json(c, "cfg.json", "").prefill.engine == ServingEngine::vllm);  // the default engine
  c = ok;
  c["transfer"] = {{"mode", "eventually"}};
  CHECK(error_of(c) == "cfg.json: $.transfer.mode: expected one of \"layer-wise\", \"after-prefill\", got \"eventually\"");
  c = ok;
  c.erase("workload");
  CHECK(error_of(c).find("cfg.json: $.workload: missing field") == 0);
  c = ok;
  c["model"] = "gpt-9";
  CHECK_THROWS_WITH_AS(run_isolated([&] {
                         run_config(resolve_config(c, "cfg.json", ""), "/tmp/lynx_never_written");
                         return std::string();
                       }),
                       doctest::Contains("cfg.json: $.model: unknown model \"gpt-9\""), LynxError);
  CHECK(!fs::exists("/tmp/lynx_never_written"));  // nothing half-written: not even config.json
}

double first_prefill_end(const std::string& dir) {
  std::ifstream in(dir + "/requests.csv");
  std::string header, row;
  std::getline(in, header);
  std::getline(in, row);
  std::stringstream cells(row);
  std::string cell;
  for (int i = 0; i <= 8; ++i) std::getline(cells, cell, ',');  // column 8: prefill_end_s
  return std::stod(cell);
}

TEST_CASE("a configured kernel cost table changes the quantization time by the ratio of its rates") {
  nlohmann::json config = mooncake_config("int4-g64", 400);
  config["workload"]["first_n"] = 1;
  const std::string h200_dir = (fs::temp_directory_path() / "lynx_h200_costs").string();
  const std::string cpu_dir = (fs::temp_directory_path() / "lynx_cpu_costs").string();
  run_in_dir(config, h200_dir);
  config["kernel_costs"] = std::string(LYNX_SOURCE_DIR) + "/kernels/costs/cpu.json";
  nlohmann::json summary = run_in_dir(config, cpu_dir);
  CHECK(summary["sources"]["prefill_kernel_costs"].get<std::string>().find("cpu.json (measured on") != std::string::npos);
  const CostTable cpu = load_cost_table(std::string(LYNX_SOURCE_DIR) + "/kernels/costs/cpu.json");
  const CostTable h200 = load_cost_table(std::string(LYNX_SOURCE_DIR) + "/kernels/costs/h200.json");
  const double tokens = 6758;  // the trace's first request
  const double elements = 2.0 * tokens * 32 * 8 * 128;
  const double expected = elements / cpu.elements_per_s("encode", "int4-g64") -
                          elements / h200.elements_per_s("encode", "int4-g64");
  CHECK(first_prefill_end(cpu_dir) - first_prefill_end(h200_dir) == doctest::Approx(expected).epsilon(1e-6));
  config["kernel_costs"] = "/nonexistent/table.json";
  CHECK_THROWS_WITH_AS(run_in_dir(config, cpu_dir), doctest::Contains("test.json: $.kernel_costs: /nonexistent/table.json"),
                       LynxError);
  fs::remove_all(h200_dir);
  fs::remove_all(cpu_dir);
}

TEST_CASE("workload.over_context: an error by default, or skipped, or the prompt truncated to the context") {
  // 40 prompts uniform in [100000, 140000] tokens + 1000 output tokens against Llama-3.1-8B's 131072: some fit.
  nlohmann::json config = {{"model", "llama-3.1-8b"},
                           {"format", "int4-g64"},
                           {"workload", {{"synthetic", {{"rate_per_s", 0.05}, {"count", 40},
                                                        {"input_tokens", {{"uniform", {100000, 140000}}}},
                                                        {"output_tokens", {{"fixed", 1000}}}}}}}};
  const fs::path root = fs::temp_directory_path() / ("lynx_over_context_" + std::to_string(::getpid()));
  CHECK_THROWS_WITH_AS(run_in_dir(config, (root / "error").string()),
                       doctest::Contains("output tokens exceed the 131072-token context of llama-3.1-8b"), LynxError);
  config["workload"]["over_context"] = "skip";
  nlohmann::json skip = run_in_dir(config, (root / "skip").string());
  const int64_t skipped = skip["metrics"]["over_context_skipped"];
  CHECK(skipped > 0);
  CHECK(skipped < 40);
  CHECK(skip["metrics"]["completed"].get<int64_t>() == 40 - skipped);
  config["workload"]["over_context"] = "truncate";
  nlohmann::json truncate = run_in_dir(config, (root / "truncate").string());
  CHECK(truncate["metrics"]["over_context_truncated"].get<int64_t>() == skipped);
  CHECK(truncate["metrics"]["completed"].get<int64_t>() == 40);
  CHECK(truncate["metrics"]["total_input_tokens"].get<double>() <=
        skip["metrics"]["total_input_tokens"].get<double>() + static_cast<double>(skipped) * (131072 - 1000));
  // truncate cuts prompts, never an output: a 200,000-token output alone fills the context, and is refused by name
  // (skip leaves it out).
  config["workload"]["synthetic"]["count"] = 2;
  config["workload"]["synthetic"]["output_tokens"] = {{"fixed", 200000}};
  CHECK_THROWS_WITH_AS(run_in_dir(config, (root / "long_output").string()),
                       "synthetic (see workload.synthetic): request 0: 200000 output tokens alone fill the 131072-token context of "
                       "llama-3.1-8b: workload.over_context \"truncate\" cuts prompts only (a prompt keeps at least 1 "
                       "token); \"skip\" leaves such requests out",
                       LynxError);
  CHECK(!fs::exists(root / "long_output"));
  fs::remove_all(root);
}

TEST_CASE("a cost table without the run's exact format says whose costs it lent") {
  nlohmann::json config = {{"model", "llama-3.1-8b"},
                           {"format", "int4-g16"},
                           {"workload", {{"synthetic", {{"rate_per_s", 1}, {"count", 2},
                                                        {"input_tokens", {{"fixed", 1000}}},
                                                        {"output_tokens", {{"fixed", 4}}}}}}}};
  const fs::path dir = fs::temp_directory_path() / ("lynx_borrowed_" + std::to_string(::getpid()));
  nlohmann::json summary = run_in_dir(config, dir.string());
  CHECK(summary["sources"]["decode_kernel_costs"].get<std::string>().find(
            "; no int4-g16 entry: the costs of int4-g32 used") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("the input paths a run folder's config.json resolves are the schema's path fields") {
  // Derived from the field declarations (kSimConfigSection), so a path field added there is resolved too.
  const std::vector<std::string> expected{"kernel_costs", "models_catalog", "gpus_catalog", "lynx.acceptance",
                                          "workload.trace", "workload.synthetic.input_tokens.empirical",
                                          "workload.synthetic.output_tokens.empirical", "serving_profile"};
  std::vector<std::string> fields = resolved_config_path_fields();
  std::vector<std::string> sorted_expected = expected;
  std::sort(fields.begin(), fields.end());
  std::sort(sorted_expected.begin(), sorted_expected.end());
  CHECK(fields == sorted_expected);
}
