// One configuration, end to end: build its workload (traces library), resolve its inputs, simulate, write
// <out_dir>/requests.csv and <out_dir>/summary.json. What `lynxsim simulate` does and what each sweep point runs
// (in its own process: SimGrid allows one engine per process).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "sim/sim_config.hpp"
#include "sim/simulation.hpp"

namespace lynx {

struct RunOutcome {
  nlohmann::json summary;
  double wall_s = 0;
  size_t requests = 0;
};

RunOutcome run_config(const SimConfig& config, const std::string& out_dir);

}  // namespace lynx
