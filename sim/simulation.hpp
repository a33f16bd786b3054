// lynx_sim: the simulator of a disaggregated serving cluster (DESIGN.md, "A request's path").
// arrival -> router picks a prefill and a decode instance -> prefill (FCFS, layer by layer) -> each chunk of
// layers is quantized and sent (Lynx: an anchor flow weighted above a residual flow) once the decode instance has
// reserved memory for the request (each stream of a request is one connection: its chunks leave in order, one
// at a time, so a request's stream takes one fair share of a link) -> decode: the request joins the continuous batch when its anchors (or all its
// chunks) are in; Lynx drafts tokens on anchor-only KV until every residual chunk is in, then one verification
// pass keeps the accepted drafts plus the verifier's token and decoding continues on full KV.
// One Simulation per process (SimGrid's engine is a singleton).
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "kernels/kv_format.hpp"
#include "models/catalog.hpp"
#include "models/step_cost.hpp"
#include "sim/acceptance.hpp"
#include "sim/kernel_costs.hpp"
#include "sim/request_record.hpp"
#include "sim/sim_config.hpp"
#include "traces/request.hpp"

namespace lynx {

// Everything a run needs, resolved: the configuration plus the catalog entries, format, costs and workload.
struct SimulationInputs {
  SimConfig config;
  ModelSpec model;
  GpuSpec prefill_gpu, decode_gpu;
  KvFormat format;
  KernelCosts prefill_kernels, decode_kernels;
  std::shared_ptr<const StepCostModel> prefill_cost, decode_cost;  // models/compute_model.hpp
  AcceptanceModel acceptance;        // used by lynx formats
  std::vector<Request> requests;     // sorted by arrival (unless request_source is set)
  // Optional: the workload read as it is needed instead of `requests`. Each call fills the next request (sorted by
  // arrival) and returns false at the end. Each request is checked as it arrives (check_request).
  std::function<bool(Request&)> request_source;
  std::string workload_source;       // the trace file (or a description of a synthetic workload), for messages
  nlohmann::json workload_record;    // the summary's "workload" (sim/run_config.cpp): trace and sha256, or the
                                     // synthetic spec, and the transforms applied; null: left out
  int64_t prefix_block_tokens = 512; // tokens per entry of Request::prefix_block_hashes (Mooncake: 512)
  int64_t over_context_skipped = 0, over_context_truncated = 0;  // workload.over_context's work, for the summary
  // Optional (benchmarks): every flow appended to this file as a FlowLogEntry when it starts.
  std::string flow_log_path;
};

struct FlowLogEntry {
  double start_s;
  int32_t src, dst;  // endpoints (platform.hpp)
  uint64_t bytes;
  double weight;
};

struct SimulationResult {
  std::vector<RequestRecord> records;  // in request id order (empty when a record sink was given)
  uint64_t requests = 0;               // completed requests
  double makespan_s = 0;
  uint64_t flows = 0;
  uint64_t bytes_sent = 0, bytes_delivered = 0;
  uint64_t bytes_expected = 0;         // every request's KV in the format, from the size arithmetic
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
