// A decode instance: continuous batching with a maximum batch and a KV memory capacity (HBM of its tensor-parallel
// GPUs minus the weights and a reserve). A request reserves memory for its whole KV (prompt and output, in the
// wire format, which is also the cache format: attention dequantizes on the fly) before its transfer starts, FIFO.
// It joins the batch at the next iteration after its KV is usable; the received streams are first unpacked into
// the cache by the format's decode kernel. Each iteration gives every running request one token; a Lynx request
// still drafting reads its anchor-only KV; the iteration after its residual is in runs its verification pass
// (k drafts + 1 positions over the full KV), keeps m drafts drawn from the acceptance model plus the verifier's
// token, and it then decodes on full KV.
// Speed: while a batch does not change (no request joining, verifying or finishing), consecutive iterations are
// planned at once and their end times computed arithmetically; a KV or residual arrival cuts the plan at the
// next iteration boundary. The timeline is the same as with one event per iteration (a test checks it).
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

#include "models/step_cost.hpp"
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
  void cut_plan();  // an arrival: stop the planned iterations at the next boundary
  void finish_iterations(uint64_t generation);
  int64_t draft_cap(const RequestState& r) const;

  int index_, node_;
  const SimContext& context_;
  const StepCostModel& cost_;
  double capacity_bytes_ = 0, reserved_bytes_ = 0, assigned_bytes_ = 0;
  double full_bytes_per_token_ = 0, anchor_bytes_per_token_ = 0;
  std::deque<RequestState*> memory_waiting_;
  std::deque<RequestState*> joining_;
  std::vector<RequestState*> running_;
  bool busy_ = false;
  std::vector<Member> members_;           // of the planned iterations
  std::vector<double> iteration_ends_s_;  // end time of each planned iteration
  uint64_t generation_ = 0;               // invalidates the finish event of a plan that was cut
};

}  // namespace lynx
