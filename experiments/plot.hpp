// Plots a results directory: the plot request (experiments/plot_request.hpp: the experiment's plot section and the
// options, checked against the sweep, with the metric table and the per-request values of each CDF) is written to
// a temporary JSON file and experiments/plot_results.py draws it, run with Debian's Python 3 and matplotlib
// (/usr/bin/python3, which python3-matplotlib installs into; `python3` on the PATH otherwise).
#pragma once
#include <string>
#include <vector>

#include "common/error.hpp"
#include "experiments/plot_request.hpp"

namespace lynx {

// The script found a results folder it cannot draw from and printed one "lynxsim: error:" line already; the
// caller exits 2 quietly.
class PlotInputError : public LynxError {
 public:
  using LynxError::LynxError;
};

// Checks the request (a LynxError names what is wrong) and runs the plotting script; throws PlotInputError on a
// results folder it cannot draw from, LynxError if it fails otherwise. Its output (file names, ratio tables) goes
// to stdout.
void plot_results(const std::string& results_dir, const PlotOptions& options = {});
// Runs experiments/<script_name> on `results_dir` and `args` the same way (lynxsim validate's plot_validation.py).
void run_plot_script(const std::string& script_name, const std::string& results_dir,
                     const std::vector<std::string>& args = {});

}  // namespace lynx
