#include "traces/transforms.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "traces/random.hpp"
#include "traces/trace_stats.hpp"

namespace lynx {

RequestSelector::Verdict RequestSelector::offer(Request& r) {
  if (done()) return Verdict::stop;
  if (t_.has_time_window) {
    if (r.arrival_s < t_.window_begin_s) return Verdict::skip;
    if (r.arrival_s >= t_.window_end_s) return Verdict::stop;
    r.arrival_s -= t_.window_begin_s;
  }
  ++kept_;
  return Verdict::keep;
}

void spread_same_timestamp(std::vector<Request>& requests, double step_s, uint64_t seed) {
  // Distinct timestamps and the median gap between them.
  std::vector<double> gaps;
  for (size_t i = 1; i < requests.size(); ++i)
    if (requests[i].arrival_s > requests[i - 1].arrival_s) gaps.push_back(requests[i].arrival_s - requests[i - 1].arrival_s);
  double median_gap = 0;
  if (!gaps.empty()) {
    std::vector<double> sorted = gaps;
    std::sort(sorted.begin(), sorted.end());
    median_gap = sorted[(sorted.size() + 1) / 2 - 1];  // nearest rank
  }
  if (step_s <= 0 && median_gap <= 0) {
    bool any_group = requests.size() >= 2;
    if (any_group)
      throw_error("cannot spread requests over their timestamp step: all %zu requests share one timestamp, so the "
                  "step cannot be inferred (give spread_step_s)",
                  requests.size());
    return;
  }
  Rng rng(seed_derive(seed, kSpreadRandomStream));
  std::vector<double> draws;
  for (size_t begin = 0; begin < requests.size();) {
    size_t end = begin + 1;
    while (end < requests.size() && requests[end].arrival_s == requests[begin].arrival_s) ++end;
    if (end - begin >= 2) {
      double t = requests[begin].arrival_s, step = step_s;
      if (step <= 0) {
        double gap = end < requests.size() ? requests[end].arrival_s - t : 0;
        step = end < requests.size() && gap <= 1.5 * median_gap ? gap : median_gap;
      }
      draws.clear();
      for (size_t i = begin; i < end; ++i) draws.push_back(rng.uniform01());
      std::sort(draws.begin(), draws.end());
      for (size_t i = begin; i < end; ++i) requests[i].arrival_s = t + draws[i - begin] * step;
    }
    begin = end;
  }
}

void transforms_finish(std::vector<Request>& requests, const TraceTransforms& transforms, uint64_t seed) {
  if (transforms.spread_same_timestamp) spread_same_timestamp(requests, transforms.spread_step_s, seed);
  if (transforms.target_rate_per_s > 0 && transforms.time_scale != 1)
    throw_error("time_scale and target_rate_per_s both rescale time: give one of them");
  double scale = transforms.time_scale;
  if (transforms.target_rate_per_s > 0) {
    TraceStats stats = trace_stats_compute(requests);
    if (stats.requests < 2 || !(stats.span_s > 0))
      throw_error("cannot set the arrival rate to %g/s: the workload has %lld requests over %g s (needs at least 2 "
                  "requests over a positive span)",
                  transforms.target_rate_per_s, static_cast<long long>(stats.requests), stats.span_s);
    scale = stats.rate_per_s / transforms.target_rate_per_s;
  }
  if (scale != 1)
    for (Request& r : requests) r.arrival_s *= scale;
  std::stable_sort(requests.begin(), requests.end(),
                   [](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; });
  for (size_t i = 0; i < requests.size(); ++i) requests[i].id = static_cast<int64_t>(i);
}

}  // namespace lynx
