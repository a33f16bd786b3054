// A prefill instance: FCFS queue; each iteration takes the head prompt whole, or with a chunked-prefill token budget
// packs prompt pieces up to the budget. An iteration runs layer group by layer group (a group = one transfer
// chunk); a request whose last piece is in the iteration has that group's KV quantized right after the group's
// layers (on the same GPU) and the chunk handed to the transfer engine ("layer-wise"), or every chunk at the end of
// the iteration ("after-prefill"). A request holds its prompt's KV (bf16) in the instance's memory from its prefill
// start until every chunk of it has been sent; a request whose KV does not fit waits at the head of the queue
// (back-pressure: the prefill stalls instead of growing without bound) and records that wait.
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

#include <memory>

#include "models/cost/step_cost.hpp"
#include "sim/cluster/prefix_cache.hpp"
#include "sim/cluster/sim_context.hpp"

namespace lynx {

class PrefillInstance {
 public:
  PrefillInstance(int index, int node, const SimContext& context);
  // The router chose this instance: the request counts in its load from now, while the engine's front end still
  // holds it (so requests arriving together are spread), and is queued when it arrives (`arrive`).
  void route(RequestState& request);
  void arrive(RequestState& request);
  void enqueue(RequestState& request) {  // routed and at the engine at once
    route(request);
    arrive(request);
  }
  // The request's KV has left (every stream sent its last chunk): its prefill memory is free again.
  void release(RequestState& request);
  // Prompt tokens queued or in progress (the router's load measure).
  int64_t outstanding_tokens() const { return outstanding_tokens_; }
  // Leading prompt blocks of the request cached here (0 without a prefix cache): the prefix-aware router's measure.
  int64_t cached_blocks(const Request& request) const { return cache_ ? cache_->peek(request.prefix_block_hashes) : 0; }
  int node() const { return node_; }

 private:
  struct Piece {
    RequestState* request;
    bool last;  // the request's final piece: its KV is complete at the end of this iteration
  };
  void start_iteration();
  void finish_group(std::vector<Piece> pieces, int group, double iteration_s);

  int index_, node_;
  const SimContext& context_;
  const StepCostModel& cost_;
  std::deque<RequestState*> queue_;
  int64_t outstanding_tokens_ = 0;
  bool busy_ = false;
  double capacity_bytes_ = 0, used_bytes_ = 0;  // KV memory (prefill_kv_capacity_bytes) and what holds it
  double memory_wait_since_s_ = -1;             // the head request waits for memory since then (-1: it does not)
  std::unique_ptr<PrefixCache> cache_;          // with cluster.prefill.prefix_cache
};

}  // namespace lynx
