// Plots a results directory by running experiments/plot_results.py with Debian's Python 3 and matplotlib
// (/usr/bin/python3, which python3-matplotlib installs into; `python3` on the PATH otherwise), and checks an
// experiment's plot section before a sweep runs (the script checks it again on the results directory).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/error.hpp"

namespace lynx {

// What `lynxsim plot` asks of the script. Empty metric: the experiment's standard plots (its plot section).
struct PlotOptions {
  std::string metric;           // one of plot_metric_names()
  std::string stat;             // one of plot_stat_names(); empty: the metric's default (p50; itl: mean)
  bool cdf = false;             // per-request CDF of `metric` from requests.csv, at the x values `at_values`
  std::vector<std::string> at_values;  // empty: the plot section's cdf_at, else the smallest x
  std::string data_file;        // also write the plotted values as JSON here (empty: no)
  std::string out_dir;          // folder of the plot files (empty: the results directory)
};

// Metric names (vLLM's benchmark names and lynxsim's own; experiments/plot_metrics.py defines them) and statistics.
const std::vector<std::string>& plot_metric_names();
const std::vector<std::string>& plot_stat_names();

// The script rejected its input and printed one "lynxsim: error:" line already; the caller exits 2 quietly.
class PlotInputError : public LynxError {
 public:
  using LynxError::LynxError;
};

// Runs the plotting script; throws PlotInputError on bad input, LynxError if it fails otherwise. Its output (file
// names, ratio tables) goes to stdout.
void plot_results(const std::string& results_dir, const PlotOptions& options = {});
// Runs experiments/<script_name> on `results_dir` and `args` the same way (lynxsim validate's plot_validation.py).
void run_plot_script(const std::string& script_name, const std::string& results_dir,
                     const std::vector<std::string>& args = {});

// Rejects an unknown key or a wrongly typed value in an experiment's plot section (`plot`, read from `origin`),
// with one message naming the file and JSON path ($.plot.<key>) and listing the valid keys.
void plot_section_check(const nlohmann::json& plot, const std::string& origin);

}  // namespace lynx
