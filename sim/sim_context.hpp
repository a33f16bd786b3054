// What the prefill and decode instances share with the transfer engine during one run.
#pragma once
#include <functional>
#include <vector>

#include "sim/event_loop.hpp"
#include "sim/request_state.hpp"
#include "sim/simulation.hpp"
#include "sim/transfer_protocol.hpp"

namespace lynx {

struct SimContext {
  EventLoop* loop = nullptr;
  const SimulationInputs* inputs = nullptr;
  const TransferProtocol* protocol = nullptr;  // the run's protocol: streams, joining, iteration roles
  int chunks = 0;  // transfer chunks per request

  int64_t chunk_layer_count(int chunk) const {
    const int64_t per = inputs->config.transfer.chunk_layers;
    const int64_t first = chunk * per;
    return std::min<int64_t>(per, inputs->model.n_layers - first);
  }
  // KV elements of `layers` layers (K and V) for `tokens` tokens.
  double kv_elements(int64_t tokens, int64_t layers) const {
    return 2.0 * static_cast<double>(tokens * layers * inputs->model.n_kv_heads * inputs->model.head_dim);
  }

  std::function<void(RequestState&, int chunk)> on_chunk_ready;  // prefill -> transfer engine
  std::function<void(RequestState&)> on_memory_granted;          // decode -> transfer engine
  std::function<void(RequestState&)> on_done;                    // decode -> the run: its record is final
};

}  // namespace lynx
