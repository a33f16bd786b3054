// The request state machine: exactly the edges of request_phase.hpp's diagram are legal, and an illegal move names
// the request and both phases.
#include <doctest/doctest.h>

#include <cmath>
#include <set>
#include <utility>

#include "common/error.hpp"
#include "sim/cluster/request_state.hpp"

using namespace lynx;

TEST_CASE("the request state machine has exactly the diagram's edges") {
  using P = RequestPhase;
  const std::set<std::pair<P, P>> edges = {
      {P::queued, P::prefilling},         {P::prefilling, P::awaiting_memory},
      {P::awaiting_memory, P::transferring}, {P::transferring, P::drafting},
      {P::transferring, P::decoding},     {P::drafting, P::awaiting_verification},
      {P::awaiting_verification, P::decoding}, {P::decoding, P::done},
      // co-located: no KV crosses; preempted requests go back to the queue
      {P::prefilling, P::decoding}, {P::prefilling, P::done}, {P::prefilling, P::queued}, {P::decoding, P::queued}};
  const P all[] = {P::queued,   P::prefilling,          P::awaiting_memory, P::transferring,
                   P::drafting, P::awaiting_verification, P::decoding,      P::done};
  int legal = 0;
  for (P from : all)
    for (P to : all) {
      CHECK(request_phase_edge_legal(from, to) == (edges.count({from, to}) == 1));
      legal += request_phase_edge_legal(from, to);
    }
  CHECK(legal == 12);
}

TEST_CASE("an illegal transition is an error naming the request and both phases") {
  RequestState r;
  r.request.id = 42;
  r.advance(RequestPhase::prefilling);
  r.advance(RequestPhase::awaiting_memory);
  CHECK_THROWS_WITH_AS(r.advance(RequestPhase::decoding),
                       "request 42: illegal transition from awaiting_memory to decoding", InternalError);
  CHECK(r.phase == RequestPhase::awaiting_memory);
  r.advance(RequestPhase::transferring);
  r.advance(RequestPhase::drafting);
  CHECK_THROWS_WITH_AS(r.advance(RequestPhase::done), "request 42: illegal transition from drafting to done",
                       InternalError);  // a bug, never the input's fault: lynxsim exits 3
}

TEST_CASE("a reset request state is a default one that keeps its containers' storage") {
  RequestState r;
  r.request = Request{7, 1.5, 4096, 128, 9, {11, 12, 13}};
  r.sequence = 7;
  r.record.id = 7;
  r.record.prefill_end_s = 2.0;
  r.phase = RequestPhase::prefilling;
  int protocol_stand_in = 0;
  r.protocol = reinterpret_cast<const TransferProtocol*>(&protocol_stand_in);
  r.undelivered_bytes = {5, 6};
  r.prefilled_tokens = 4096;
  r.chunks_ready = 3;
  r.chunks_granted = 2;
  for (RequestState::Stream& s : r.streams) {
    s.flows_sending = 2;
    s.chunks_issued = 3;
    s.flows_issued = 4;
    s.flows_delivered = 1;
    s.sending = {&protocol_stand_in};
    s.last_chunk.first_layer = 8;
    s.last_chunk.layers = 4;
    s.last_chunk.bytes = {100, 200};
    s.last_chunk.messages = {1, 2};
  }
  r.memory_bytes = 1e9;
  r.memory_requested_s = 1.0;
  r.prefill_memory_bytes = 2e9;
  r.prefix_blocks_pinned = 3;
  r.streams_sent = 1;
  r.final_tokens = 10;
  r.pending_spec_tokens = 5;
  const uint64_t* hashes = r.request.prefix_block_hashes.data();
  const uint64_t* bytes = r.streams[1].last_chunk.bytes.data();

  r.reset();
  const RequestState fresh;
  CHECK(r.request.id == fresh.request.id);
  CHECK(r.request.arrival_s == fresh.request.arrival_s);
  CHECK(r.request.input_tokens == fresh.request.input_tokens);
  CHECK(r.request.output_tokens == fresh.request.output_tokens);
  CHECK(r.request.source_line == fresh.request.source_line);
  CHECK(r.request.prefix_block_hashes.empty());
  CHECK(r.sequence == fresh.sequence);
  CHECK(r.record.id == fresh.record.id);
  CHECK(std::isnan(r.record.prefill_end_s));
  CHECK(r.phase == RequestPhase::queued);
  CHECK(r.protocol == nullptr);
  CHECK(r.undelivered_bytes == fresh.undelivered_bytes);
  CHECK(r.prefilled_tokens == 0);
  CHECK(r.chunks_ready == 0);
  CHECK(r.chunks_granted == 0);
  for (const RequestState::Stream& s : r.streams) {
    CHECK(s.flows_sending == 0);
    CHECK(s.chunks_issued == 0);
    CHECK(s.flows_issued == 0);
    CHECK(s.flows_delivered == 0);
    CHECK(s.sending.empty());
    CHECK(s.last_chunk.first_layer == -1);
    CHECK(s.last_chunk.layers == -1);
    CHECK(s.last_chunk.bytes.empty());
    CHECK(s.last_chunk.messages.empty());
  }
  CHECK(r.memory_bytes == 0);
  CHECK(r.memory_requested_s == 0);
  CHECK(r.prefill_memory_bytes == 0);
  CHECK(r.prefix_blocks_pinned == 0);
  CHECK(r.streams_sent == 0);
  CHECK(r.final_tokens == 0);
  CHECK(r.pending_spec_tokens == 0);
  // The storage is kept: the next request filling them allocates nothing.
  r.request.prefix_block_hashes.push_back(1);
  r.streams[1].last_chunk.bytes.push_back(1);
  CHECK(r.request.prefix_block_hashes.data() == hashes);
  CHECK(r.streams[1].last_chunk.bytes.data() == bytes);
}
