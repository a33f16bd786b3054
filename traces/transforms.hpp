// Transforms of a workload's arrival times, applied in this order (each reproducible: only the spreading draws
// random numbers, from a stream derived from the seed):
//   1. time window [begin_s, end_s): keep the requests arriving in it, shifted so that begin_s becomes 0;
//   2. first N: keep the first N of those;
//   3. spread same timestamp: a trace logged at a coarse clock (Mooncake: ~3 s steps, 90% of neighbouring rows
//      share a timestamp) replays as bursts that never happened; each group of >= 2 requests sharing a timestamp t
//      is spread uniformly over [t, t + step): sorted uniform draws, assigned in file order. The step is
//      spread_step_s when given, otherwise the gap to the next distinct timestamp, or the median gap between
//      distinct timestamps when that gap is over 1.5 times the median (an empty step) or for the last group;
//   4. time scale x: every arrival is multiplied by x (0.5 replays twice as fast); or target rate r: arrivals are
//      multiplied by rate / r, where rate = (n - 1) / span as in trace_stats.hpp (the two exclude each other).
// Then the requests are sorted by arrival (stable) and numbered 0..n-1.
// Steps 1 and 2 run while the trace is read (RequestSelector), so a short window of a long trace is cheap.
#pragma once
#include <cstdint>
#include <vector>

#include "traces/random.hpp"
#include "traces/request.hpp"

namespace lynx {

struct TraceTransforms {
  bool has_time_window = false;
  double window_begin_s = 0, window_end_s = 0;
  int64_t first_n = 0;                  // 0: all
  bool spread_same_timestamp = false;
  double spread_step_s = 0;             // 0: inferred from the timestamps
  double time_scale = 1;
  double target_rate_per_s = 0;         // 0: keep the rate
};

// The random stream (traces/random.hpp seed_derive) the spreading draws from.
constexpr uint64_t kSpreadRandomStream = 3;

// Steps 1 and 2 for requests offered in arrival order.
class RequestSelector {
 public:
  explicit RequestSelector(const TraceTransforms& transforms) : t_(transforms) {}
  enum class Verdict { keep, skip, stop };
  // keep: `r` (shifted to the window) is to be kept; skip: not this one; stop: none after it either.
  // After the N-th kept request (first_n), the next offer returns stop; done() tells it earlier.
  Verdict offer(Request& r);
  bool done() const { return t_.first_n > 0 && kept_ >= t_.first_n; }

 private:
  const TraceTransforms& t_;
  int64_t kept_ = 0;
};

// Steps 3 and 4, sorting and numbering. Throws LynxError if the spreading step cannot be inferred (all requests
// share one timestamp) or the rate cannot be set (fewer than 2 requests or a zero span).
void transforms_finish(std::vector<Request>& requests, const TraceTransforms& transforms, uint64_t seed);

// The spreading of step 3 alone (exposed for tests).
void spread_same_timestamp(std::vector<Request>& requests, double step_s, uint64_t seed);

// The pieces of steps 3 and 4, shared by transforms_finish (a whole list) and traces/workload_stream (a stream):
// The median gap between distinct timestamps (nearest rank); 0 without gaps. Reorders `gaps`.
double median_distinct_gap(std::vector<double>& gaps);
// Whether spreading applies with that median: throws when the step must be inferred but every one of `requests`
// (>= 2) shares one timestamp; false for a single request (nothing to spread).
bool spreading_applies(double step_s, double median_gap, int64_t requests);
// Spreads the `count` requests at `group` (sharing timestamp t = group[0].arrival_s, count >= 2): the given step, or
// the gap to the next timestamp (next_s; has_next false for the last group), or the median gap when that gap is
// over 1.5 median gaps or there is no next group. `draws` is scratch.
void spread_group(Request* group, size_t count, bool has_next, double next_s, double step_s, double median_gap,
                  Rng& rng, std::vector<double>& draws);
// The factor step 4 multiplies arrivals by, given the workload's count and its first and last (spread) arrivals;
// throws when time_scale and target_rate_per_s are both given or the rate cannot be set.
double rescale_factor(const TraceTransforms& transforms, int64_t requests, double first_s, double last_s);

}  // namespace lynx
