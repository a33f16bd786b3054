#include "traces/transforms.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "traces/random.hpp"

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

double median_distinct_gap(std::vector<double>& gaps) {
  if (gaps.empty()) return 0;
  const size_t rank = (gaps.size() + 1) / 2 - 1;
  std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(rank), gaps.end());
  return gaps[rank];
}

bool spreading_applies(double step_s, double median_gap, int64_t requests) {
  if (step_s > 0 || median_gap > 0) return true;
  if (requests >= 2)
    throw_error("cannot spread requests over their timestamp step: all %lld requests share one timestamp, so the "
                "step cannot be inferred (give spread_step_s)",
                static_cast<long long>(requests));
  return false;
}

void spread_group(Request* group, size_t count, bool has_next, double next_s, double step_s, double median_gap,
                  Rng& rng, std::vector<double>& draws) {
  const double t = group[0].arrival_s;
  double step = step_s;
  if (step <= 0) {
    const double gap = has_next ? next_s - t : 0;
    step = has_next && gap <= 1.5 * median_gap ? gap : median_gap;
  }
  draws.clear();
  for (size_t i = 0; i < count; ++i) draws.push_back(rng.uniform01());
  std::sort(draws.begin(), draws.end());
  for (size_t i = 0; i < count; ++i) group[i].arrival_s = t + draws[i] * step;
}

double rescale_factor(const TraceTransforms& transforms, int64_t requests, double first_s, double last_s) {
  if (transforms.target_rate_per_s > 0 && transforms.time_scale != 1)
    throw_error("time_scale and target_rate_per_s both rescale time: give one of them");
  if (transforms.target_rate_per_s <= 0) return transforms.time_scale;
  const double span_s = last_s - first_s;  // trace_stats.hpp's rate: (n - 1) / span
  if (requests < 2 || !(span_s > 0))
    throw_error("cannot set the arrival rate to %g/s: the workload has %lld requests over %g s (needs at least 2 "
                "requests over a positive span)",
                transforms.target_rate_per_s, static_cast<long long>(requests), span_s);
  return static_cast<double>(requests - 1) / span_s / transforms.target_rate_per_s;
}

void spread_same_timestamp(std::vector<Request>& requests, double step_s, uint64_t seed) {
  std::vector<double> gaps;
  for (size_t i = 1; i < requests.size(); ++i)
    if (requests[i].arrival_s > requests[i - 1].arrival_s) gaps.push_back(requests[i].arrival_s - requests[i - 1].arrival_s);
  const double median_gap = median_distinct_gap(gaps);
  if (!spreading_applies(step_s, median_gap, static_cast<int64_t>(requests.size()))) return;
  Rng rng(seed_derive(seed, kSpreadRandomStream));
  std::vector<double> draws;
  for (size_t begin = 0; begin < requests.size();) {
    size_t end = begin + 1;
    while (end < requests.size() && requests[end].arrival_s == requests[begin].arrival_s) ++end;
    if (end - begin >= 2) {
      const bool has_next = end < requests.size();
      spread_group(&requests[begin], end - begin, has_next, has_next ? requests[end].arrival_s : 0, step_s,
                   median_gap, rng, draws);
    }
    begin = end;
  }
}

void transforms_finish(std::vector<Request>& requests, const TraceTransforms& transforms, uint64_t seed) {
  if (transforms.spread_same_timestamp) spread_same_timestamp(requests, transforms.spread_step_s, seed);
  double first_s = 0, last_s = 0;
  for (size_t i = 0; i < requests.size(); ++i) {
    first_s = i == 0 ? requests[i].arrival_s : std::min(first_s, requests[i].arrival_s);
    last_s = i == 0 ? requests[i].arrival_s : std::max(last_s, requests[i].arrival_s);
  }
  const double scale = rescale_factor(transforms, static_cast<int64_t>(requests.size()), first_s, last_s);
  if (scale != 1)
    for (Request& r : requests) r.arrival_s *= scale;
  std::stable_sort(requests.begin(), requests.end(),
                   [](const Request& a, const Request& b) { return a.arrival_s < b.arrival_s; });
  for (size_t i = 0; i < requests.size(); ++i) requests[i].id = static_cast<int64_t>(i);
}

}  // namespace lynx
