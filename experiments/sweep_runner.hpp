// Runs an experiment's points, each in its own child process (SimGrid allows one engine per process), N at a time,
// with a progress line on stderr. Each point writes <out>/<point name>/{config.json,requests.csv,summary.json},
// each atomically, in that order (experiments/point_record.hpp): a point is finished when its summary exists and
// its config.json (the resolved configuration, runnable as is) equals the one it would run now, so a rerun skips
// it. A finished point whose config.json differs (the experiment was edited) stops the sweep before anything is
// written, with one error naming the point and the first differing JSON path; --force reruns every point. A
// failing point is reported with its error (also in <point>/error.txt) and the others go on.
// Crash safety: killed at any moment, even by SIGKILL, a run leaves only finished points and files a rerun
// clears (the children die with the parent: PR_SET_PDEATHSIG), and the rerun ends byte-identical to an
// uninterrupted run. On SIGINT/SIGTERM the points in flight are stopped, their temporary files removed, and
// summary.csv written for the finished ones. --shard K/N runs only the points whose index % N == K - 1; `merge`
// joins shards' results.
#pragma once
#include <string>
#include <vector>

#include "experiments/config_overrides.hpp"
#include "experiments/experiment.hpp"

namespace lynx {

struct SweepOptions {
  std::string out_dir;
  int jobs = 1;
  int shard_index = 1;   // K, 1-based
  int shard_count = 1;   // N
  bool progress = true;
  bool force = false;    // rerun finished points too, and replace those computed from another configuration
  // The --set overrides already applied to the experiment's base: a point's error that names one's JSON path names
  // the option too (config_override_blame), as `simulate` does.
  std::vector<ConfigOverride> overrides;
};

struct SweepReport {
  size_t selected = 0, skipped = 0, ran = 0, failed = 0;
  size_t stale = 0;          // --force: finished points whose recorded configuration differed, rerun
  bool interrupted = false;  // SIGINT or SIGTERM: points in flight were stopped and their temporaries removed
};

SweepReport sweep_run(const Experiment& experiment, const SweepOptions& options);

// Parses "K/N" (1 <= K <= N).
void parse_shard(const std::string& text, int& index, int& count);

}  // namespace lynx
