// Helpers for simulator tests: build a configuration from JSON text, run it in its own process (SimGrid allows one
// engine per process) and get back the records and counters.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/cluster/simulation.hpp"
#include "traces/request.hpp"

namespace lynx::test {

struct SimRun {
  std::vector<RequestRecord> records;
  uint64_t bytes_sent = 0, bytes_delivered = 0, bytes_expected = 0, flows = 0;
  nlohmann::json summary;
};

// `config` is a simulate configuration without "workload" (the requests are given directly). A pool that names no
// engine runs on vidur-2024, the profiled model whose closed forms the event-loop tests check (the configuration's
// default engine, vllm-0.24, adds its scheduler, host and front-end terms: tests of it name it).
// `reuse_request_states`: SimulationInputs' (false: each finished request's state freed, not reused).
SimRun run_simulation(nlohmann::json config, const std::vector<Request>& requests, bool reuse_request_states = true);
SimulationInputs make_inputs(nlohmann::json config, const std::vector<Request>& requests);
Request make_request(int64_t id, double arrival_s, int64_t input_tokens, int64_t output_tokens);

}  // namespace lynx::test
