// The per-request distributions a run's summary reports, declared once: each is a RequestRecord method in seconds,
// reported in milliseconds as mean_<name>_ms, median_<name>_ms, p90_<name>_ms and p99_<name>_ms over the requests
// that have it (sim/output/metrics.hpp computes them). `lynxsim plot` draws any statistic of each against the swept x, and
// its per-request CDF from requests.csv (experiments/plot_metrics.hpp takes these entries as they are), and an
// experiment's ratios and frontier name them (metrics with a median).
#pragma once
#include <cstdint>
#include <iterator>
#include <string>

#include "sim/output/request_record.hpp"

namespace lynx {

struct RequestDistribution {
  const char* name;                          // "ttft": the summary's <stat>_ttft_ms and `lynxsim plot --metric ttft`
  double (RequestRecord::*seconds)() const;  // the request's value
  int64_t min_output_tokens;                 // requests with fewer output tokens have no value (tpot: 2)
  const char* label;                         // what it is, as plots title it
};

inline constexpr RequestDistribution kRequestDistributions[] = {
    {"ttft", &RequestRecord::ttft_s, 0, "TTFT (first verified token)"},
    {"ttft_spec", &RequestRecord::ttft_spec_s, 0, "TTFT (first, speculative, token)"},
    {"ttft_correct", &RequestRecord::ttft_correct_s, 0, "TTFT (first correct token)"},
    {"tpot", &RequestRecord::tpot_s, 2, "TPOT (time per output token after the first)"},
    {"e2el", &RequestRecord::e2el_s, 0, "E2EL (end-to-end latency)"},
    {"kv_transfer", &RequestRecord::kv_transfer_s, 0, "KV transfer (first chunk sent to last arrived)"},
    {"exposed_transfer", &RequestRecord::exposed_transfer_s, 0, "exposed KV transfer (prefill end to KV arrival)"},
};
inline constexpr size_t kRequestDistributionCount = std::size(kRequestDistributions);

// The statistics of each distribution, in the order options and messages list them.
struct SummaryStatistic {
  const char* name;     // "p50": `lynxsim plot --stat p50`
  const char* prefix;   // "median": the summary's median_<name>_ms
  double percentile;    // 50; the mean: 0 and `mean` set
  bool mean;
};
inline constexpr SummaryStatistic kSummaryStatistics[] = {
    {"p50", "median", 50, false}, {"p90", "p90", 90, false}, {"p99", "p99", 99, false}, {"mean", "mean", 0, true}};

// The summary's name of `stat` of `d`: "median_ttft_ms".
inline std::string summary_metric_name(const RequestDistribution& d, const SummaryStatistic& stat) {
  return std::string(stat.prefix) + "_" + d.name + "_ms";
}

}  // namespace lynx
