// A request in flight: its record plus the run-time state the instances and the transfer engine share.
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/request_record.hpp"
#include "traces/request.hpp"

namespace lynx {

struct RequestState {
  Request request;
  RequestRecord record;
  // prefill
  int64_t prefilled_tokens = 0;      // tokens scheduled into prefill iterations so far
  // transfer
  std::vector<int> ready_chunks;     // chunks computed and quantized, waiting for the decode memory
  // Each stream (anchor, residual) is one connection: its chunks leave in order, one at a time.
  struct Stream {
    std::deque<int> queue;  // chunks ready to leave
    bool sending = false;   // a chunk is on the wire
    int arrived = 0;        // chunks delivered
  };
  Stream anchor, residual;  // a single-stream format uses `anchor` only
  bool memory_granted = false;
  bool memory_requested = false;
  bool residual_ready = false;       // lynx: every residual chunk arrived
  double memory_bytes = 0;           // reserved on the decode instance
  // decode
  bool joined = false;
  bool speculative = false;          // lynx: decoding on anchor-only KV, not yet verified
  int64_t final_tokens = 0;          // tokens that are final
  int64_t pending_spec_tokens = 0;   // drafts awaiting verification
  bool done = false;
};

}  // namespace lynx
