// The configuration a run actually ran, as a file that runs the same thing again from anywhere: the JSON as written
// (base and axis values for a sweep point) with every input path replaced by the absolute path it resolved to
// ("@data/..." in the data folder, relative paths against the configuration's folder). Fields left out keep their
// defaults, as in the original. A run folder holds it as config.json, and `lynxsim simulate --config
// DIR/config.json` reproduces DIR/summary.json byte for byte: the run itself always reads the resolved JSON, so the
// original and the copy resolve every path to the same string. A sweep point's config.json is also its record: a
// finished point is reused only while it equals the one the experiment gives now.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/config/sim_config.hpp"

namespace lynx {

// The JSON paths of the input files a configuration may name (each resolved by common/data_folder.hpp's rule):
// every PathField of the configuration's schema (kSimConfigSection), so a new path field is resolved without
// being listed twice. "kernel_costs", "workload.trace", ...
const std::vector<std::string>& resolved_config_path_fields();

struct ResolvedConfig {
  nlohmann::json json;  // runnable as is
  SimConfig config;     // parsed from `json` (errors still name the original origin)
};

// Validates `root` (errors name `origin` and the JSON path), then resolves its input paths.
ResolvedConfig resolve_config(const nlohmann::json& root, const std::string& origin, const std::string& base_dir);

}  // namespace lynx
