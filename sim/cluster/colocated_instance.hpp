// A co-located serving instance: one engine on one set of GPUs prefills and decodes its requests in the same forward
// passes, as vLLM, SGLang and TensorRT-LLM serve when they are not disaggregated. Each step:
//   1. the engine's scheduler (engine_scheduler.hpp) chooses the step's prompt chunks and decodes within its token
//      budget, its running-request limit and the instance's KV blocks (preempting or retracting as the engine does);
//   2. the step is costed once as one pass (StepCostModel::mixed_seconds: the dense layers at the step's tokens,
//      each chunk's context attention, the decodes' generation attention), at the token count the engine runs it as
//      (a step within the largest captured CUDA graph is padded to the next captured size), plus the host time the
//      step exposes (ServingHost);
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
#include "sim/cluster/sim_context.hpp"

namespace lynx {

// The host (CPU) time of one step that the GPU does not hide: the engine's scheduling, input preparation, kernel
// launches and output processing: a base per step (larger for a step that is not a captured CUDA graph, whose
// kernels the host launches one by one) plus a part per request in the step. With an overlapping scheduler (vLLM's
// async scheduling, SGLang's and TensorRT-LLM's overlap schedulers) the host prepares step n + 1 during step n, so a
// step exposes max(0, host - GPU time); without, all of it.
struct ServingHost {
  double graph_step_ms = 0;
  double eager_step_ms = 0;
  double per_seq_us = 0;
  bool overlapped = false;
  double exposed_s(double gpu_s, int64_t seqs, bool captured) const;
};

struct ColocatedSettings {
  SchedulerLimits limits;
  int64_t kv_blocks = 0;                    // the instance's KV cache, all its GPUs together
  std::vector<int64_t> graph_token_sizes;   // captured CUDA-graph sizes (tokens), ascending; empty: none
  bool graph_padding = true;                // a step is padded to the next captured size (else only an exact size runs
                                            // as a graph)
  bool graphs_for_mixed_steps = false;      // vLLM's piecewise graphs also take mixed steps; else decode-only steps
  ServingHost host;
  double kv_bytes_per_token = 0;            // the cache's bytes per token (its dtype), for the decode work
};

class ColocatedInstance {
 public:
  ColocatedInstance(int index, int node, const SimContext& context, const StepCostModel& cost,
                    const ColocatedSettings& settings);
  // The request is at the engine (its front end done): it waits for the scheduler.
  void enqueue(RequestState& request);
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
  // The tokens the step runs as: padded to the next captured CUDA-graph size where the engine captures it (0: it
  // runs eagerly, at its own tokens).
  int64_t graph_tokens(const StepPlan& step) const;

  int index_, node_;
  const SimContext& context_;
  const StepCostModel& cost_;
  ColocatedSettings settings_;
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
