#include "models/cost/engine/engine_host.hpp"

#include "common/error.hpp"

namespace lynx {

EngineHostOverhead engine_host_overhead(ServingEngine engine) {
  switch (engine) {
    case ServingEngine::vllm:
      return {0, "host overhead 0 ms exposed: vLLM async scheduling, on by default (vLLM PR #27614, #19970) with "
                 "input preparation overlapped with the forward pass (PR #23569)"};
    case ServingEngine::sglang:
      return {0, "host overhead 0 ms exposed: SGLang's overlap scheduler (LMSYS blog \"SGLang v0.4\", "
                 "https://lmsys.org/blog/2024-12-04-sglang-v0-4/, no GPU idle time between decode batches)"};
    case ServingEngine::trtllm:
      return {0, "host overhead 0 ms exposed: TensorRT-LLM's overlap scheduler, on by default "
                 "(https://nvidia.github.io/TensorRT-LLM/latest/features/overlap-scheduler.html)"};
    case ServingEngine::vidur_2024:
      break;
  }
  throw_internal_error("engine %s: its host overheads are the profiled model's, not AIConfigurator's",
                       serving_engine_name(engine));
}

}  // namespace lynx
