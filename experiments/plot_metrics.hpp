// The metrics `lynxsim plot --metric NAME` draws, declared once: name, label, unit, summary columns and whether a
// per-request CDF exists. The per-request distributions are the summary's own (sim/output/request_distributions.hpp),
// with every statistic (p50, p90, p99, mean) and a CDF from requests.csv; the others are summary values that have
// no per-request form: itl (only its mean: the simulator keeps no per-token gaps) and four values per point
// (goodput, slo_attainment and the two throughputs). The command line's choices and the plotting script's table
// (handed over in the plot request, experiments/plot_request.hpp) are this table.
#pragma once
#include <string>
#include <vector>

#include "sim/output/request_distributions.hpp"

namespace lynx {

enum class PlotMetricKind {
  distribution,  // every statistic of a per-request distribution, and its CDF
  mean_only,     // a mean over all tokens, one summary column (itl)
  one_value,     // one value per point, one summary column; no --stat
};

struct PlotMetric {
  const char* name;   // --metric
  const char* label;  // what it is, in plot titles
  const char* unit;   // "ms", "requests/s", ...
  PlotMetricKind kind;
  const RequestDistribution* distribution;  // kind distribution
  const char* column;                       // the other kinds: the summary column
  bool log_axis;                            // values spanning decades: a log axis
};

// Every plottable metric, the distributions first, in the order options and messages list them.
const std::vector<PlotMetric>& plot_metrics();
const PlotMetric* plot_metric(const std::string& name);  // nullptr: not one
std::vector<std::string> plot_metric_names();
// The statistics' names (kSummaryStatistics): p50, p90, p99, mean.
std::vector<std::string> plot_stat_names();
// The summary column of `stat` of `m` ("" for a one-value metric: its only column), or "" if `m` has no such
// statistic.
std::string plot_metric_column(const PlotMetric& m, const std::string& stat);

}  // namespace lynx
