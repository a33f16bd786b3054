#include "sim/run_config.hpp"

#include "common/json_reader.hpp"
#include "sim/input_checks.hpp"
#include "sim/metrics.hpp"
#include "sim/simulation_setup.hpp"
#include "traces/workload_spec.hpp"
#include "traces/workload_stream.hpp"

namespace lynx {

namespace {
std::string describe_workload(const WorkloadSpec& spec) {
  if (!spec.trace_path.empty()) return spec.trace_path;
  return "synthetic (" + spec.origin + ")";
}
}  // namespace

RunOutcome run_config(const SimConfig& config, const std::string& out_dir) {
  JsonObject workload(config.workload, config.origin, "$.workload");
  WorkloadSpec spec = workload_spec_from_json(workload, config.base_dir);
  if (spec.prefix_block_tokens_given && !config.prefill.prefix_cache)
    workload.fail("prefix_block_tokens", "no prefix_block_tokens without \"cluster.prefill.prefix_cache\": true (it "
                                         "would be ignored)");
  // The workload is read as it is needed (bounded memory for any length), unless over_context "skip" or "truncate"
  // must renumber the requests first.
  std::function<bool(Request&)> stream = spec.over_context == "error" ? workload_stream(spec, config.seed) : nullptr;
  SimulationInputs inputs = simulation_inputs(config, stream ? std::vector<Request>{} : workload_build(spec, config.seed));
  inputs.request_source = std::move(stream);
  const std::string source = describe_workload(spec);
  inputs.workload_source = source;
  inputs.prefix_block_tokens = spec.prefix_block_tokens;
  apply_over_context(inputs, spec.over_context);
  SimulationResult result;
  RunOutcome outcome;
  outcome.summary = simulate_to_files(out_dir, inputs, source, &result);
  outcome.wall_s = result.wall_s;
  outcome.requests = result.requests;
  return outcome;
}

}  // namespace lynx
