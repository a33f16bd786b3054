// The GPUStack runs as replay cases (sim/validation/serving_cases.hpp): each serving command read into the named
// engine, checkpoint and options; the workload from the block's totals; the declared train/check split; the reason a
// run is not replayed; a run printed twice replayed once; and the configuration a case replays as.
#include <doctest/doctest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "sim/validation/serving_cases.hpp"
#include "sim/validation/serving_validation.hpp"
#include "traces/serving_bench.hpp"

using namespace lynx;

namespace {
ServingBenchRun run_of(const std::string& command, const std::string& label, double concurrency = 0) {
  ServingBenchRun r;
  r.file = "/data/performance-lab/qwen3-32b/h100.md";
  r.line = 42;
  r.label = label;
  r.serve_command = shell_words(command);
  r.fields = {{"Successful requests", 500},        {"Benchmark duration (s)", 976.29},
              {"Total input tokens", 1997942},     {"Total generated tokens", 99790},
              {"Mean TTFT (ms)", 482284.21},       {"Mean TPOT (ms)", 66.61}};
  if (concurrency > 0) r.fields["Maximum request concurrency"] = concurrency;
  return r;
}

const char* kBlock =
    "    ============ Serving Benchmark Result ============\n"
    "    Successful requests:                     100\n"
    "    Maximum request concurrency:             4\n"
    "    Benchmark duration (s):                  44.40\n"
    "    Total input tokens:                      23260\n"
    "    Total generated tokens:                  22061\n"
    "    Mean TTFT (ms):                          64.00\n"
    "    Mean TPOT (ms):                          7.38\n"
    "    ==================================================\n";
}  // namespace

TEST_CASE("a vLLM command: engine, checkpoint, TP and scheduler options, the workload from the block's totals") {
  const ServingCase c =
      serving_case_of(run_of("vllm serve Qwen/Qwen3-32B -tp 2 --max-num-seqs 64 --max-num-batched-tokens=4096 "
                             "--gpu-memory-utilization 0.85 --async-scheduling",
                             "random 4K input"));
  CHECK(c.not_replayed == "");
  CHECK(c.engine == "vllm-0.24");
  CHECK(c.model == "qwen3-32b");
  CHECK_FALSE(c.fp8_weights);
  CHECK(c.tp == 2);
  CHECK(c.ep == 1);
  CHECK(c.max_num_seqs == 64);
  CHECK(c.max_num_batched_tokens == 4096);
  CHECK(c.memory_fraction == 0.85);
  CHECK(c.overlap_scheduling == 1);
  CHECK(c.requests == 500);
  CHECK(c.input_tokens == 3996);   // 1997942 / 500 = 3995.88, rounded
  CHECK(c.output_tokens == 200);   // 99790 / 500 = 199.58, rounded
  CHECK(c.max_concurrency == 0);   // every request at once
  CHECK(c.training);               // 4K/200 is in the training part
  CHECK(c.name() == "qwen3-32b/h100.md:42");
}

TEST_CASE("SGLang and TensorRT-LLM commands: fp8 checkpoints, their own option names") {
  const ServingCase s = serving_case_of(run_of(
      "python3 -m sglang.launch_server --model-path Qwen/Qwen3-14B-FP8 --tp-size 4 --chunked-prefill-size 4096 "
      "--max-running-requests 128 --mem-fraction-static 0.8",
      "random 32K input"));
  CHECK(s.not_replayed == "");
  CHECK(s.engine == "sglang-0.5.14");
  CHECK(s.model == "qwen3-14b-fp8");
  CHECK(s.fp8_weights);
  CHECK(s.tp == 4);
  CHECK(s.max_num_batched_tokens == 4096);
  CHECK(s.max_num_seqs == 128);
  CHECK(s.memory_fraction == 0.8);
  CHECK_FALSE(s.training);  // 32K is checked, not trained on

  const ServingCase t = serving_case_of(
      run_of("trtllm-serve Qwen/Qwen3-32B-FP8 --max_seq_len=40960 --enable_chunked_prefill --max_batch_size 256",
             "random 128 input"));
  CHECK(t.not_replayed == "");
  CHECK(t.engine == "trtllm-1.3");
  CHECK(t.model == "qwen3-32b-fp8");
  CHECK(t.chunked_prefill == 1);
  CHECK(t.max_num_seqs == 256);
  CHECK(t.training);  // 128/4 is in the training part
}

TEST_CASE("ShareGPT runs: 4 clients are trained on, other client counts and all-at-once runs are checked") {
  CHECK(serving_case_of(run_of("vllm serve Qwen/Qwen3-8B", "", 4)).training);
  CHECK_FALSE(serving_case_of(run_of("vllm serve Qwen/Qwen3-8B", "", 8)).training);
  const ServingCase once = serving_case_of(run_of("vllm serve Qwen/Qwen3-8B", ""));
  CHECK_FALSE(once.training);
  CHECK(once.workload == "sharegpt at mean lengths 3996/200, at once");
}

TEST_CASE("a run lynxsim cannot replay says why") {
  CHECK(serving_case_of(run_of("vllm serve Qwen/Qwen3-8B --speculative-config '{}'", "")).not_replayed ==
        "its command sets --speculative-config, which lynxsim does not model");
  CHECK(serving_case_of(run_of("vllm serve openai/gpt-oss-20b", "")).not_replayed.find("sliding-window") !=
        std::string::npos);
  CHECK(serving_case_of(run_of("vllm serve zai-org/GLM-4.5-Air", "")).not_replayed ==
        "model zai-org/GLM-4.5-Air is not in the catalog");
  CHECK(serving_case_of(run_of("llama-server -m x.gguf", "")).not_replayed ==
        "a serving command of an engine lynxsim does not model");
}

