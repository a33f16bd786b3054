// A request in flight: its record, its phase (request_phase.hpp) and the run-time state the instances, the
// transfer engine and the transfer protocol share.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/cluster/request_phase.hpp"
#include "sim/output/request_record.hpp"
#include "traces/request.hpp"

namespace lynx {

class TransferProtocol;

struct RequestState {
  Request request;
  int64_t sequence = 0;  // position in the workload: records leave in this order
  RequestRecord record;
  RequestPhase phase = RequestPhase::queued;
  // Moves the request along one edge of its state machine; an illegal edge is a LynxError.
  void advance(RequestPhase to) {
    request_phase_check(request.id, phase, to);
    phase = to;
  }
  // Its KV format's protocol, chosen at arrival by the adaptive format policy (sim/transfer/format_policy.hpp); null: the
  // run's (SimContext::protocol).
  const TransferProtocol* protocol = nullptr;
  std::array<uint64_t, 2> undelivered_bytes{};  // adaptive policy: each stream's bytes not yet delivered
  // prefill
  int64_t prefilled_tokens = 0;      // tokens scheduled into prefill iterations so far
  // transfer: a request's chunks are computed in order (0, 1, ...; the prefill hands each over once), so counts say
  // which are ready (computed and quantized) and which of those may leave (the decode memory is granted): chunks
  // [0, chunks_granted) may leave, [chunks_granted, chunks_ready) wait for the memory.
  int chunks_ready = 0;
  int chunks_granted = 0;
  // Each stream of the protocol (single stream: [0]; Lynx: anchor [0], residual [1]) is one connection: its chunks
  // leave in order, one at a time.
  // A chunk leaves as one flow per NIC pair of the two instances (each GPU sends its heads' share); the next
  // chunk leaves when every flow of the previous one is sent.
  struct Stream {
    int flows_sending = 0;     // flows of the current chunk still on the wire
    int chunks_issued = 0;     // chunks sent or sending, in order: the next to leave is this one
    int64_t flows_issued = 0, flows_delivered = 0;
    std::vector<const void*> sending;  // EventLoop handles of the current chunk's flows (for a weight change; reweight refuses those already sent)
    // The flows of the last chunk sent, per NIC pair: their bytes and messages, and the layers they were computed
    // for (the transfer engine reuses them for a chunk of the same layers' tokens; layers < 0: none yet).
    struct ChunkFlows {
      int64_t first_layer = -1, layers = -1;
      std::vector<uint64_t> bytes;
      std::vector<int64_t> messages;
      std::vector<double> rate_bounds;  // bytes/s, +infinity: none (transfer_cost.hpp)
    };
    ChunkFlows last_chunk;
  };
  std::array<Stream, 2> streams;
  double memory_bytes = 0;           // reserved on the decode instance
  double memory_requested_s = 0;     // when the decode memory was requested
  double prefill_memory_bytes = 0;   // held on the prefill instance from its prefill start until its KV is sent
                                     // (its prompt's KV outside the prefix-cache blocks it pins)
  int64_t prefix_blocks_pinned = 0;  // leading prefix blocks it pins in its prefill instance's cache until then
  int streams_sent = 0;              // streams that have sent their last chunk
  // decode
  int64_t final_tokens = 0;          // tokens that are final
  int64_t pending_spec_tokens = 0;   // drafts awaiting verification

  // Back to a default-constructed state, its containers emptied but their storage kept: the simulation reuses the
  // states of finished requests, so that a request allocates nothing once as many as are in flight at once exist.
  void reset() {
    std::vector<uint64_t> hashes = std::move(request.prefix_block_hashes);
    std::array<Stream, 2> kept = std::move(streams);
    *this = RequestState{};  // every field its default (no default member allocates)
    hashes.clear();
    request.prefix_block_hashes = std::move(hashes);
    for (size_t s = 0; s < streams.size(); ++s) {
      Stream& fresh = streams[s];
      Stream& old = kept[s];
      old.sending.clear();
      fresh.sending = std::move(old.sending);
      old.last_chunk.bytes.clear();
      fresh.last_chunk.bytes = std::move(old.last_chunk.bytes);
      old.last_chunk.messages.clear();
      fresh.last_chunk.messages = std::move(old.last_chunk.messages);
    }
  }
};

}  // namespace lynx
