// One configuration, end to end: build its workload (traces library), resolve its inputs, simulate, write
// <out_dir>/config.json (the resolved configuration, sim/config/resolved_config.hpp), <out_dir>/requests.csv and, last,
// <out_dir>/summary.json. What `lynxsim simulate` does and what each sweep point runs (in its own process: SimGrid
// allows one engine per process). The summary records what the run read: the workload (trace path, sha256 and the
// transforms applied, or the synthetic spec), the kernel-cost tables (file, sha256, device), the compute model and
// the acceptance source. `lynxsim simulate` may add a timeline file and a progress meter (RunExtras). A
// summary.json already in out_dir is removed before anything else is written, so a folder never shows a summary
// beside another run's configuration; a failed run into a new folder leaves nothing.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/output/progress_meter.hpp"
#include "sim/config/resolved_config.hpp"
#include "sim/cluster/simulation.hpp"

namespace lynx {

// What `lynxsim simulate` may add to a run; neither changes its result files.
struct RunExtras {
  std::string timeline_path;          // "": none; else the run's Chrome trace-event timeline (sim/output/timeline.hpp)
  bool timeline_per_request = false;  // the timeline's tracks: a process per request, not per instance
  ProgressMeter* progress = nullptr;  // started with the workload's size, then handed each finished record
  std::string flow_log_path;          // "": none; else every flow of the run (sim/engine/flow_log.hpp, for benchmarks)
  std::vector<std::string> simgrid_cfg;  // SimGrid items on top of the defaults (sim/engine/simgrid_options.hpp), checked
};

struct RunOutcome {
  nlohmann::json summary;
  double wall_s = 0;
  size_t requests = 0;
};

RunOutcome run_config(const ResolvedConfig& resolved, const std::string& out_dir, const RunExtras& extras = {});

}  // namespace lynx
