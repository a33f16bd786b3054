// What the simulator's parts share during one run, and the typed interfaces through which they talk: the prefill
// and decode instances tell the transfer engine when a chunk is ready or memory is granted (TransferRequests), tell
// the router when a load changes (router.hpp's LoadListener), and a decode instance tells the run when a request is
// done (RequestDoneListener). Each part sees only these interfaces, never the thing that assembles them
// (simulation.cpp), so each can be driven alone.
#pragma once
#include <algorithm>
#include <cstdint>

#include "sim/event_loop.hpp"
#include "sim/request_state.hpp"
#include "sim/router.hpp"
#include "sim/simulation_inputs.hpp"
#include "sim/transfer_protocol.hpp"

namespace lynx {

// The instances -> the transfer engine (transfer_engine.hpp).
class TransferRequests {
 public:
  virtual ~TransferRequests() = default;
  // A prefill instance has computed and quantized chunk `chunk` of the request's KV.
  virtual void chunk_ready(RequestState& request, int chunk) = 0;
  // The request's decode instance has reserved its KV memory: its ready chunks may leave.
  virtual void memory_granted(RequestState& request) = 0;
};

// A decode instance -> the run: the request's last token is out and its record final (it may be freed).
class RequestDoneListener {
 public:
  virtual ~RequestDoneListener() = default;
  virtual void request_done(RequestState& request) = 0;
};

struct SimContext {
  EventLoop* loop = nullptr;
  const SimulationInputs* inputs = nullptr;
  const TransferProtocol* protocol = nullptr;  // the run's protocol: streams, joining, iteration roles
  int chunks = 0;  // transfer chunks per request
  TransferRequests* transfer = nullptr;
  LoadListener* loads = nullptr;
  RequestDoneListener* done = nullptr;

  int64_t chunk_layer_count(int chunk) const {
    const int64_t per = inputs->config.transfer.chunk_layers;
    const int64_t first = chunk * per;
    return std::min<int64_t>(per, inputs->model.n_layers - first);
  }
  // KV elements of `layers` layers (K and V) for `tokens` tokens.
  double kv_elements(int64_t tokens, int64_t layers) const {
    return 2.0 * static_cast<double>(tokens * layers * inputs->model.n_kv_heads * inputs->model.head_dim);
  }
};

}  // namespace lynx
