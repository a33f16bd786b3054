// The measured serving runs `lynxsim validate`'s serving group replays: every `vllm bench serve` result block of the
// data folder's GPUStack performance-lab pages (calibration/gpustack-performance-lab/, H100, co-located engines)
// read with traces/serving_bench.hpp, each turned into what lynxsim replays: the engine whose kernels and scheduler
// stand for the one measured, the model and its weights, TP and EP, the engine options the serving command set, and
// the client's workload (N requests of fixed lengths at once, or C clients in a closed loop).
//
// How a run is read:
//   - engine: `vllm serve` -> vllm-0.24, `sglang.launch_server` -> sglang-0.5.14, `trtllm-serve` -> trtllm-1.3 (the
//     measured runs are of vLLM 0.10.2-0.11.0, SGLang 0.5.3-0.5.5 and TensorRT-LLM 1.0-1.2; the kernel tables and
//     the schedulers modelled are of the later versions: the group measures that gap too). vLLM's async scheduling
//     was off by default before 0.12 and on in 0.24: a vLLM run replays with it off unless its command gives
//     --async-scheduling;
//   - model: the command's checkpoint, Qwen/Qwen3-14B, -32B and -235B-A22B(-Instruct-2507), "-FP8" for fp8 weights;
//   - workload: the requests, the prompt length (total input tokens / requests, which the random dataset fixes:
//     4000-token prompts re-tokenize to 3,996) and the output length (total generated tokens / requests: the runs
//     did not ignore EOS, so some requests stopped early; every request is given the mean, an assumption the group's
//     breakdown moves); the closed loop's C from "Maximum request concurrency"; ShareGPT runs (lengths not fixed)
//     replay at their mean lengths and say so;
//   - role: the training part fits the host and front-end terms (sim/validation/serving_validation.hpp), the rest checks.
//     Declared split: the 4K/200 and 128/4 random workloads and the ShareGPT runs of 4 clients are training; the
//     32K/100 and 2K/100 random workloads, ShareGPT at once and ShareGPT at 1, 2 and 8 clients are checks.
// A run that cannot be replayed (its model has sliding-window attention, is not in the catalog, or its command uses
// a feature lynxsim does not model, such as speculative decoding or pipeline parallelism) is listed with the reason.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "traces/serving_bench.hpp"

namespace lynx {

struct ServingCase {
  ServingBenchRun run;
  std::string engine;               // the named engine that replays it ("vllm-0.24", ...)
  std::string model;                // a catalog model
  bool fp8_weights = false;
  int tp = 1, ep = 1;
  int64_t max_num_batched_tokens = -1, max_num_seqs = -1;  // from the command, -1: the engine's default
  double memory_fraction = -1;
  int chunked_prefill = -1, overlap_scheduling = -1;
  int64_t requests = 0, input_tokens = 0, output_tokens = 0;
  double max_concurrency = 0;       // 0: every request at once
  std::string workload;             // "random 4000/200", "sharegpt (means)", ...
  bool training = false;
  std::string not_replayed;         // why it is not replayed ("" when it is)
  // A user's deployment (`lynxsim calibrate`): the lynxsim configuration that replays the run (its workload
  // replaced), and the trace of the run's own per-request lengths ("" : every request at the mean lengths). Null for
  // the GPUStack runs, which serving_case_config builds from the fields above.
  nlohmann::json deployment;
  std::string trace_file;
  double pd_notify_base_us = NAN;   // a disaggregated deployment's connector notify_us (NaN: co-located)
  std::string name() const;         // "qwen3-32b/h100.md:295"
};

// Every result block of the GPUStack pages under `folder` (calibration/gpustack-performance-lab/performance-lab),
// in file and line order.
std::vector<ServingCase> gpustack_serving_cases(const std::string& folder);

// The case read from one run (its command and block); not_replayed says why not where it cannot be.
ServingCase serving_case_of(const ServingBenchRun& run);

}  // namespace lynx
