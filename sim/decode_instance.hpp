// A decode instance: continuous batching with a maximum batch and a KV memory capacity (HBM of its tensor-parallel
// GPUs minus the weights and a reserve). A request reserves memory for its whole KV (prompt and output, in the
// wire format, which is also the cache format: attention dequantizes on the fly) before its transfer starts, FIFO.
// It joins the batch at the next iteration after its KV is usable; the received streams are first unpacked into
// the cache by the format's decode kernel. Each iteration gives every running request one token; a Lynx request
// still drafting reads its anchor-only KV; the iteration after its residual is in runs its verification pass
// (k drafts + 1 positions over the full KV), keeps m drafts drawn from the acceptance model plus the verifier's
// token, and it then decodes on full KV.
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

#include "models/cost_model.hpp"
#include "sim/sim_context.hpp"

namespace lynx {

class DecodeInstance {
 public:
  DecodeInstance(int index, int node, const SimContext& context);

  // The router sends the request here (at its arrival): counts towards load().
  void assign(RequestState& request);
  // Asks for the request's KV memory; context.on_memory_granted runs when it is reserved (maybe at once).
  void request_memory(RequestState& request);
  // Every anchor chunk (or every chunk) has arrived.
  void on_kv_ready(RequestState& request);
  // Lynx: every residual chunk has arrived.
  void on_residual_ready(RequestState& request);

  // The router's load measure: KV bytes of the requests assigned here and not finished.
  double load_bytes() const { return assigned_bytes_; }
  double capacity_bytes() const { return capacity_bytes_; }
  int node() const { return node_; }

 private:
  struct Member {
    RequestState* request;
    bool joining;     // first iteration: unpack the received KV first
    bool verifying;   // lynx: verification pass this iteration
    bool drafting;    // lynx: speculative token this iteration
  };
  void grant_waiting();
  void maybe_start_iteration();
  void finish_iteration(const std::vector<Member>& members);
  int64_t draft_cap(const RequestState& r) const;

  int index_, node_;
  const SimContext& context_;
  ComputeCostModel cost_;
  double capacity_bytes_ = 0, reserved_bytes_ = 0, assigned_bytes_ = 0;
  double full_bytes_per_token_ = 0, anchor_bytes_per_token_ = 0;
  std::deque<RequestState*> memory_waiting_;
  std::deque<RequestState*> joining_;
  std::vector<RequestState*> running_;
  bool busy_ = false;
};

}  // namespace lynx
