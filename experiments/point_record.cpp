// The record of what a sweep point ran (experiments/point_record.hpp).
#include "experiments/point_record.hpp"

#include <filesystem>
#include <vector>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "sim/sim_config.hpp"
#include "traces/workload_spec.hpp"

namespace lynx {

namespace fs = std::filesystem;

namespace {
std::string absolute_path(const std::string& path) {
  return path.empty() ? path : fs::absolute(path).lexically_normal().string();
}

void add_input(nlohmann::json& inputs, const char* name, const std::string& path) {
  if (!path.empty()) inputs[name] = absolute_path(path);
}
}  // namespace

nlohmann::json point_record(const Experiment& e, const SweepPoint& p) {
  const SimConfig config = sim_config_from_json(p.config, e.origin + " (point " + p.name + ")", e.base_dir);
  nlohmann::json inputs = nlohmann::json::object();
  add_input(inputs, "lynx.acceptance", config.lynx.acceptance_file);
  add_input(inputs, "kernel_costs", config.kernel_costs);
  add_input(inputs, "models_catalog", config.models_catalog);
  add_input(inputs, "gpus_catalog", config.gpus_catalog);
  if (!config.workload.is_null()) {
    JsonObject workload(config.workload, config.origin, "$.workload");
    const WorkloadSpec spec = workload_spec_from_json(workload, e.base_dir);
    add_input(inputs, "workload.trace", spec.trace_path);
    add_input(inputs, "workload.synthetic.input_tokens.empirical", spec.synthetic_spec.input_tokens.trace_path);
    add_input(inputs, "workload.synthetic.output_tokens.empirical", spec.synthetic_spec.output_tokens.trace_path);
  }
  return {{"config", p.config}, {"inputs", inputs}};
}

PointState point_state(const std::string& dir, const nlohmann::json& record) {
  if (!fs::exists(dir + "/summary.json")) return PointState::not_finished;
  const std::string path = dir + "/" + kPointRecordFile;
  if (!fs::exists(path)) return PointState::stale;
  const nlohmann::json recorded = nlohmann::json::parse(read_file(path), nullptr, false);
  return !recorded.is_discarded() && recorded == record ? PointState::finished : PointState::stale;
}

void point_prepare(const std::string& dir, const nlohmann::json& record) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) throw_error("%s: cannot create the directory: %s", dir.c_str(), error.message().c_str());
  auto remove = [&](const fs::path& path) {
    fs::remove(path, error);
    if (error) throw_error("%s: cannot remove: %s", path.c_str(), error.message().c_str());
  };
  // The summary first: from here on the point reads as not finished, whatever else is interrupted.
  for (const char* name : {"summary.json", "requests.csv", "error.txt"}) remove(fs::path(dir) / name);
  // Temporaries of a run that was killed (write_file_atomic's "<name>.tmp.<pid>").
  std::vector<fs::path> temporaries;
  for (const auto& entry : fs::directory_iterator(dir, error))
    if (entry.path().filename().string().find(".tmp.") != std::string::npos) temporaries.push_back(entry.path());
  for (const fs::path& path : temporaries) remove(path);
  write_file_atomic(dir + "/" + kPointRecordFile, record.dump(2) + "\n");
}

}  // namespace lynx
