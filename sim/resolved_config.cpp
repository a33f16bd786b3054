// The resolved, runnable configuration of a run (sim/resolved_config.hpp).
#include "sim/resolved_config.hpp"

#include <filesystem>

#include "common/data_folder.hpp"
#include "common/json_reader.hpp"

namespace lynx {

namespace fs = std::filesystem;

const char* const* resolved_config_path_fields() {
  static const char* const fields[] = {"kernel_costs",
                                       "models_catalog",
                                       "gpus_catalog",
                                       "lynx.acceptance",
                                       "workload.trace",
                                       "workload.synthetic.input_tokens.empirical",
                                       "workload.synthetic.output_tokens.empirical",
                                       nullptr};
  return fields;
}

namespace {
// The value at a dotted path, or null when any step is missing or not an object.
nlohmann::json* find_field(nlohmann::json& root, const std::string& dotted) {
  nlohmann::json* at = &root;
  size_t begin = 0;
  while (true) {
    const size_t end = dotted.find('.', begin);
    const std::string key = dotted.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (!at->is_object() || !at->contains(key)) return nullptr;
    at = &(*at)[key];
    if (end == std::string::npos) return at;
    begin = end + 1;
  }
}
}  // namespace

ResolvedConfig resolve_config(const nlohmann::json& root, const std::string& origin, const std::string& base_dir) {
  sim_config_from_json(root, origin, base_dir);  // every field checked, every input file found, errors named
  ResolvedConfig r;
  r.json = root;
  for (const char* const* field = resolved_config_path_fields(); *field != nullptr; ++field) {
    nlohmann::json* value = find_field(r.json, *field);
    if (value == nullptr || !value->is_string()) continue;
    *value = fs::absolute(resolve_input_path(value->get<std::string>(), base_dir)).lexically_normal().string();
  }
  r.config = sim_config_from_json(r.json, origin, base_dir);
  return r;
}

ResolvedConfig resolve_config_file(const std::string& path) {
  return resolve_config(json_parse_file(path, true), path, fs::path(path).parent_path().string());
}

}  // namespace lynx
