// lynx_sim: the simulator of a disaggregated serving cluster (DESIGN.md, "A request's path").
// arrival -> router picks a prefill and a decode instance -> prefill (FCFS, layer by layer) -> each chunk of
// layers is quantized and sent (Lynx: an anchor flow weighted above a residual flow) once the decode instance has
// reserved memory for the request (each stream of a request is one connection: its chunks leave in order, one
// at a time, so a request's stream takes one fair share of a link) -> decode: the request joins the continuous batch when its anchors (or all its
// chunks) are in; Lynx drafts tokens on anchor-only KV until every residual chunk is in, then one verification
// pass keeps the accepted drafts plus the verifier's token and decoding continues on full KV.
// The parts, each in its own file and tested alone: the event loop (event_loop.hpp, SimGrid underneath), the router
// (router.hpp), the prefill and decode instances (prefill_instance.hpp, decode_instance.hpp), the transfer engine
// (transfer_engine.hpp), the transfer protocol of the format (transfer_protocol.hpp) and the memory arithmetic
// (capacity.hpp). They talk through typed interfaces (sim_context.hpp); simulation.cpp assembles them, reads the
// workload one request ahead and hands each finished record on in workload order.
// One Simulation per process (SimGrid's engine is a singleton).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/output/request_record.hpp"
#include "sim/config/simulation_inputs.hpp"

namespace lynx {

struct SimulationResult {
  std::vector<RequestRecord> records;  // in request id order (empty when a record sink was given)
  uint64_t requests = 0;               // completed requests
  double makespan_s = 0;
  uint64_t flows = 0;
  uint64_t bytes_sent = 0, bytes_delivered = 0;
  uint64_t bytes_expected = 0;         // every request's KV in its format, from the size arithmetic
  std::vector<int64_t> format_requests;  // adaptive format policy: requests given each candidate (else empty)
  bool colocated = false;              // served co-located (engine schedulers)
  uint64_t preemptions = 0;            // co-located: requests preempted (vLLM) or retracted (SGLang), each time
  double wall_s = 0;
};

SimulationResult simulate(const SimulationInputs& inputs);

// The same, handing each finished request's record to `on_record` in request order (workload order) and keeping
// none: memory holds only the requests in flight (and, for the order, those finished before an earlier one).
using RecordSink = std::function<void(const RequestRecord&)>;
SimulationResult simulate(const SimulationInputs& inputs, const RecordSink& on_record);

// The platform nodes of a configuration: prefill instances first, then decode, each with its NICs.
std::vector<struct PlatformNode> cluster_platform_nodes(const SimConfig& config);

}  // namespace lynx
