// lynxsim run / merge: experiment sweeps and joining shards (lynxsim plot: cmd_plot.cpp).
#include <cstdio>

#include "app/commands.hpp"
#include "common/output_paths.hpp"
#include "common/error.hpp"
#include "experiments/config_overrides.hpp"
#include "experiments/experiment.hpp"
#include "experiments/plot.hpp"  // plot_results, plot_request_read
#include "experiments/plot_regimes.hpp"
#include "experiments/results.hpp"
#include "experiments/run_outputs.hpp"
#include "experiments/sweep_runner.hpp"

namespace lynx {

namespace {
struct RunOptions {
  std::string experiment;
  std::string out;
  int jobs = 1;
  std::string shard = "1/1";
  bool plot = false;
  bool force = false;
  std::vector<std::string> sets;
};

void run_experiment(const RunOptions& o) {
  const std::vector<ConfigOverride> overrides = config_overrides_parse(o.sets);
  Experiment e = experiment_load_with_overrides(o.experiment, overrides);
  if (plot_is_regime_map(e)) regime_map_check(e);  // the plots it names, before a sweep, not after it
  else if (!e.plot.is_null() || o.plot) (void)plot_request_read(e);
  SweepOptions options;
  options.out_dir = o.out.empty() ? "results/" + e.name : o.out;
  options.jobs = o.jobs;
  options.force = o.force;
  options.overrides = overrides;
  OutputPlan plan;  // the output rule (common/output_paths.hpp), before any point runs
  plan.input_file("experiment", o.experiment);
  plan.input_shared(OutputPlan::kAllShared);  // the data folder, the catalogs, cost tables and accuracy files
  output_plan_add_config_inputs(plan, "experiment " + o.experiment, e.base, e.base_dir);
  for (const SweepPoint& p : e.points) output_plan_add_config_inputs(plan, "experiment " + o.experiment, p.config, e.base_dir);
  plan.output_folder("--out", options.out_dir, results_folder_files(e));
  plan.check();
  parse_shard(o.shard, options.shard_index, options.shard_count);
  std::string sets;
  for (const std::string& s : o.sets) sets += " --set " + s;
  std::fprintf(stderr, "%s: %zu points (%s of %zu axes)%s%s, writing %s\n", printable(o.experiment).c_str(),
               e.points.size(), sweep_mode_name(e.mode), e.axes.size(), sets.empty() ? "" : ", overrides:",
               printable(sets).c_str(), printable(options.out_dir).c_str());
  SweepReport report = sweep_run(e, options);
  std::printf("%zu points selected: %zu ran, %zu already finished, %zu failed; results in %s (summary.csv)\n",
              report.selected, report.ran, report.skipped, report.failed, options.out_dir.c_str());
  if (report.stale > 0)
    std::printf("%zu of the points that ran had results from another configuration, now replaced\n", report.stale);
  if (report.interrupted) throw_error("interrupted: finished points are kept; run the same command again to go on");
  if (o.plot && report.failed == 0 && options.shard_count == 1) plot_results(options.out_dir);
  if (report.failed > 0) throw_error("%zu sweep points failed (see the messages above)", report.failed);
}
}  // namespace

void add_run_command(CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run an experiment sweep: every point in its own process");
  cmd->add_option("experiment", o->experiment, "Experiment file (JSON)")->required();
  cmd->add_option("--out", o->out, "Results directory (default: results/<experiment name>)");
  cmd->add_option("--jobs,-j", o->jobs, "Points run at once, each its own process (default 1)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option("--shard", o->shard,
                  "Run only the K-th of N disjoint slices of the points (K/N, 1-based; default 1/1: all)");
  cmd->add_flag("--plot", o->plot,
                "Plot the results (the experiment's standard plots) when every point has finished (default off)");
  cmd->add_option("--set", o->sets,
                  "Override a field of the base configuration: PATH=VALUE as in `simulate --set` (a path no axis "
                  "sweeps). Repeatable")
      ->allow_extra_args(false);
  cmd->add_flag("--force", o->force,
                "Run every point again, even those with results of the same configuration, and replace the results "
                "of points computed from another configuration (without it such points stop the run; default off)");
  cmd->callback([o] { run_experiment(*o); });

  auto merge_out = std::make_shared<std::string>();
  auto merge_dirs = std::make_shared<std::vector<std::string>>();
  CLI::App* merge = app.add_subcommand("merge", "Join the results directories of shards of one experiment");
  merge->add_option("--out", *merge_out, "Merged results directory")->required();
  merge->add_option("shards", *merge_dirs, "Results directories of the shards")->required();
  merge->callback([merge_out, merge_dirs] {
    OutputPlan plan;  // the output rule (common/output_paths.hpp); results_merge checks what it reads
    for (const std::string& dir : *merge_dirs) {
      plan.input_folder("shard", dir);
      plan.input_tree("shard", dir);  // its points' files too
    }
    plan.output_folder("--out", *merge_out, {"experiment.json", "summary.csv"});
    plan.check();
    results_merge(*merge_out, *merge_dirs);
    std::printf("merged %zu results directories into %s\n", merge_dirs->size(), merge_out->c_str());
  });
}

}  // namespace lynx
