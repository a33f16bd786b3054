// A co-located serving instance: one engine on one set of GPUs prefills and decodes its requests in the same forward
// passes, as vLLM, SGLang and TensorRT-LLM serve when they are not disaggregated. Each step:
//   1. the engine's scheduler (engine_scheduler.hpp) chooses the step's prompt chunks and decodes within its token
//      budget, its running-request limit and the instance's KV blocks (preempting or retracting as the engine does);
//   2. the step is costed once as one pass (the pool's ServingStepCost::mixed_seconds: the dense layers at the
//      step's tokens, each chunk's context attention, the decodes' generation attention, at the token count the
//      engine runs it as: a step it captures in a CUDA graph padded to the next captured size), plus the host time
//      the step exposes;
//   3. at its end, a request whose tokens are all computed samples its next token; the step that ends a prompt gives
//      the first token, as the engines return it.
// No KV crosses the network: the request's record has no transfer, and prefill and decode instance are this one.
// A preempted request goes back to the queue and recomputes its prompt and the tokens it had generated.
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "models/cost/step_cost.hpp"
#include "sim/cluster/engine_scheduler.hpp"
#include "sim/cluster/engine_serving.hpp"
#include "sim/cluster/sim_context.hpp"

namespace lynx {

class ColocatedInstance {
 public:
  // An instance of `serving`'s engine whose KV cache holds kv_bytes_per_token per token (serving.kv_tokens in all).
  ColocatedInstance(int index, int node, const SimContext& context, const StepCostModel& cost,
                    const EngineServing& serving, double kv_bytes_per_token);
  // The router chose this instance: the request counts in its load from now, while the engine's front end still
  // holds it (so requests arriving together are spread); `arrive`: it is at the engine and waits for the scheduler.
  void route(RequestState& request);
  void arrive(RequestState& request);
  void enqueue(RequestState& request) {  // routed and at the engine at once
    route(request);
    arrive(request);
  }
  // The router's load: prompt and output tokens of the requests here and not finished.
  int64_t outstanding_tokens() const { return outstanding_tokens_; }
  int node() const { return node_; }
  // What the scheduler refuses outright (engine_scheduler.hpp's refusal), for an error before the run.
  std::string refusal(const Request& request) const;
  int64_t kv_tokens() const { return kv_.total * kv_.block_tokens; }
  int64_t steps() const { return steps_; }
  int64_t preemptions() const { return preemptions_; }

 private:
  void maybe_start_step();
  void finish_step(double start_s);

  int index_, node_;
  const SimContext& context_;
  const StepCostModel& cost_;
  double kv_bytes_per_token_;
  EngineScheduler scheduler_;
  KvBlocks kv_;
  std::deque<EngineSeq*> waiting_;
  std::vector<EngineSeq*> running_;
  std::vector<std::unique_ptr<EngineSeq>> seqs_;  // one per request here, reused
  std::vector<EngineSeq*> spare_;
  StepPlan step_;
  bool busy_ = false;
  int64_t outstanding_tokens_ = 0;
  int64_t steps_ = 0, preemptions_ = 0;
};

}  // namespace lynx
