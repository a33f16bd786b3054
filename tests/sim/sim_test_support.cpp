#include "sim_test_support.hpp"

#include <cmath>

#include "sim/engine/isolated_run.hpp"
#include "sim/output/metrics.hpp"
#include "sim/output/request_columns.hpp"
#include "sim/config/sim_config.hpp"
#include "sim/config/simulation_setup.hpp"

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
  for (const char* pool : {"prefill", "decode"}) {
    nlohmann::json& p = config["cluster"][pool];
    if (p.is_null()) p = nlohmann::json::object();
    if (p.is_object() && !p.contains("engine")) p["engine"] = "vidur-2024";
  }
  return simulation_inputs(sim_config_from_json(config, "test-config.json", ""), requests);
}

namespace {
// A record as a JSON array of every member the requests.csv columns declare (sim/output/request_columns.hpp), in their
// order, exact (NaN as null): the child process hands its records back this way.
nlohmann::json record_to_json(const RequestRecord& r) {
  nlohmann::json j = nlohmann::json::array();
  for (const RequestColumn& c : kRequestColumns) {
    if (c.count != nullptr) j.push_back(r.*c.count);
    if (c.index != nullptr) j.push_back(r.*c.index);
    for (double RequestRecord::*m : {c.seconds, c.restores})
      if (m != nullptr) j.push_back(std::isnan(r.*m) ? nlohmann::json() : nlohmann::json(r.*m));
  }
  return j;
}
RequestRecord record_from_json(const nlohmann::json& j) {
  RequestRecord r;
  size_t i = 0;
  for (const RequestColumn& c : kRequestColumns) {
    if (c.count != nullptr) r.*c.count = j.at(i++).get<int64_t>();
    if (c.index != nullptr) r.*c.index = j.at(i++).get<int>();
    for (double RequestRecord::*m : {c.seconds, c.restores})
      if (m != nullptr) {
        r.*m = j.at(i).is_null() ? NAN : j.at(i).get<double>();
        ++i;
      }
  }
  return r;
}
}  // namespace

SimRun run_simulation(nlohmann::json config, const std::vector<Request>& requests, bool reuse_request_states) {
  SimulationInputs inputs = make_inputs(config, requests);
  inputs.reuse_request_states = reuse_request_states;
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
