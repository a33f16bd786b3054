// The bare SimGrid replay of a flow log (sim/engine/flow_log.hpp): the speed benchmark's baseline. It builds the same
// platform (platform_build, with the same SimGrid configuration items), starts each logged flow at its logged time
// from maestro with the same size and sharing weight, re-weights a flow where the log says the simulator did (Lynx
// residual aging), and does nothing else: no events of its own, no requests.
// What a faithful baseline must do that a naive one does not:
//  - start every flow exactly at its time: SimGrid 3.32's Engine::run_until(t) can return before t (when the
//    next solver date is within its precision of t), so it loops until the clock has reached t;
//  - free each finished Comm (as the simulator does) instead of keeping every handle to the end (200 MiB and a
//    third more CPU on the Mooncake run); a handle is dropped once run_until has returned, never inside SimGrid's
//    completion callback (dropping the last handle of a comm SimGrid is still handling crashes it).
#pragma once
#include <cstdint>
#include <vector>

#include "sim/engine/flow_log.hpp"

namespace lynx {

struct ReplayResult {
  double wall_s = 0;        // engine, platform and replay, from before the engine is created
  uint64_t completed = 0;   // flows whose completion callback ran
  uint64_t early = 0;       // flows started before their logged time (0 unless `loop_until` is false)
  uint64_t reweighted = 0;  // logged re-weightings applied (a flow that has already ended in the replay is skipped)
  double makespan_s = 0;    // the clock when the last flow ended
  std::vector<double> start_s, end_s;  // per flow, when `record` (tests)
};

// Replays `log` in this process (one SimGrid engine per process: call it in a child, isolated_run.hpp, or once).
// `loop_until` false calls run_until once per distinct start time (the naive driver, to show what it gets wrong).
ReplayResult bare_replay(const FlowLog& log, bool loop_until = true, bool record = false);

}  // namespace lynx
