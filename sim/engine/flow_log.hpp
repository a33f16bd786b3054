// The flow log: every network flow of a run as it starts (time, endpoints, bytes, sharing weight), after a header
// that describes the platform it ran on (the network as the platform was built from it, each node's NICs, and the
// SimGrid configuration items applied). A bare SimGrid program can rebuild the same platform from it and replay
// the same flows without the simulator (sim/engine/bare_replay.hpp): the honest baseline of the speed benchmark.
// Written by the event loop when asked (`lynxsim simulate --flow-log FILE`); nothing is done per flow otherwise.
// Binary, host byte order (a benchmark artefact, read back on the machine that wrote it).
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/network/network_config.hpp"
#include "sim/engine/platform.hpp"

namespace lynx {

// One record of the file: a flow as it started (its weight the one it started with, its rate bound), or, with src = dst = -1, a
// re-weighting of a flow still sending (Lynx residual aging, EventLoop::reweight): then `bytes` is the flow's index
// among the log's flows (0 = the first started) and `weight` its new weight.
struct FlowLogEntry {
  double start_s;
  int32_t src, dst;  // endpoints (platform.hpp)
  uint64_t bytes;
  double weight;
  double rate_bound;  // bytes/s the flow may not exceed (0: none; a connector's message pipeline)
};

// A re-weighting as read back: at `time_s`, after the first `after_flows` flows had started, flow `flow` took
// `weight`.
struct FlowReweight {
  double time_s;
  uint64_t flow;
  double weight;
  uint64_t after_flows;
};

struct FlowLog {
  NetworkConfig network;                 // as platform_build was given it
  std::vector<PlatformNode> nodes;       // names "n<i>" (names do not change SimGrid's work)
  std::vector<std::string> simgrid_cfg;  // "item:value", applied before the platform (sim/engine/simgrid_options.hpp)
  std::vector<FlowLogEntry> flows;       // in start order
  std::vector<FlowReweight> reweights;   // in time order
};

// Writes the header at once, then one entry per append; closes (and checks the write) in finish or the destructor.
class FlowLogWriter {
 public:
  FlowLogWriter(const std::string& path, const NetworkConfig& network, const std::vector<PlatformNode>& nodes,
                const std::vector<std::string>& simgrid_cfg);
  ~FlowLogWriter();
  FlowLogWriter(const FlowLogWriter&) = delete;
  FlowLogWriter& operator=(const FlowLogWriter&) = delete;
  void append(const FlowLogEntry& entry) { std::fwrite(&entry, sizeof entry, 1, file_); }
  void append_reweight(double time_s, uint64_t flow, double weight) { append(FlowLogEntry{time_s, -1, -1, flow, weight, 0}); }
  // Closes the file and renames it into place (common/atomic_file.hpp); throws LynxError if any write failed.
  // A writer destroyed unfinished (the run failed) removes its temporary file: nothing half-written is left.
  void finish();

 private:
  std::string path_, tmp_path_;
  std::FILE* file_ = nullptr;
};

// Reads a whole flow log; a file that is not one (or is cut short) is a LynxError naming it.
FlowLog flow_log_read(const std::string& path);

}  // namespace lynx
