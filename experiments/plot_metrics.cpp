#include "experiments/plot_metrics.hpp"

namespace lynx {

namespace {
// The plottable summary values that are not per-request distributions (their names are sim/output/metrics.cpp's).
const PlotMetric kSummaryValueMetrics[] = {
    {"itl", "ITL (mean gap between tokens, over all tokens)", "ms", PlotMetricKind::mean_only, nullptr,
     "mean_itl_ms", true},
    {"goodput", "goodput (requests meeting both SLOs)", "requests/s", PlotMetricKind::one_value, nullptr,
     "request_goodput", false},
    {"slo_attainment", "SLO attainment (share meeting both SLOs)", "fraction", PlotMetricKind::one_value, nullptr,
     "slo_attainment", false},
    {"request_throughput", "request throughput", "requests/s", PlotMetricKind::one_value, nullptr,
     "request_throughput", false},
    {"output_throughput", "output throughput", "tokens/s", PlotMetricKind::one_value, nullptr, "output_throughput",
     false},
};
}  // namespace

const std::vector<PlotMetric>& plot_metrics() {
  static const std::vector<PlotMetric> metrics = [] {
    std::vector<PlotMetric> all;
    for (const RequestDistribution& d : kRequestDistributions)
      all.push_back({d.name, d.label, "ms", PlotMetricKind::distribution, &d, nullptr, true});
    for (const PlotMetric& m : kSummaryValueMetrics) all.push_back(m);
    return all;
  }();
  return metrics;
}

const PlotMetric* plot_metric(const std::string& name) {
  for (const PlotMetric& m : plot_metrics())
    if (name == m.name) return &m;
  return nullptr;
}

std::vector<std::string> plot_metric_names() {
  std::vector<std::string> names;
  for (const PlotMetric& m : plot_metrics()) names.emplace_back(m.name);
  return names;
}

std::vector<std::string> plot_stat_names() {
  std::vector<std::string> names;
  for (const SummaryStatistic& s : kSummaryStatistics) names.emplace_back(s.name);
  return names;
}

std::string plot_metric_column(const PlotMetric& m, const std::string& stat) {
  switch (m.kind) {
    case PlotMetricKind::distribution:
      for (const SummaryStatistic& s : kSummaryStatistics)
        if (stat == s.name) return summary_metric_name(*m.distribution, s);
      return "";
    case PlotMetricKind::mean_only: return stat == "mean" ? m.column : "";
    case PlotMetricKind::one_value: return stat.empty() ? m.column : "";
  }
  return "";
}

}  // namespace lynx
