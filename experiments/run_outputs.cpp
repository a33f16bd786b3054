#include "experiments/run_outputs.hpp"

#include <filesystem>

#include "common/atomic_file.hpp"
#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "experiments/point_record.hpp"
#include "sim/config/resolved_config.hpp"

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
    std::string path;
    try {
      path = resolve_input_path(at->get<std::string>(), base_dir);
    } catch (const LynxError&) {
      continue;  // a path that does not resolve is named by the configuration's reader
    }
    // The summary records every input path: one JSON cannot hold (not UTF-8) would fail after the whole run.
    try {
      (void)nlohmann::json(path).dump();
    } catch (const nlohmann::json::exception&) {
      throw_error("%s: $.%s: %s is not UTF-8 text, which the run's JSON files cannot record; rename the file or "
                  "its folder", option.c_str(), field.c_str(), printable(path).c_str());
    }
    // A FIFO would hang the reader, /dev/zero never end: only regular files are read.
    std::error_code error;
    if (std::filesystem::exists(path, error)) check_input_file(path);
    plan.input_file(option + " ($." + field + ")", path);
  }
}

std::vector<std::string> results_folder_files(const Experiment& e) {
  std::vector<std::string> files = {"experiment.json", "summary.csv"};
  for (const SweepPoint& p : e.points)
    for (const std::string& f : run_folder_files()) files.push_back(p.name + "/" + f);
  return files;
}

}  // namespace lynx
