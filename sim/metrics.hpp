// Results of one simulation: the per-request CSV and the summary JSON, with vLLM's benchmark metric names
// (units in names: mean_ttft_ms, p99_tpot_ms, request_throughput in requests/s, ...) plus the transfer-specific
// ones of DESIGN.md. Two TTFTs: ttft (first final token) and ttft_spec (first token produced, possibly
// speculative); they are equal for formats without speculation. Percentiles interpolate linearly between order
// statistics (numpy's default, as vLLM's benchmark). Output is deterministic: no wall-clock figures.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/simulation.hpp"

namespace lynx {

// Linear-interpolation percentile (0..100) of unsorted values; NaN for an empty set.
double percentile(std::vector<double> values, double pct);

nlohmann::json summary_json(const SimulationInputs& inputs, const SimulationResult& result,
                            const std::string& workload_source);
std::string requests_csv(const std::vector<RequestRecord>& records);

// Writes <dir>/requests.csv and <dir>/summary.json (each atomically; the summary last, so a present summary means
// a finished run). Creates dir if needed.
void write_simulation_results(const std::string& dir, const SimulationInputs& inputs, const SimulationResult& result,
                              const std::string& workload_source);

}  // namespace lynx
