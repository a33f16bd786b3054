// lynx_sim's input: everything one run needs, resolved (sim/config/simulation_setup.hpp builds it from a configuration):
// the configuration with its choices as enums, the catalog entries, the KV format, the kernel costs, the compute
// models of both pools, the acceptance model and the workload (a list, or a source read as it is needed). The
// simulator's parts read it and never change it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kernels/kv_format.hpp"
#include "models/arch/catalog.hpp"
#include "models/cost/step_cost.hpp"
#include "sim/acceptance/acceptance.hpp"
#include "sim/cluster/engine_serving.hpp"
#include "sim/transfer/kernel_costs.hpp"
#include "sim/config/sim_config.hpp"
#include "traces/request.hpp"

namespace lynx {

// One KV format's part of the inputs: the format, its kernel costs on both pools and its acceptance model.
struct FormatInputs {
  KvFormat format;
  KernelCosts prefill_kernels, decode_kernels;
  AcceptanceModel acceptance;  // used by lynx formats
};

struct SimulationInputs {
  SimConfig config;
  ModelSpec model;
  GpuSpec prefill_gpu, decode_gpu;
  FormatInputs run_format;  // the configuration's `format`: every request's, or the adaptive policy's reference
  std::shared_ptr<const StepCostModel> prefill_cost, decode_cost;  // models/cost/compute_model.hpp
  // A pool on a named engine: the engine as it serves (scheduler, KV cache, CUDA graphs, host and front-end terms:
  // sim/cluster/engine_serving.hpp); its step costs above include the host time it exposes. Unset for vidur-2024.
  // A co-located run's instances are the decode pool's kind (decode_serving).
  std::optional<EngineServing> prefill_serving, decode_serving;
  // transfer.format_policy "adaptive": the candidates besides run_format, in transfer.adaptive_formats' order
  // (sim/transfer/format_policy.hpp). Empty with the fixed policy.
  std::vector<FormatInputs> adaptive_candidates;
  std::vector<Request> requests;     // sorted by arrival (unless request_source is set)
  // Optional: the workload read as it is needed instead of `requests`. Each call fills the next request (sorted by
  // arrival) and returns false at the end. Each request is checked as it arrives (check_request).
  std::function<bool(Request&)> request_source;
  // A closed loop of this many clients (`workload.max_concurrency`; 0: none): a request is sent when a client is
  // free, at its arrival or later, and its record's arrival is when it was sent.
  int64_t max_concurrency = 0;
  std::string workload_source;       // the trace file (or a description of a synthetic workload), for messages
  nlohmann::json workload_record;    // the summary's "workload" (sim/config/run_config.cpp): trace and sha256, or the
                                     // synthetic spec, and the transforms applied; null: left out
  int64_t prefix_block_tokens = 512; // tokens per entry of Request::prefix_block_hashes (Mooncake: 512)
  int64_t over_context_skipped = 0, over_context_truncated = 0;  // workload.over_context's work, for the summary
  // Optional (`lynxsim simulate --flow-log`, benchmarks): every flow written to this flow log (sim/engine/flow_log.hpp).
  std::string flow_log_path;
  // SimGrid configuration items given on top of the defaults (`--cfg`, sim/engine/simgrid_options.hpp), already checked.
  std::vector<std::string> simgrid_cfg;
  // A finished request's state is reset and reused by a later arrival (true, every run); false: freed, each arrival
  // allocating its own, the same results (a check: tests/sim/test_state_reuse.cpp runs both, under AddressSanitizer
  // too, where a handler touching a freed state is reported; sim/cluster/simulation.cpp, SpareStates).
  bool reuse_request_states = true;
};

}  // namespace lynx
