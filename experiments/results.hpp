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
// A value as summary.csv writes it (an axis value, a metric): "" for null, a string as it is, a float as "%.10g",
// anything else as JSON.
std::string summary_csv_field(const nlohmann::json& v);
// Joins the results of shards of one experiment into out_dir. Everything is read and checked first (one LynxError
// naming the file): each point's config.json is the experiment's point, summary.json and requests.csv are present
// and parse, shards holding one point hold the same bytes, every point is in some shard, and an --out holding
// results holds this experiment's.
void results_merge(const std::string& out_dir, const std::vector<std::string>& shard_dirs);
// What `plot` checks before it draws: summary.csv is complete (header of this sweep, a row per listed point, no
// NaN or infinity), and each listed point's files are as results_merge requires them, requests.csv read whole.
void results_verify(const std::string& results_dir, const Experiment& experiment);

}  // namespace lynx
