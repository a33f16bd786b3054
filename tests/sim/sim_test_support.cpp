#include "sim_test_support.hpp"

#include "sim/isolated_run.hpp"
#include "sim/metrics.hpp"
#include "sim/sim_config.hpp"
#include "sim/simulation_setup.hpp"

namespace lynx::test {

Request make_request(int64_t id, double arrival_s, int64_t input_tokens, int64_t output_tokens) {
  Request r;
  r.id = id;
  r.arrival_s = arrival_s;
  r.input_tokens = input_tokens;
  r.output_tokens = output_tokens;
  return r;
}

SimulationInputs make_inputs(nlohmann::json config, const std::vector<Request>& requests) {
  config["workload"] = nlohmann::json::object();
  return simulation_inputs(sim_config_from_json(config, "test-config.json", ""), requests);
}

namespace {
nlohmann::json record_to_json(const RequestRecord& r) {
  return {r.id, r.arrival_s, r.input_tokens, r.output_tokens, r.prefill_instance, r.decode_instance,
          r.prefill_start_s, r.prefill_end_s, r.transfer_start_s, r.anchor_arrival_s, r.residual_arrival_s,
          r.decode_start_s, r.first_spec_token_s, r.first_token_s, r.verify_s, r.end_s, r.spec_tokens,
          r.accepted_tokens, r.rolled_back_tokens, r.prefill_memory_wait_s, r.cached_tokens, r.first_correct_token_s, r.first_draft_kept};
}
double number(const nlohmann::json& v) { return v.is_null() ? NAN : v.get<double>(); }
RequestRecord record_from_json(const nlohmann::json& j) {
  RequestRecord r;
  r.id = j[0];
  r.arrival_s = number(j[1]);
  r.input_tokens = j[2];
  r.output_tokens = j[3];
  r.prefill_instance = j[4];
  r.decode_instance = j[5];
  r.prefill_start_s = number(j[6]);
  r.prefill_end_s = number(j[7]);
  r.transfer_start_s = number(j[8]);
  r.anchor_arrival_s = number(j[9]);
  r.residual_arrival_s = number(j[10]);
  r.decode_start_s = number(j[11]);
  r.first_spec_token_s = number(j[12]);
  r.first_token_s = number(j[13]);
  r.verify_s = number(j[14]);
  r.end_s = number(j[15]);
  r.spec_tokens = j[16];
  r.accepted_tokens = j[17];
  r.rolled_back_tokens = j[18];
  r.prefill_memory_wait_s = number(j[19]);
  r.cached_tokens = j[20];
  r.first_correct_token_s = number(j[21]);
  r.first_draft_kept = j[22];
  return r;
}
}  // namespace

SimRun run_simulation(nlohmann::json config, const std::vector<Request>& requests) {
  SimulationInputs inputs = make_inputs(config, requests);
  std::string text = run_isolated([&] {
    SimulationResult result = simulate(inputs);
    nlohmann::json out;
    for (const RequestRecord& r : result.records) out["records"].push_back(record_to_json(r));
    out["bytes_sent"] = result.bytes_sent;
    out["bytes_delivered"] = result.bytes_delivered;
    out["bytes_expected"] = result.bytes_expected;
    out["flows"] = result.flows;
    out["summary"] = summary_json(inputs, result, "test");
    return out.dump();
  });
  nlohmann::json out = nlohmann::json::parse(text);
  SimRun run;
  for (const auto& r : out["records"]) run.records.push_back(record_from_json(r));
  run.bytes_sent = out["bytes_sent"];
  run.bytes_delivered = out["bytes_delivered"];
  run.bytes_expected = out["bytes_expected"];
  run.flows = out["flows"];
  run.summary = out["summary"];
  return run;
}

}  // namespace lynx::test
