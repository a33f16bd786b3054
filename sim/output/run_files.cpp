#include "sim/output/run_files.hpp"

#include <filesystem>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "sim/output/metrics.hpp"
#include "sim/output/requests_csv.hpp"

namespace lynx {

void write_simulation_results(const std::string& dir, const SimulationInputs& inputs, const SimulationResult& result,
                              const std::string& workload_source) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw_error("%s: cannot create directory: %s", dir.c_str(), error.message().c_str());
  write_file_atomic(dir + "/requests.csv", requests_csv(result.records));
  write_file_atomic(dir + "/summary.json", summary_json(inputs, result, workload_source).dump(2) + "\n");
}

nlohmann::json simulate_to_files(const std::string& dir, const SimulationInputs& inputs,
                                 const std::string& workload_source, SimulationResult* result_out,
                                 const RecordSink& watch) {
  std::error_code error;
  const bool existed = std::filesystem::exists(dir, error);
  std::filesystem::create_directories(dir, error);
  if (error) throw_error("%s: cannot create directory: %s", dir.c_str(), error.message().c_str());
  try {
    RequestsCsvWriter csv(dir + "/requests.csv");
    MetricsStream metrics(inputs);
    SimulationResult result = simulate(inputs, [&](const RequestRecord& r) {
      csv.add(r);
      metrics.add(r);
      if (watch) watch(r);
    });
    csv.commit();
    nlohmann::json summary = summary_json(inputs, result, metrics, workload_source);
    write_file_atomic(dir + "/summary.json", summary.dump(2) + "\n");
    if (result_out != nullptr) *result_out = std::move(result);
    return summary;
  } catch (...) {
    if (!existed) std::filesystem::remove_all(dir, error);  // a failed run leaves nothing behind
    throw;
  }
}

}  // namespace lynx
