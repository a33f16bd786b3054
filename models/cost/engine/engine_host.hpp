// The host (CPU) time a serving engine adds to each step, beyond its GPU kernels, for the engines whose kernels
// AIConfigurator measured (aic_database.hpp). Each figure names the source that measured or documents that engine.
//
// All three current engines overlap the host's work for step n+1 (scheduling, input preparation, output
// processing) with the GPU's step n, so what a step exposes is max(0, host time - GPU time); with no per-engine
// measurement of the host time itself, and GPU steps of 5 ms and more for the models simulated here, the exposed
// part is taken as 0 for each, from the source that shows the overlap:
//   vllm-0.24      async scheduling on by default (vLLM PR #27614; the scheduler runs one step ahead, PR #19970) and
//                  input preparation overlapped with the forward pass (PR #23569 "Fully overlap model execution")
//   sglang-0.5.14  the zero-overhead overlap scheduler (LMSYS, "SGLang v0.4", 2024-12-04,
//                  https://lmsys.org/blog/2024-12-04-sglang-v0-4/: Nsight shows no GPU idle time across 5
//                  consecutive decode batches)
//   trtllm-1.3     the overlap scheduler, enabled by default (TensorRT-LLM docs, features/overlap-scheduler:
//                  https://nvidia.github.io/TensorRT-LLM/latest/features/overlap-scheduler.html)
// The older vidur-2024 source keeps its measured sarathi-serve/Ray overheads (gpu_profile.hpp), which are not used
// for any of these engines.
#pragma once
#include <string>

#include "models/cost/engine/aic_database.hpp"

namespace lynx {

struct EngineHostOverhead {
  double per_step_ms = 0;
  const char* source = "";
};

// `engine`: one AIConfigurator measured (serving_engine_in_aic); vidur-2024 is an InternalError.
EngineHostOverhead engine_host_overhead(ServingEngine engine);

}  // namespace lynx
