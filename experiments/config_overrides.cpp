// --set PATH=VALUE overrides of simulate configurations and experiment bases (experiments/config_overrides.hpp).
#include "experiments/config_overrides.hpp"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "common/did_you_mean.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "common/json_schema.hpp"
#include "experiments/experiment.hpp"
#include "sim/config/sim_config.hpp"
#include "traces/workload_spec.hpp"

namespace lynx {

ConfigOverride config_override_parse(const std::string& text) {
  ConfigOverride o;
  o.option = "--set " + text;
  try {  // the configuration as run is written as JSON, which holds only UTF-8 text
    (void)nlohmann::json(text).dump();
  } catch (const nlohmann::json::exception&) {
    throw_error("%s: not UTF-8 text, which a configuration cannot hold", printable(o.option).c_str());
  }
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0)
    throw_error("%s: expected PATH=VALUE, a dotted JSON path and its value (e.g. --set cluster.network.nic_gbps=25)",
                o.option.c_str());
  o.path = text.substr(0, equals);
  const std::string value = text.substr(equals + 1);
  if (nlohmann::json::accept(value)) {
    try {
      o.value = json_parse_text(value, o.option);
    } catch (const LynxError& e) {  // valid syntax but not representable (1e400) or a key given twice
      throw_error("%s", e.what());
    }
  } else {
    o.value = value;  // not JSON: a string (a format name, a file path)
  }
  return o;
}

std::vector<ConfigOverride> config_overrides_parse(const std::vector<std::string>& texts) {
  std::vector<ConfigOverride> overrides;
  for (const std::string& text : texts) overrides.push_back(config_override_parse(text));
  return overrides;
}

namespace {
// A null override removes a field, so the configuration's reader never sees a misspelt one: its path is checked
// against the declarations instead (kSimConfigSection), down to the first field that is not a declared object.
void check_declared_path(const ConfigOverride& o) {
  const SchemaSection* section = &kSimConfigSection;
  size_t begin = 0;
  std::string walked = "$";
  while (section != nullptr) {
    const size_t end = o.path.find('.', begin);
    const std::string key = o.path.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    const SchemaField* field = schema_find(*section, key.c_str());
    if (field == nullptr) {
      std::string valid;
      std::vector<std::string> names;
      for (size_t i = 0; i < section->count; ++i) {
        valid += std::string(valid.empty() ? "" : ", ") + section->fields[i].key();
        names.emplace_back(section->fields[i].key());
      }
      throw_error("%s: %s.%s: unknown field%s (valid here: %s)", o.option.c_str(), walked.c_str(), key.c_str(),
                  did_you_mean(key, names).c_str(), valid.c_str());
    }
    if (end == std::string::npos) return;
    walked += "." + key;
    section = field->kind == FieldKind::object ? field->object->section : nullptr;
    begin = end + 1;
  }
}

// A --set value of an input path field that starts with ./ or ../ says it is a path typed at the shell: it is made
// absolute against the current folder. Every other relative value resolves against the configuration's folder, as
// the file's own paths do (docs/paths.md).
nlohmann::json shell_relative(const ConfigOverride& o) {
  if (!o.value.is_string()) return o.value;
  const std::string text = o.value.get<std::string>();
  if (text.rfind("./", 0) != 0 && text.rfind("../", 0) != 0) return o.value;
  const std::vector<std::string>& fields = resolved_config_path_fields();
  if (std::find(fields.begin(), fields.end(), o.path) == fields.end()) return o.value;
  return std::filesystem::absolute(text).lexically_normal().string();
}
}  // namespace

void config_overrides_apply(nlohmann::json& config, const std::vector<ConfigOverride>& overrides) {
  for (const ConfigOverride& o : overrides) {
    if (o.value.is_null()) check_declared_path(o);
    try {
      json_set_path(config, o.path, shell_relative(o));
    } catch (const LynxError& e) {
      throw_error("%s: %s", o.option.c_str(), e.what());
    }
  }
}

namespace {
// Whether `error` names the JSON path `json_path` followed by one of `after` (":" the field itself, "." or "[" a
// field inside it).
bool names_path(const std::string& error, const std::string& json_path, const char* after) {
  for (size_t at = error.find(json_path); at != std::string::npos; at = error.find(json_path, at + 1)) {
    const size_t end = at + json_path.size();
    if (end < error.size() && std::strchr(after, error[end]) != nullptr) return true;
  }
  return false;
}
}  // namespace

std::string config_override_blame(const std::string& error, const std::vector<ConfigOverride>& overrides) {
  // The override whose field the error names, or a field inside it.
  for (size_t i = overrides.size(); i-- > 0;)
    if (names_path(error, "$." + overrides[i].path, ":.[")) return overrides[i].option + ": " + error;
  // Else the override of a field inside the object the error is about ($.workload: "trace" or "synthetic", after
  // --set workload.trace=...), or of a field beside the one it names that requires it ("required with
  // \"format_policy\": ...", after --set transfer.format_policy=adaptive).
  for (size_t i = overrides.size(); i-- > 0;) {
    const std::string& path = overrides[i].path;
    for (size_t dot = path.rfind('.'); dot != std::string::npos && dot > 0; dot = path.rfind('.', dot - 1))
      if (names_path(error, "$." + path.substr(0, dot), ":")) return overrides[i].option + ": " + error;
    const size_t dot = path.rfind('.');
    if (dot == std::string::npos || dot == 0) continue;
    const std::string key = "\"" + path.substr(dot + 1) + "\"";
    if (names_path(error, "$." + path.substr(0, dot), ".") && error.find(key) != std::string::npos)
      return overrides[i].option + ": " + error;
  }
  return error;
}

ResolvedConfig resolve_config_file_with_overrides(const std::string& path, const std::vector<ConfigOverride>& overrides) {
  nlohmann::json root = json_parse_file(path, true);
  sim_config_check_kind(root, path);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  if (root.is_object()) config_overrides_apply(root, overrides);  // else the reader names the file's error
  try {
    ResolvedConfig resolved = resolve_config(root, path, dir);
    JsonObject workload(resolved.config.workload, resolved.config.origin, "$.workload");
    (void)workload_spec_from_json(workload, dir);
    return resolved;
  } catch (const LynxError& e) {
    throw LynxError(config_override_blame(e.what(), overrides));
  }
}

Experiment experiment_load_with_overrides(const std::string& path, const std::vector<ConfigOverride>& overrides) {
  nlohmann::json root = json_parse_file(path, true);
  experiment_check_kind(root, path);
  const std::string dir = std::filesystem::path(path).parent_path().string();
  if (root.is_object() && root.contains("base") && root["base"].is_object())
    config_overrides_apply(root["base"], overrides);  // else the reader names the file's error
  Experiment e;
  try {
    e = experiment_from_json(root, path, dir);
  } catch (const LynxError& error) {
    throw LynxError(config_override_blame(error.what(), overrides));
  }
  for (const ConfigOverride& o : overrides)
    for (size_t a = 0; a < e.axes.size(); ++a)
      for (const std::string& swept : e.axes[a].paths)
        if (paths_overlap(o.path, swept))
          throw_error("%s: %s: $.sweep.axes[%zu] sets \"%s\" at every point, which would replace the override "
                      "(change the axis's values instead)",
                      o.option.c_str(), path.c_str(), a, swept.c_str());
  return e;
}

}  // namespace lynx
