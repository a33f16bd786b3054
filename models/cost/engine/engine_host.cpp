#include "models/cost/engine/engine_host.hpp"

namespace lynx {

EngineHostOverhead engine_host_overhead(AicEngine engine) {
  switch (engine) {
    case AicEngine::vllm:
      return {0, "host overhead 0 ms exposed: vLLM async scheduling, on by default (vLLM PR #27614, #19970) with "
                 "input preparation overlapped with the forward pass (PR #23569)"};
    case AicEngine::sglang:
      return {0, "host overhead 0 ms exposed: SGLang's overlap scheduler (LMSYS blog \"SGLang v0.4\", "
                 "https://lmsys.org/blog/2024-12-04-sglang-v0-4/, no GPU idle time between decode batches)"};
    case AicEngine::trtllm:
      return {0, "host overhead 0 ms exposed: TensorRT-LLM's overlap scheduler, on by default "
                 "(https://nvidia.github.io/TensorRT-LLM/latest/features/overlap-scheduler.html)"};
  }
  return {};
}

}  // namespace lynx
