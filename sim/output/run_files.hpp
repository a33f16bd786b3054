// The result files of one simulation: <dir>/requests.csv (sim/output/requests_csv.hpp) and, last, <dir>/summary.json
// (sim/output/metrics.hpp), each written whole under a temporary name and renamed, so a present summary means a finished
// run. simulate_to_files runs the simulation and streams the records to both (bounded memory);
// write_simulation_results writes the same bytes from a result that kept its records. The front of a run
// (sim/config/run_config.hpp: the workload, the resolved configuration) and the benchmark call these.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "sim/cluster/simulation.hpp"

namespace lynx {

// Writes <dir>/requests.csv and <dir>/summary.json from `result`'s records. Creates dir if needed.
void write_simulation_results(const std::string& dir, const SimulationInputs& inputs, const SimulationResult& result,
                              const std::string& workload_source);

// Simulates and writes <dir>/requests.csv and <dir>/summary.json as write_simulation_results does (the same bytes),
// streaming: each finished request's row is written and its record dropped. Returns the summary. `watch`, if
// given, is handed each record after its row (the progress meter, the timeline: run_config.hpp). A failed run into a
// folder that did not exist leaves nothing behind.
nlohmann::json simulate_to_files(const std::string& dir, const SimulationInputs& inputs,
                                 const std::string& workload_source, SimulationResult* result = nullptr,
                                 const RecordSink& watch = nullptr);

}  // namespace lynx
