#include "experiments/run_outputs.hpp"

#include <filesystem>

#include "common/atomic_file.hpp"
#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
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
    if (std::filesystem::exists(path, error)) {
      try {
        check_input_file(path);
      } catch (const LynxError& e) {
        throw_error("%s: $.%s: %s", option.c_str(), field.c_str(), e.what());
      }
    }
    plan.input_file(option + " ($." + field + ")", path);
    // A models catalog's entries may name a Hugging Face config.json each ("hf_config"): inputs too (a run
    // folder's config.json must not replace one). A catalog that does not read is named by its reader.
    if (field == "models_catalog" && std::filesystem::is_regular_file(path, error)) {
      nlohmann::json catalog;
      try {
        catalog = json_parse_file(path);
      } catch (const LynxError&) {
        continue;
      }
      const std::string catalog_dir = std::filesystem::path(path).parent_path().string();
      if (!catalog.is_object() || !catalog.contains("models") || !catalog["models"].is_array()) continue;
      for (const nlohmann::json& entry : catalog["models"]) {
        if (!entry.is_object() || !entry.contains("hf_config") || !entry["hf_config"].is_string()) continue;
        const std::string name = entry.contains("name") && entry["name"].is_string() ? entry["name"].get<std::string>()
                                                                                      : std::string("?");
        try {
          plan.input_file(option + " ($." + field + ": hf_config of " + name + ")",
                          resolve_input_path(entry["hf_config"].get<std::string>(), catalog_dir));
        } catch (const LynxError&) {
          // a missing hf_config makes its model unavailable: the catalog's reader says so
        }
      }
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
