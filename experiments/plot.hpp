// Plots a results directory by running experiments/plot_results.py with Debian's Python 3 and matplotlib
// (/usr/bin/python3, which python3-matplotlib installs into; `python3` on the PATH otherwise).
#pragma once
#include <string>

namespace lynx {

// Runs the plotting script; throws LynxError if it fails. Its output (file names, ratio tables) goes to stdout.
void plot_results(const std::string& results_dir);
// Runs experiments/<script_name> on `results_dir` the same way (lynxsim validate's plot_validation.py).
void run_plot_script(const std::string& script_name, const std::string& results_dir);

}  // namespace lynx
