// lynxsim plot: the plots of a results directory. Without --metric, the experiment's standard plots (its plot
// section); with --metric, one metric's statistic against the swept x, or (--cdf) its per-request CDF; with --gantt,
// a Gantt figure of single requests of a run (experiments/plot_gantt.hpp).
// The metrics and statistics offered are the plot metric table's (experiments/plot_metrics.hpp); an unknown value is
// exit 2 with the valid ones, and the combination is checked with the results (experiments/plot_request.hpp)
// before the script draws.
#include <cstdio>

#include "app/commands.hpp"
#include "experiments/plot.hpp"
#include "experiments/plot_gantt.hpp"

namespace lynx {

namespace {

// "ttft: TTFT (first verified token), ms; ...": every metric of the table, what it is and its unit.
std::string metric_list() {
  std::string text;
  for (const PlotMetric& m : plot_metrics()) {
    text += std::string(text.empty() ? "" : "; ") + m.name + ": " + m.label + ", " + m.unit;
    if (m.kind == PlotMetricKind::mean_only) text += " (mean only)";
    if (m.kind == PlotMetricKind::one_value) text += " (one value per point)";
  }
  return text;
}
}  // namespace

void add_plot_command(CLI::App& app) {
  auto dir = std::make_shared<std::string>();
  auto o = std::make_shared<PlotOptions>();
  CLI::App* plot = app.add_subcommand(
      "plot", "Plot a results directory (PNG and SVG, with matplotlib; one fixed colour per format)");
  plot->add_option("results", *dir,
                   "Results directory written by `lynxsim run` (with --gantt: a run folder holding a requests.csv)")
      ->required();
  plot->add_option("--metric", o->metric,
                   "Plot this metric against the swept x, a line per series (default: none, the experiment's "
                   "standard TTFT plots). " + metric_list())
      ->check(CLI::IsMember(plot_metric_names()));
  plot->add_option("--stat", o->stat,
                   "Statistic of --metric over the point's requests: " + joined(plot_stat_names()) +
                       " (default p50; itl: mean; none for the one-value metrics)")
      ->check(CLI::IsMember(plot_stat_names()));
  plot->add_flag("--cdf", o->cdf,
                 "Plot the per-request CDF of --metric from requests.csv instead, at the --at x values (default "
                 "off)");
  plot->add_option("--at", o->at_values,
                   "x value of a --cdf plot, repeatable (default: the plot section's cdf_at, else the smallest x)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  plot->add_option("--data", o->data_file,
                   "Also write what was drawn as JSON to this file: the plotted values of a --metric plot, and for every "
                   "figure its labels, axis scales and legend entries (default: none)");
  plot->add_option("--slo", o->slo,
                   "Draw a target line METRIC:VALUE (VALUE in ms) on the plots of METRIC, repeatable, e.g. --slo "
                   "ttft:2000 (default: none)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  plot->add_option("--gantt", o->gantt,
                   "Draw a Gantt figure of these requests instead (ids from requests.csv, comma-separated, at most " +
                       std::to_string(kGanttMaxRequests) +
                       "): each request's prefill, KV (anchor and residual) transfer, drafting, verification and "
                       "decode over time, from the requests.csv of a simulate --out folder or a point's folder; "
                       "gantt_<ids>.png and .svg (default: none)");
  plot->add_option("--out", o->out_dir, "Folder of the plot files (default: the results directory)")
      ->check(CLI::ExistingDirectory);
  plot->callback([dir, o] { plot_results(*dir, *o); });
}

}  // namespace lynx
