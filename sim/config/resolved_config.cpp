// The resolved, runnable configuration of a run (sim/config/resolved_config.hpp).
#include "sim/config/resolved_config.hpp"

#include <filesystem>
#include <vector>

#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "common/json_schema.hpp"

namespace lynx {

namespace fs = std::filesystem;

namespace {
// Every PathField under `section`, as dotted paths from the root.
void collect_path_fields(const SchemaSection& section, const std::string& prefix, std::vector<std::string>& out) {
  for (size_t i = 0; i < section.count; ++i) {
    const SchemaField& f = section.fields[i];
    if (f.kind == FieldKind::path) out.push_back(prefix + f.path->key);
    if (f.kind == FieldKind::object && f.object->section != nullptr)
      collect_path_fields(*f.object->section, prefix + f.object->key + ".", out);
  }
}
}  // namespace

const std::vector<std::string>& resolved_config_path_fields() {
  static const std::vector<std::string> fields = [] {
    std::vector<std::string> out;
    collect_path_fields(kSimConfigSection, "", out);
    return out;
  }();
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
  for (const std::string& field : resolved_config_path_fields()) {
    nlohmann::json* value = find_field(r.json, field);
    // "" is left as the first check read it (std::filesystem::absolute("") throws: fuzz_set_override found it).
    if (value == nullptr || !value->is_string() || value->get_ref<const std::string&>().empty()) continue;
    std::string resolved;
    try {
      resolved = fs::absolute(resolve_input_path(value->get<std::string>(), base_dir)).lexically_normal().string();
    } catch (const LynxError& e) {  // a data file not found: named by the field that names it
      throw_error("%s: $.%s: %s", origin.c_str(), field.c_str(), e.what());
    }
    std::error_code error;
    if (!fs::exists(resolved, error))
      throw_error("%s: $.%s: %s: no such file (\"%s\" resolved against %s)", origin.c_str(), field.c_str(),
                  resolved.c_str(), value->get_ref<const std::string&>().c_str(),
                  base_dir.empty() ? "the current folder" : base_dir.c_str());
    *value = resolved;
  }
  r.config = sim_config_from_json(r.json, origin, base_dir);
  return r;
}

}  // namespace lynx
