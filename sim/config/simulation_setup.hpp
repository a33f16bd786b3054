// Resolves a configuration into everything a run needs: catalog entries, the KV format, kernel costs (the cost
// table of the GPU when one is shipped, else the roofline default) and, for Lynx, the acceptance model (the
// configured rate, else the configured accuracy file, else the shipped one for this format, else a 0.9 prior).
// Every choice made by default is named in SimulationInputs' sources so summaries can state it.
#pragma once
#include <vector>

#include "sim/config/simulation_inputs.hpp"

namespace lynx {

SimulationInputs simulation_inputs(const SimConfig& config, std::vector<Request> requests);

// Reads now the compute tables the run of `config` would read lazily (StepCostModel::preload_tables), into this
// process's caches, and nothing else: a sweep calls it before forking each point, so that every point shares the
// tables the parent read (a named engine's AIConfigurator tables take most of a short point's time otherwise).
// Errors are ignored here; the run reports them.
void preload_compute_tables(const SimConfig& config);

// The shipped accuracy file the simulator reads by default.
// The accuracy file `lynxsim accuracy` writes for a model: models/accuracy/<model>.json in the project.
std::string default_accuracy_path(const std::string& model);

}  // namespace lynx
