// Command-line overrides of a configuration: `--set PATH=VALUE`, PATH a dotted JSON path as sweep axes use
// (cluster.network.nic_gbps), VALUE parsed as JSON when it parses (25, true, null, {"fixed": 64}, [0, 600]) and taken
// as a string otherwise (int8-g64). null removes the field, so it takes its default. The result is validated like
// the file; an error caused by an override names the option, then the file and JSON path as usual. A value of an
// input path field resolves against the configuration's folder like the file's own paths, except one that starts
// with ./ or ../, which says it is a path typed at the shell and is taken against the current folder
// (docs/paths.md).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/experiment.hpp"
#include "sim/config/resolved_config.hpp"
#include "sim/config/sim_config.hpp"

namespace lynx {

struct ConfigOverride {
  std::string option;     // as given, "--set PATH=VALUE", for messages
  std::string path;       // dotted JSON path
  nlohmann::json value;
};

// Parses "PATH=VALUE"; a malformed one is a LynxError naming the option.
ConfigOverride config_override_parse(const std::string& text);
std::vector<ConfigOverride> config_overrides_parse(const std::vector<std::string>& texts);

// Sets each override in `config` (a JSON object), in order.
void config_overrides_apply(nlohmann::json& config, const std::vector<ConfigOverride>& overrides);

// The message of `error` prefixed with the option of the last override whose JSON path it names ("$.PATH:",
// "$.PATH." or "$.PATH["); else of the last override inside the object the error is about ("$.workload:" after
// --set workload.trace=...) or beside the field it names and quoted in it (a field "required with
// \"format_policy\"" after --set transfer.format_policy=...); unchanged when none.
std::string config_override_blame(const std::string& error, const std::vector<ConfigOverride>& overrides);

// Loads a simulate configuration, applies the overrides, validates the result with its workload and resolves its
// input paths (sim/config/resolved_config.hpp: what the run folder's config.json holds).
ResolvedConfig resolve_config_file_with_overrides(const std::string& path, const std::vector<ConfigOverride>& overrides);

// Loads an experiment with the overrides applied to its base configuration (before the sweep's axes, so every point
// has them); an override of a path a sweep axis sets is an error, as the axis would silently replace it.
Experiment experiment_load_with_overrides(const std::string& path, const std::vector<ConfigOverride>& overrides);

}  // namespace lynx
