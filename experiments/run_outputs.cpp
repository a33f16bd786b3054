#include "experiments/run_outputs.hpp"

#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "experiments/point_record.hpp"
#include "sim/resolved_config.hpp"

namespace lynx {

const std::vector<std::string>& run_folder_files() {
  static const std::vector<std::string> files = {kPointRecordFile, "requests.csv", "summary.json", "error.txt"};
  return files;
}

void output_plan_add_config_inputs(OutputPlan& plan, const std::string& option, const nlohmann::json& config,
                                   const std::string& base_dir) {
  for (const std::string& field : resolved_config_path_fields()) {
    const nlohmann::json* at = &config;
    size_t begin = 0;
    while (at != nullptr) {
      const size_t end = field.find('.', begin);
      const std::string key = field.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
      at = at->is_object() && at->contains(key) ? &(*at)[key] : nullptr;
      if (end == std::string::npos) break;
      begin = end + 1;
    }
    if (at == nullptr || !at->is_string()) continue;
    try {
      plan.input_file(option + " ($." + field + ")", resolve_input_path(at->get<std::string>(), base_dir));
    } catch (const LynxError&) {
      // a path that does not resolve is named by the configuration's reader
    }
  }
}

std::vector<std::string> results_folder_files(const Experiment& e) {
  std::vector<std::string> files = {"experiment.json", "summary.csv"};
  for (const SweepPoint& p : e.points)
    for (const std::string& f : run_folder_files()) files.push_back(p.name + "/" + f);
  return files;
}

}  // namespace lynx
