// The transfer engine: everything between "a chunk of a request's KV is ready" and "its bytes have arrived".
// A ready chunk waits until the request's decode instance has reserved memory (the first ready chunk asks for it);
// then each of the protocol's streams (one, or Lynx's anchor and residual) sends its chunks in order, one at a
// time, as one connection would (an RDMA QP: a request's stream takes one fair share of a link, and a backlog does
// not multiply flows). A chunk leaves as one flow per NIC pair of the two instances, by the overlap of the GPUs'
// KV-head shares (nic_shares.hpp), with the stream's sharing weight; a stream whose weight changes over time (Lynx
// residuals with aging) has its flows in flight re-weighted when it does. When every stream has sent its last
// chunk the prefill instance frees the request's memory; when a stream's last flow is delivered the protocol says
// what that means (the KV usable, or a decode re-plan) and the decode instance is told.
// The connector's costs (transfer_cost.hpp): a stream's setup before its first chunk's flows and the completion
// notification after its last byte are delays; each flow is capped by its message pipeline's rate bound (ops of its
// size, the window and the serial posting cost), and the achieved-rate ceiling is the NICs' capacity
// (engine_network). So one request's flow on an idle link arrives exactly at
// setup + bytes / min(efficiency x B, bound) + latency + notify.
#pragma once
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/transfer/nic_shares.hpp"
#include "sim/cluster/sim_context.hpp"

namespace lynx {

// What the engine asks of the instances at a request's two ends (the run forwards to the request's prefill and
// decode instance; a test may answer itself).
class TransferEnds {
 public:
  virtual ~TransferEnds() = default;
  virtual int prefill_node(const RequestState& request) const = 0;  // platform node of its prefill instance
  virtual int decode_node(const RequestState& request) const = 0;
  // Its first chunk is ready: reserve its KV memory on the decode instance, then call memory_granted.
  virtual void request_decode_memory(RequestState& request) = 0;
  // Every stream has sent its last chunk: the prefill instance may free the request's memory.
  virtual void kv_sent(RequestState& request) = 0;
  // A stream's last flow is delivered and the protocol says the KV is now usable, or the decode plan must change.
  virtual void kv_usable(RequestState& request) = 0;
  virtual void kv_changed(RequestState& request) = 0;
  // One flow of the request's stream has delivered `bytes` (the adaptive format policy's route load; none else).
  virtual void kv_bytes_delivered(RequestState& /*request*/, int /*stream*/, uint64_t /*bytes*/) {}
};

class TransferEngine : public TransferRequests, private EventLoop::FlowListener {
 public:
  // `ends` must outlive the engine. Each prefill instance has `prefill_nics` NICs, each decode instance
  // `decode_nics`; the context's loop, inputs and protocol are the run's.
  TransferEngine(const SimContext& context, TransferEnds& ends, int prefill_nics, int decode_nics);
  ~TransferEngine() override;
  TransferEngine(const TransferEngine&) = delete;
  TransferEngine& operator=(const TransferEngine&) = delete;

  void chunk_ready(RequestState& request, int chunk) override;
  void memory_granted(RequestState& request) override;
  // Bytes the flows of `stream` of a `prompt_tokens`-token request carry under `protocol`, all chunks together.
  uint64_t stream_bytes(const TransferProtocol& protocol, int64_t prompt_tokens, int stream) const;

 private:
  void start_transfer(RequestState& r);
  void pump(RequestState& r, int stream);
  void on_flow_sent(RequestState& r, int stream);
  void start_flow(RequestState& r, int stream, int src, int dst, uint64_t bytes, double rate_bound);
  void on_flow_delivered(RequestState& r, int stream, uint64_t bytes);
  // Its flows' listener: a flow's tag is its request's address with the stream (0 or 1) in the low bit.
  void flow_sent(uint64_t tag) override;
  void flow_delivered(uint64_t tag, uint64_t bytes) override;
  void stream_complete(RequestState& r, int stream);
  // The bytes of each flow of one chunk of one stream (one per NIC pair, nic_shares.hpp), into `bytes`.
  void chunk_flow_bytes(const TransferProtocol& protocol, int64_t prompt_tokens, int stream, int chunk,
                        std::vector<uint64_t>& bytes) const;
  // The stream's flows for `chunk`: its last chunk's when they hold the same layers' tokens (every layer the same
  // bytes and messages: no sliding window, or the same layers), else computed into it.
  const RequestState::Stream::ChunkFlows& chunk_flows(const RequestState& r, RequestState::Stream& stream, int s,
                                                      int chunk) const;

  int64_t chunk_flow_messages(const RequestState& r, int chunk, int64_t gpu_pairs, uint64_t flow_bytes) const;

  const SimContext& context_;
  EventLoop& loop_;
  TransferEnds& ends_;
  std::vector<NicFlowShare> nic_shares_;  // the same for every request: the pools' tp and NICs
  // Requests with a weight change due whose streams are still sending, by sequence: the change finds its request
  // here, or nothing to re-weight (empty for protocols without re-weighting: no work per request).
  std::unordered_map<int64_t, RequestState*> sending_;
};

}  // namespace lynx
