// What the simulator's parts share during one run, and the typed interfaces through which they talk: the prefill
// and decode instances tell the transfer engine when a chunk is ready or memory is granted (TransferRequests), tell
// the router when a load changes (router.hpp's LoadListener), and a decode instance tells the run when a request is
// done (RequestDoneListener). Each part sees only these interfaces, never the thing that assembles them
// (simulation.cpp), so each can be driven alone.
#pragma once
#include <algorithm>
#include <cstdint>

#include "models/arch/kv_size.hpp"
#include "sim/engine/event_loop.hpp"
#include "sim/cluster/request_state.hpp"
#include "sim/cluster/router.hpp"
#include "sim/config/simulation_inputs.hpp"
#include "sim/transfer/transfer_protocol.hpp"

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

  // The request's protocol: its own where the adaptive format policy chose one, else the run's.
  const TransferProtocol& protocol_of(const RequestState& r) const { return r.protocol ? *r.protocol : *protocol; }

  int64_t chunk_first_layer(int chunk) const { return chunk * inputs->config.transfer.chunk_layers; }
  int64_t chunk_layer_count(int chunk) const {
    const int64_t per = inputs->config.transfer.chunk_layers;
    return std::min<int64_t>(per, inputs->model.n_layers - chunk_first_layer(chunk));
  }
  // KV elements of chunk `chunk`'s layers for a `tokens`-token prompt (models/arch/kv_size.hpp: K and V, or MLA's
  // latent; sliding-window layers at most their window).
  double kv_elements(int64_t tokens, int chunk) const {
    return layers_kv_elements(inputs->model, tokens, chunk_first_layer(chunk), chunk_layer_count(chunk));
  }
};

}  // namespace lynx
