// A decode instance: continuous batching with a maximum batch and a KV memory capacity (HBM of its tensor-parallel
// GPUs minus the weights and a reserve). A request reserves memory for its whole KV (prompt and output, in the
// wire format, which is also the cache format: attention dequantizes on the fly) before its transfer starts, FIFO.
// It joins the batch at the next iteration after its KV is usable. The instance only batches and plans: what an
// iteration costs each request and what it does to it (a token, a draft, a verification) is its transfer
// protocol's answer (transfer_protocol.hpp).
// Speed: while a batch does not change (no request joining, verifying or finishing), consecutive iterations are
// planned at once and their end times computed arithmetically; a KV or residual arrival cuts the plan at the
// next iteration boundary. The timeline is the same as with one event per iteration (a test checks it).
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

#include "models/cost/step_cost.hpp"
#include "sim/cluster/sim_context.hpp"

namespace lynx {

class DecodeInstance {
 public:
  DecodeInstance(int index, int node, const SimContext& context);

  // The router sends the request here (at its arrival): counts towards load().
  void assign(RequestState& request);
  // Asks for the request's KV memory; context.transfer->memory_granted runs when it is reserved (maybe at once).
  void request_memory(RequestState& request);
  // The request's KV is usable (its protocol said so): it joins at the next iteration.
  void on_kv_ready(RequestState& request);
  // A request's state changed in a way that changes its next iteration (Lynx: the residual is in); nothing to do
  // until it is in the batch.
  void replan_for(const RequestState& request);

  // The router's load measure: KV bytes of the requests assigned here and not finished.
  double load_bytes() const { return assigned_bytes_; }
  double capacity_bytes() const { return capacity_bytes_; }
  int node() const { return node_; }

 private:
  struct Member {
    RequestState* request;
    IterationMember part;  // its protocol's plan for it
  };
  void grant_waiting();
  void replan();
  void maybe_start_iteration();
  void cut_plan();  // an arrival: stop the planned iterations at the next boundary
  void finish_iterations(uint64_t generation);

  int index_, node_;
  const SimContext& context_;
  const StepCostModel& cost_;
  double capacity_bytes_ = 0, reserved_bytes_ = 0, assigned_bytes_ = 0;
  std::deque<RequestState*> memory_waiting_;
  std::deque<RequestState*> joining_;
  std::vector<RequestState*> running_;
  // A planned run of identical iterations: the batch's work in its first iteration and how it grows per iteration.
  // Iteration end times are computed a chunk at a time as the run reaches them (a plan is often cut by an arrival
  // long before its end, and each step's cost is an interpolation); the times are the same either way.
  void compute_iterations(size_t count);  // appends up to `count` more iteration ends, within planned_iterations_
  void schedule_plan_event();             // at the last computed end: the plan's end, or the next chunk

  bool busy_ = false;
  std::vector<Member> members_;           // of the planned iterations
  DecodeRun plan_;  // the batch's work in the plan's first iteration and its growth per iteration
  double plan_start_s_ = 0;               // when the plan's first iteration starts
  size_t planned_iterations_ = 0;         // iterations in the plan (those computed so far: iteration_ends_s_)
  std::vector<double> iteration_ends_s_;  // end time of each planned iteration computed so far
  uint64_t generation_ = 0;               // invalidates the finish event of a plan that was cut
};

}  // namespace lynx
