// The results directory of a sweep: experiment.json (the experiment and the directory its relative paths resolve
// against), one directory per point (config.json, requests.csv, summary.json), and summary.csv (a row per
// finished point: its axis values and every scalar metric of its summary). Everything is deterministic, so shards
// merged with results_merge equal the unsharded run byte for byte.
#pragma once
#include <string>
#include <vector>

#include "experiments/experiment.hpp"

namespace lynx {

void write_experiment_copy(const std::string& out_dir, const Experiment& experiment);
// The experiment a results directory was made from (points expanded, not validated).
Experiment read_experiment_copy(const std::string& results_dir);
// Writes <out_dir>/summary.csv from the finished points present.
void write_summary_csv(const std::string& out_dir, const Experiment& experiment);
// Joins the results of shards of one experiment into out_dir.
void results_merge(const std::string& out_dir, const std::vector<std::string>& shard_dirs);

}  // namespace lynx
