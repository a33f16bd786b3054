// What the plotting script is asked to draw, validated once, here, before anything is drawn or a sweep runs. The
// plot section's keys and types are checked where the experiment is read, through the schema's declarations
// (experiments/experiment.cpp, docs/config.md); this reads the section through the same declarations (defaults
// included) and checks what its values name: x, series and facet are sweep axes, every other axis with several
// values is a facet, cdf_at is a value of x, ratios and frontier name metrics with a median. It also checks
// `lynxsim plot`'s options: --metric with a statistic it has, --cdf of a metric with per-request values, --at values
// of x, --slo with a metric in ms that one of the command's plots shows and a positive value. plot_request_json
// hands the result to experiments/plot_results.py with the metric table (experiments/plot_metrics.hpp), the axis
// labels (from the schema's declarations, so a swept field reads as its meaning and unit, not as its JSON path) and
// the per-request values each CDF needs, read from the points' requests.csv
// (sim/output/requests_csv.hpp); the script draws what it is given and checks none of it again.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "experiments/experiment.hpp"
#include "experiments/plot_metrics.hpp"

namespace lynx {

// What `lynxsim plot` asks of the script. Empty metric: the experiment's standard plots (its plot section).
struct PlotOptions {
  std::string metric;                  // one of plot_metric_names()
  std::string stat;                    // one of plot_stat_names(); empty: the metric's default (p50; itl: mean)
  bool cdf = false;                    // per-request CDF of `metric` from requests.csv, at the x values `at_values`
  std::vector<std::string> at_values;  // empty: the plot section's cdf_at, else the smallest x
  std::string data_file;               // also write the plotted values as JSON here (empty: no)
  std::string out_dir;                 // folder of the plot files (empty: the results directory)
  std::vector<std::string> slo;        // "METRIC:VALUE" (--slo ttft:2000): a target line on the plots of METRIC
  std::string gantt;                   // "ID,ID,...": a Gantt figure of these requests of a run folder instead
};

// A target line: `value` in the metric's unit (ms), drawn on every plot of `metric`.
struct PlotSlo {
  const PlotMetric* metric;
  double value;
};

struct PlotRatio {
  std::string numerator_series, numerator_metric, denominator_series, denominator_metric;
};

// A checked plot request. x values are as summary.csv writes them (experiments/results.hpp).
struct PlotRequest {
  // The plot section, defaults applied.
  std::string x, series, baseline;  // series: the first series path (its values name and colour the lines)
  std::vector<std::string> series_more;  // the series' other paths: a line per combination
  std::vector<std::string> facets;
  std::string ttft_cdf_at;  // the x value of the standard TTFT CDF plot; "" for none
  std::vector<PlotRatio> ratios;
  std::vector<std::string> frontier;
  // --metric and its options.
  const PlotMetric* metric = nullptr;  // nullptr: the standard plots
  std::string stat;                    // the statistic plotted; "" for a one-value metric or a CDF
  bool cdf = false;
  std::vector<std::string> cdf_at;     // the x values of the CDFs
  std::string data_file;               // "" for none
  std::vector<PlotSlo> slos;           // --slo, in the order given
};

// An axis label from the field's schema declaration (common/json_schema.hpp): its section's title, the first clause
// of its meaning, and its unit: "Network: bandwidth of each NIC's link to its switch (Gbps)". A path the
// simulation schema does not declare is labelled with its last component.
std::string plot_axis_label(const std::string& path);

// "a, b, c": names for a message or a help text.
std::string joined(const std::vector<std::string>& names);

// Checks the plot section of `e` against its sweep, and the options; a LynxError names the file and JSON path (or
// the option) and what is valid.
PlotRequest plot_request_read(const Experiment& e, const PlotOptions& options = {});

// The script's input: the request, the experiment's name and series values, the metric table, and the per-request
// values (ms, sorted) of each CDF, read from the finished points of `results_dir`.
nlohmann::json plot_request_json(const PlotRequest& request, const Experiment& e, const std::string& results_dir,
                                 const std::string& out_dir);

}  // namespace lynx
