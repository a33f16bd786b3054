// One configuration, end to end: build its workload (traces library), resolve its inputs, simulate, write
// <out_dir>/requests.csv and <out_dir>/summary.json. What `lynxsim simulate` does and what each sweep point runs
// (in its own process: SimGrid allows one engine per process); `lynxsim simulate` may add a timeline file and a
// progress meter (RunExtras).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "sim/progress_meter.hpp"
#include "sim/sim_config.hpp"
#include "sim/simulation.hpp"

namespace lynx {

// What `lynxsim simulate` may add to a run; neither changes its result files.
struct RunExtras {
  std::string timeline_path;          // "": none; else the run's Chrome trace-event timeline (sim/timeline.hpp)
  ProgressMeter* progress = nullptr;  // started with the workload's size, then handed each finished record
};

struct RunOutcome {
  nlohmann::json summary;
  double wall_s = 0;
  size_t requests = 0;
};

RunOutcome run_config(const SimConfig& config, const std::string& out_dir, const RunExtras& extras = {});

}  // namespace lynx