TEST_CASE("a run a page prints twice is replayed once") {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("lynx-serving-cases-" + std::to_string(::getpid())) / "qwen3-8b";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "h100-latency.md") << "```bash\nvllm serve Qwen/Qwen3-8B\n```\n```\n" << kBlock << "```\n"
                                         << "### Other Benchmark Cases\n```\n# BS=4\n" << kBlock
                                         << "# BS=8\n" << std::string(kBlock).replace(std::string(kBlock).find("44.40"), 5, "24.05")
                                         << "```\n";
  const auto cases = gpustack_serving_cases(dir.parent_path().string());
  std::filesystem::remove_all(dir.parent_path());
  REQUIRE(cases.size() == 3);
  CHECK(cases[0].not_replayed == "");
  CHECK(cases[1].not_replayed == "repeats the result at " + cases[0].name());
  CHECK(cases[2].not_replayed == "");  // another figure differs: another run
}

TEST_CASE("a case replays as one co-located instance of its engine, the workload as the benchmark sent it") {
  ServingCase c = serving_case_of(run_of("vllm serve Qwen/Qwen3-32B -tp 2 --max-num-seqs 64", "random 4K input", 8));
  const nlohmann::json j = serving_case_config(c, ServingTerms{});
  CHECK(j["cluster"]["serving"] == "colocated");
  CHECK(j["cluster"]["colocated_instances"] == 1);
  CHECK(j["cluster"]["decode"]["engine"] == "vllm-0.24");
  CHECK(j["cluster"]["decode"]["tp"] == 2);
  CHECK(j["cluster"]["decode"]["max_batch"] == 64);
  CHECK(j["workload"]["synthetic"]["count"] == 500);
  CHECK(j["workload"]["synthetic"]["input_tokens"]["fixed"] == 3996);
  CHECK(j["workload"]["max_concurrency"] == 8);
  CHECK(j["weights_dtype"] == "bf16");
}

TEST_CASE("the serving fit recovers the host and front-end terms that made its training runs") {
  // Two runs of Qwen3-8B on vLLM (async scheduling off, as the GPUStack vLLM 0.11 runs), whose "measured" figures are
  // lynxsim's own prediction with host_step_ms 1, host_per_request_us 0, frontend_ms 20, frontend_serial_ms 5: the fit
  // finds those terms again on its grids (a light closed loop sees the step and front-end latency, a burst of 64 at
  // once the front end's queue).
  ServingCase loop = serving_case_of(run_of("vllm serve Qwen/Qwen3-8B", "", 4));
  ServingCase burst = serving_case_of(run_of("vllm serve Qwen/Qwen3-8B", "random 4K input"));
  for (ServingCase* c : {&loop, &burst}) {
    c->requests = c == &loop ? 12 : 64;
    c->input_tokens = c == &loop ? 300 : 2000;
    c->output_tokens = c == &loop ? 60 : 20;
    REQUIRE(c->not_replayed == "");
  }
  ServingTerms truth = ServingTerms::all(0);
  truth.host_step_ms = 1.0;
  truth.frontend_ms = 20.0;
  truth.frontend_serial_ms = 5.0;
  for (ServingCase* c : {&loop, &burst}) {
    const ServingPrediction p = serving_predict(*c, truth);
    REQUIRE(p.error == "");
    c->run.fields["Benchmark duration (s)"] = p.duration_s;
    c->run.fields["Mean TTFT (ms)"] = p.mean_ttft_ms;
    c->run.fields["Mean TPOT (ms)"] = p.mean_tpot_ms;
    const ServingErrors e = serving_errors(*c, p);
    CHECK(e.duration == 0);
    CHECK(e.ttft == 0);
    CHECK(e.tpot == 0);
    // Without the terms the prediction is off: the fit has something to find.
    CHECK(serving_errors(*c, serving_predict(*c, ServingTerms::all(0))).ttft > 0.01);
  }
  const ServingTerms fitted = fit_serving_terms({loop, burst}, KernelFit::none, {});
  CHECK(fitted.host_step_ms == 1.0);
  CHECK(fitted.host_per_request_us == 0.0);
  CHECK(fitted.frontend_ms == 20.0);
  CHECK(fitted.frontend_serial_ms == 5.0);
  CHECK(fitted.kernel_time_factor == 1.0);
}

TEST_CASE("the deployment factor recovers the kernel-time factor that made its training runs") {
  // A burst of 32 requests of Qwen3-8B on vLLM whose "measured" figures are lynxsim's own prediction at the engine's
  // shipped terms with every kernel 1.7x slower: the factor's grid finds 1.7 again, and 1 where the runs are as
  // predicted.
  ServingCase burst = serving_case_of(run_of("vllm serve Qwen/Qwen3-8B", "random 4K input"));
  burst.requests = 32;
  burst.input_tokens = 1000;
  burst.output_tokens = 16;
  REQUIRE(burst.not_replayed == "");
  for (const double truth : {1.7, 1.0}) {
    CAPTURE(truth);
    ServingTerms terms;
    terms.kernel_time_factor = truth;
    const ServingPrediction p = serving_predict(burst, terms);
    REQUIRE(p.error == "");
    burst.run.fields["Benchmark duration (s)"] = p.duration_s;
    burst.run.fields["Mean TTFT (ms)"] = p.mean_ttft_ms;
    burst.run.fields["Mean TPOT (ms)"] = p.mean_tpot_ms;
    double error = -1;
    CHECK(fit_deployment_kernel_factor({burst}, &error) == doctest::Approx(truth).epsilon(1e-12));
    CHECK(error == doctest::Approx(0).epsilon(1e-9));
  }
}
