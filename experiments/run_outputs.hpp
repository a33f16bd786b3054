// What a run reads and writes, in the terms of the output rule (common/output_paths.hpp): the files of a run
// folder, the input files a resolved configuration names, and the whole plan of `simulate`, `run`, `merge` and
// `plot`, so each front-end states its inputs and outputs in one call and they cannot drift from what
// sim/config/run_config.hpp and experiments/results.hpp write.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/output_paths.hpp"
#include "experiments/experiment.hpp"

namespace lynx {

// The files a run writes into its folder (sim/config/run_config.hpp), and error.txt a failed sweep point writes.
const std::vector<std::string>& run_folder_files();
// Adds every input file a configuration names (its PathFields, sim/config/resolved_config.hpp), as resolved against
// `base_dir`, labelled "<option> ($.FIELD)".
void output_plan_add_config_inputs(OutputPlan& plan, const std::string& option, const nlohmann::json& config,
                                   const std::string& base_dir);
// The files a sweep writes into its results folder: experiment.json, summary.csv, and each point's run files.
std::vector<std::string> results_folder_files(const Experiment& experiment);

}  // namespace lynx
