// Runs an experiment's points, each in its own child process (SimGrid allows one engine per process), N at a time,
// with a progress line on stderr. Each point writes <out>/<point name>/{requests.csv,summary.json} atomically
// (summary last): a point is finished when its summary exists, so a rerun skips it, and an interrupted run leaves
// no partial file. A failing point is reported with its error (also in <point>/error.txt) and the others go on.
// On SIGINT/SIGTERM the points in flight are stopped, their temporary files removed, and summary.csv written for
// the finished ones. --shard K/N runs only the points whose index % N == K - 1; `merge` joins shards' results.
#pragma once
#include <string>

#include "experiments/experiment.hpp"

namespace lynx {

struct SweepOptions {
  std::string out_dir;
  int jobs = 1;
  int shard_index = 1;   // K, 1-based
  int shard_count = 1;   // N
  bool progress = true;
};

struct SweepReport {
  size_t selected = 0, skipped = 0, ran = 0, failed = 0;
  bool interrupted = false;  // SIGINT or SIGTERM: points in flight were stopped and their temporaries removed
};

SweepReport sweep_run(const Experiment& experiment, const SweepOptions& options);

// Parses "K/N" (1 <= K <= N).
void parse_shard(const std::string& text, int& index, int& count);

}  // namespace lynx
