#include <doctest/doctest.h>

#include <cmath>

#include "trace_test_util.hpp"
#include "traces/trace_reader.hpp"
#include "traces/trace_stats.hpp"
#include "traces/transforms.hpp"

using namespace lynx;
using lynx_test::error_of;

namespace {
std::vector<Request> at_times(const std::vector<double>& times) {
  std::vector<Request> r(times.size());
  for (size_t i = 0; i < times.size(); ++i) {
    r[i].id = static_cast<int64_t>(i);
    r[i].arrival_s = times[i];
    r[i].input_tokens = static_cast<int64_t>(i) + 1;  // identifies the request after the transforms
    r[i].output_tokens = 1;
  }
  return r;
}
std::vector<Request> select(std::vector<Request> in, const TraceTransforms& t) {
  RequestSelector selector(t);
  std::vector<Request> out;
  for (Request& r : in) {
    RequestSelector::Verdict v = selector.offer(r);
    if (v == RequestSelector::Verdict::stop) break;
    if (v == RequestSelector::Verdict::keep) out.push_back(r);
  }
  return out;
}
}  // namespace

TEST_CASE("time window keeps begin <= t < end shifted to 0, then first N") {
  TraceTransforms t;
  t.has_time_window = true;
  t.window_begin_s = 2.5;
  t.window_end_s = 6;
  std::vector<Request> r = select(at_times({0, 1, 2, 3, 4, 5, 6, 7}), t);
  REQUIRE(r.size() == 3);
  CHECK(r[0].arrival_s == 0.5);
  CHECK(r[2].arrival_s == 2.5);
  CHECK(r[0].input_tokens == 4);
  t.first_n = 2;
  r = select(at_times({0, 1, 2, 3, 4, 5, 6, 7}), t);
  REQUIRE(r.size() == 2);
  CHECK(r[1].input_tokens == 5);
  TraceTransforms first_only;
  first_only.first_n = 1;
  CHECK(select(at_times({0, 1}), first_only).size() == 1);
}

TEST_CASE("spreading: groups sharing a timestamp fill their step, in file order, reproducibly") {
  std::vector<double> times = {0, 0, 0, 0, 3, 6, 6, 6, 9.003, 9.003, 12, 40, 40};
  std::vector<Request> a = at_times(times), b = at_times(times), c = at_times(times);
  spread_same_timestamp(a, 0, 11);
  spread_same_timestamp(b, 0, 11);
  spread_same_timestamp(c, 0, 12);
  // Median gap between distinct timestamps (3, 3, 3.003, 2.997, 28) is 3.
  auto within = [&](size_t i, double lo, double hi) { return a[i].arrival_s >= lo && a[i].arrival_s < hi; };
  for (size_t i = 0; i < 4; ++i) CHECK(within(i, 0, 3));
  CHECK(a[4].arrival_s == 3);  // alone on its timestamp: unchanged
  for (size_t i = 5; i < 8; ++i) CHECK(within(i, 6, 9.003));  // to the next timestamp
  for (size_t i = 8; i < 10; ++i) CHECK(within(i, 9.003, 12));
  for (size_t i = 11; i < 13; ++i) CHECK(within(i, 40, 43));  // last group: the median step
  for (size_t i = 1; i < a.size(); ++i) CHECK(a[i].arrival_s >= a[i - 1].arrival_s);
  bool same = true, differ = false;
  for (size_t i = 0; i < a.size(); ++i) {
    same = same && a[i].arrival_s == b[i].arrival_s;
    differ = differ || a[i].arrival_s != c[i].arrival_s;
  }
  CHECK(same);
  CHECK(differ);

  // A gap over 1.5 x the median (an empty step) falls back to the median: 0,0 then 30 -> [0, 3).
  std::vector<Request> gap = at_times({0, 0, 3, 6, 9, 30});
  spread_same_timestamp(gap, 0, 1);
  CHECK(gap[1].arrival_s < 3);
  // A given step.
  std::vector<Request> given = at_times({5, 5, 5, 5});
  spread_same_timestamp(given, 0.5, 1);
  for (const Request& r : given) CHECK((r.arrival_s >= 5 && r.arrival_s < 5.5));
  std::vector<Request> one_timestamp = at_times({5, 5});
  CHECK(error_of([&] { spread_same_timestamp(one_timestamp, 0, 1); }) ==
        "cannot spread requests over their timestamp step: all 2 requests share one timestamp, so the step cannot be "
        "inferred (give spread_step_s)");
}

TEST_CASE("spreading is uniform over the step: mean of 20,000 draws over a 3 s step") {
  std::vector<double> times(20000, 0.0);
  times.push_back(3);
  std::vector<Request> r = at_times(times);
  spread_same_timestamp(r, 0, 5);
  double sum = 0;
  for (size_t i = 0; i < 20000; ++i) sum += r[i].arrival_s;
  CHECK(std::abs(sum / 20000 - 1.5) < 4 * 3 / std::sqrt(12.0 * 20000));
}

TEST_CASE("time scale and target rate") {
  std::vector<Request> r = at_times({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10});  // rate (n-1)/span = 1/s
  TraceTransforms t;
  t.time_scale = 0.5;
  transforms_finish(r, t, 0);
  CHECK(r[10].arrival_s == 5);
  t = TraceTransforms();
  t.target_rate_per_s = 4;
  transforms_finish(r, t, 0);  // from 2/s to 4/s
  CHECK(r[10].arrival_s == 2.5);
  CHECK(trace_stats_compute(r).rate_per_s == 4);
  t.time_scale = 2;
  CHECK(error_of([&] { transforms_finish(r, t, 0); }) ==
        "time_scale and target_rate_per_s both rescale time: give one of them");
  std::vector<Request> single = at_times({3});
  t = TraceTransforms();
  t.target_rate_per_s = 1;
  CHECK(error_of([&] { transforms_finish(single, t, 0); }) ==
        "cannot set the arrival rate to 1/s: the workload has 1 requests over 0 s (needs at least 2 requests over a "
        "positive span)");
}

TEST_CASE("the Mooncake trace spread over its ~3 s steps: no two neighbours share a timestamp any more") {
  TraceReadResult trace = trace_read(lynx_test::shipped(lynx_test::kMooncakeTrace));
  std::vector<Request>& r = trace.requests;
  size_t shared_before = 0, shared_after = 0;
  for (size_t i = 1; i < r.size(); ++i) shared_before += r[i].arrival_s == r[i - 1].arrival_s;
  CHECK(std::llround(1000.0 * static_cast<double>(shared_before) / static_cast<double>(r.size() - 1)) == 902);
  double rate_before = trace_stats_compute(r).rate_per_s;
  TraceTransforms t;
  t.spread_same_timestamp = true;
  transforms_finish(r, t, 1);
  for (size_t i = 1; i < r.size(); ++i) shared_after += r[i].arrival_s == r[i - 1].arrival_s;
  CHECK(shared_after == 0);
  CHECK(std::abs(trace_stats_compute(r).rate_per_s / rate_before - 1) < 0.002);
  for (size_t i = 0; i < r.size(); ++i) CHECK(r[i].id == static_cast<int64_t>(i));
}

TEST_CASE("token statistics never overflow: the mean of rows near INT64_MAX is theirs, not negative") {
  const int64_t big = INT64_MAX / 2;  // three of them overflow an int64 sum (trace-stats printed -4.6e18)
  const TokenStats s = token_stats_compute({big, big, big});
  CHECK(s.mean == doctest::Approx(static_cast<double>(big)));
  CHECK(s.max == big);
  CHECK(token_stats_compute({1, 2, 4}).mean == doctest::Approx(7.0 / 3));
}
