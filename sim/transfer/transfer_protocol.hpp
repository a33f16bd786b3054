// How a request's KV cache crosses the network and how decoding uses it: one class per protocol, so that the
// rest of the simulator (transfer engine, decode batching) never branches on the format.
// - SingleStreamProtocol: the whole KV on one connection; the request decodes once every chunk is in.
// - LynxProtocol: an anchor stream (weighted above others) and a residual stream; the request drafts on the
//   anchor alone, and the iteration after the residual lands is its verification pass (k drafts + 1 positions on
//   the full KV), which keeps m drafts drawn from the acceptance model plus the verifier's token.
// A protocol answers four questions: which streams with which weights; what phase a request enters when a stream
// completes (and so when it may join a batch); what one decode iteration costs it; what an iteration does to it.
#pragma once
#include <cstdint>
#include <memory>

#include "kernels/kv_format.hpp"
#include "sim/cluster/request_state.hpp"
#include "sim/config/simulation_inputs.hpp"

namespace lynx {

// A request's part in one decode iteration.
enum class IterationRole { decode, draft, verify, wait };
struct IterationMember {
  IterationRole role = IterationRole::decode;
  int64_t query_positions = 1;      // tokens computed for it (k + 1 for a verification pass)
  double kv_bytes_per_token = 0;    // bytes of cache read per context token (anchor-only while drafting)
  double attention_relative = 1;    // attention cost per token relative to bf16 (kernel cost table)
  double unpack_s = 0;              // KV unpacking before the iteration (on joining; full KV on verification)
  int64_t repeatable = 1;           // iterations of the same role before its state changes
};

// What a completed stream means for the decode instance.
enum class StreamEvent { none, kv_usable, replan };

class TransferProtocol {
 public:
  virtual ~TransferProtocol() = default;
  // The KV format it carries (with its kernel costs and acceptance), and its KV bytes per token in decode memory.
  virtual const FormatInputs& format() const = 0;
  virtual double full_bytes_per_token() const = 0;
  virtual bool speculates() const = 0;
  virtual int stream_count() const = 0;
  // The sharing weight of the next chunk of `stream` of request r, leaving at now_s.
  virtual double stream_weight(const RequestState& r, int stream, double now_s) const = 0;
  virtual uint64_t stream_bytes(int stream, const KvStreamBytes& chunk) const = 0;
  // When (seconds after the request's transfer starts) stream_weight of `stream` changes, so that the flows then in
  // flight take the new weight too; negative: never.
  virtual double stream_reweight_after_s(int /*stream*/) const { return -1; }
  // Stream `stream` has delivered its last chunk (record times set here); moves the request's phase.
  virtual StreamEvent on_stream_complete(RequestState& r, int stream, double now_s) const = 0;
  // The request enters a decode batch (its KV usable).
  virtual void on_join(RequestState&) const {}
  // The request's part in the next iteration; `joining`: its first iteration on this instance.
  virtual IterationMember plan(const RequestState& r, bool joining) const = 0;
  // After `steps` iterations of role m.role ending at first_end_s (the first) and last_end_s: tokens, drafts,
  // verification and record; advances to done when every output token is final.
  virtual void finish(RequestState& r, const IterationMember& m, int64_t steps, double first_end_s,
                      double last_end_s) const = 0;
};

// Whether the format's protocol speculates (drafts on part of the KV): the one place that decides it.
bool transfer_protocol_speculates(const KvFormat& format);

// The protocol of `format` (the run's, or a candidate of the adaptive policy); `format` must outlive it.
std::unique_ptr<TransferProtocol> transfer_protocol_for(const SimulationInputs& inputs, const FormatInputs& format);
// The acceptance model of the run's speculating format, which the summary names and counts extrapolations of: the
// run's format's, or with the adaptive policy the candidate's that speculates (one at most); the run's format's when
// none does.
const AcceptanceModel& speculating_acceptance(const SimulationInputs& inputs);
// Whether any format of the run speculates (the run's format, or an adaptive candidate).
bool run_speculates(const SimulationInputs& inputs);

}  // namespace lynx
