// flow_replay: the bare SimGrid replay of a flow log as a whole process (sim/engine/bare_replay.hpp), the baseline
// bench_simulate times `lynxsim simulate` against; with --platform-only it creates the engine and the platform and
// replays nothing (the baseline of a run's start-up); with --naive it calls run_until once per start time, as a
// naive driver does, and reports the flows that started before their time.
//   flow_replay FLOW_LOG [--platform-only | --naive]
// Prints "replayed FLOWS flows in WALL s (in-process), makespan S s, EARLY early, R re-weighted of W" on stdout.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>

#include "sim/engine/bare_replay.hpp"

int main(int argc, char** argv) {
  const bool platform_only = argc == 3 && std::strcmp(argv[2], "--platform-only") == 0;
  const bool naive = argc == 3 && std::strcmp(argv[2], "--naive") == 0;
  if (argc < 2 || argc > 3 || (argc == 3 && !platform_only && !naive)) {
    std::fprintf(stderr, "usage: flow_replay FLOW_LOG [--platform-only | --naive]\n");
    return 2;
  }
  try {
    lynx::FlowLog log = lynx::flow_log_read(argv[1]);
    if (platform_only) log.flows.clear();
    const lynx::ReplayResult r = lynx::bare_replay(log, !naive, naive);
    if (naive) {
      double worst_s = 0;
      for (size_t i = 0; i < log.flows.size(); ++i) worst_s = std::max(worst_s, log.flows[i].start_s - r.start_s[i]);
      std::printf("naive driver: %llu of %zu flows started early, up to %.3g s before their time\n",
                  static_cast<unsigned long long>(r.early), log.flows.size(), worst_s);
    }
    std::printf("replayed %llu flows in %.6f s (in-process), makespan %.9f s, %llu early, %llu re-weighted of %zu\n",
                static_cast<unsigned long long>(r.completed), r.wall_s, r.makespan_s,
                static_cast<unsigned long long>(r.early), static_cast<unsigned long long>(r.reweighted),
                log.reweights.size());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "flow_replay: %s\n", e.what());
    return 1;
  }
  return 0;
}
