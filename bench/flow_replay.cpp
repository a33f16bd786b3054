// flow_replay: the bare SimGrid replay of a flow log as a whole process (bench/bare_replay.hpp), the baseline
// bench_simulate times `lynxsim simulate` against; with --platform-only it creates the engine and the platform and
// replays nothing (the baseline of a run's start-up).
//   flow_replay FLOW_LOG [--platform-only]
// Prints "replayed FLOWS flows in WALL s (in-process), makespan S s, EARLY early" on stdout.
#include <cstdio>
#include <cstring>
#include <exception>

#include "bench/bare_replay.hpp"

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3 || (argc == 3 && std::strcmp(argv[2], "--platform-only") != 0)) {
    std::fprintf(stderr, "usage: flow_replay FLOW_LOG [--platform-only]\n");
    return 2;
  }
  try {
    lynx::FlowLog log = lynx::flow_log_read(argv[1]);
    if (argc == 3) log.flows.clear();
    const lynx::ReplayResult r = lynx::bare_replay(log);
    std::printf("replayed %llu flows in %.6f s (in-process), makespan %.9f s, %llu early\n",
                static_cast<unsigned long long>(r.completed), r.wall_s, r.makespan_s,
                static_cast<unsigned long long>(r.early));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "flow_replay: %s\n", e.what());
    return 1;
  }
  return 0;
}
