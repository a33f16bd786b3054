#include "traces/workload_stream.hpp"

#include <algorithm>
#include <queue>
#include <vector>

#include "common/error.hpp"
#include "traces/random.hpp"
#include "traces/synthetic.hpp"
#include "traces/trace_reader.hpp"
#include "traces/transforms.hpp"

namespace lynx {

namespace {

// The source (trace rows or synthetic draws) through the time window and first N, in source order.
class SelectedSource {
 public:
  SelectedSource(const WorkloadSpec& spec, uint64_t seed) : spec_(spec), transforms_(spec.transforms),
                                                              selector_(transforms_) {
    if (spec.synthetic) synthetic_ = std::make_unique<SyntheticStream>(spec.synthetic_spec, seed);
    else trace_ = std::make_unique<TraceRowStream>(spec.trace_path, spec.read);
  }

  bool next(Request& r) {
    if (ended_) return false;
    for (;;) {
      if (selector_.done()) return stop();
      if (!(synthetic_ ? synthetic_->next(r) : trace_->next(r))) return end();
      const RequestSelector::Verdict v = selector_.offer(r);
      if (v == RequestSelector::Verdict::stop) return stop();
      if (v == RequestSelector::Verdict::skip) continue;
      ++kept_;
      return true;
    }
  }

  int64_t kept() const { return kept_; }
  const TraceReadReport& read_report() const { return trace_ ? trace_->report() : empty_report_; }

 private:
  bool stop() {
    if (trace_) trace_->stop();
    return end();
  }
  // The message workload_build gives for an empty workload.
  bool end() {
    ended_ = true;
    if (kept_ == 0)
      throw_error("%s: the workload is empty: the time window [%g, %g) s holds no request of %s",
                  spec_.origin.empty() ? "workload" : spec_.origin.c_str(), transforms_.window_begin_s,
                  transforms_.window_end_s, spec_.synthetic ? "the synthetic workload" : spec_.trace_path.c_str());
    return false;
  }

  const WorkloadSpec& spec_;
  TraceTransforms transforms_;  // before the selector, which refers to it
  RequestSelector selector_;
  std::unique_ptr<SyntheticStream> synthetic_;
  std::unique_ptr<TraceRowStream> trace_;
  TraceReadReport empty_report_;
  int64_t kept_ = 0;
  bool ended_ = false;
};

// First pass for an inferred spreading step: the median gap between distinct timestamps and the number of requests.
double median_gap_pass(const WorkloadSpec& spec, uint64_t seed, int64_t& requests) {
  SelectedSource source(spec, seed);
  std::vector<double> gaps;
  Request r;
  double previous = 0;
  bool any = false;
  while (source.next(r)) {
    if (any && r.arrival_s > previous) gaps.push_back(r.arrival_s - previous);
    previous = r.arrival_s;
    any = true;
  }
  requests = source.kept();
  return median_distinct_gap(gaps);
}

struct Spreading {
  bool on = false;
  double step_s = 0;      // given step, or 0: inferred per group
  double median_gap = 0;  // for an inferred step
};

struct Queued {
  double arrival_s;
  int64_t position;  // in source order: ties keep it (the stable sort)
  Request request;
};
struct LaterFirst {
  bool operator()(const Queued& a, const Queued& b) const {
    return a.arrival_s != b.arrival_s ? a.arrival_s > b.arrival_s : a.position > b.position;
  }
};

}  // namespace

// Steps 3 and 4 of transforms.hpp on the selected source, in the final order, with ids.
class WorkloadStream::Pipeline {
 public:
  Pipeline(const WorkloadSpec& spec, uint64_t seed, const Spreading& spreading, double scale)
      : source_(spec, seed), spreading_(spreading), scale_(scale),
        rng_(seed_derive(seed, kSpreadRandomStream)) {}

  bool next(Request& r) {
    if (!spreading_.on) {
      if (!source_.next(r)) return false;
      if (scale_ != 1) r.arrival_s *= scale_;
      r.id = next_id_++;
      return true;
    }
    // A queued request leaves once no later row can arrive before it (later rows arrive at or after the held
    // row's timestamp, so at or after its scaled value).
    while (queue_.empty() || (!source_done_ && queue_.top().arrival_s > release_bound_)) {
      if (source_done_) return false;
      spread_next_group();
    }
    r = std::move(const_cast<Queued&>(queue_.top()).request);
    queue_.pop();
    r.id = next_id_++;
    return true;
  }

  const TraceReadReport& read_report() const { return source_.read_report(); }

 private:
  // Reads the next group of requests sharing a timestamp (and the row after it), spreads it, queues it.
  void spread_next_group() {
    if (!have_held_ && !(have_held_ = source_.next(held_))) {
      source_done_ = true;
      return;
    }
    group_.clear();
    group_.push_back(std::move(held_));
    have_held_ = false;
    Request r;
    while (source_.next(r)) {
      if (r.arrival_s != group_.front().arrival_s) {
        held_ = std::move(r);
        have_held_ = true;
        break;
      }
      group_.push_back(std::move(r));
    }
    if (group_.size() >= 2)
      spread_group(group_.data(), group_.size(), have_held_, have_held_ ? held_.arrival_s : 0, spreading_.step_s,
                   spreading_.median_gap, rng_, draws_);
    for (Request& g : group_) {
      if (scale_ != 1) g.arrival_s *= scale_;
      const double arrival_s = g.arrival_s;
      queue_.push(Queued{arrival_s, position_++, std::move(g)});
    }
    if (have_held_) release_bound_ = scale_ != 1 ? held_.arrival_s * scale_ : held_.arrival_s;
    else source_done_ = true;
  }

  SelectedSource source_;
  Spreading spreading_;
  double scale_;
  Rng rng_;
  int64_t next_id_ = 0;
  // Spreading state.
  Request held_;  // the first row of the next group
  bool have_held_ = false, source_done_ = false;
  std::vector<Request> group_;
  std::vector<double> draws_;
  std::priority_queue<Queued, std::vector<Queued>, LaterFirst> queue_;
  int64_t position_ = 0;
  double release_bound_ = 0;
};

WorkloadStream::WorkloadStream(const WorkloadSpec& workload, uint64_t seed) : spec_(workload) {
  const WorkloadSpec& spec = spec_;
  const TraceTransforms& t = spec.transforms;
  Spreading spreading;
  if (t.spread_same_timestamp) {
    spreading.step_s = t.spread_step_s;
    int64_t requests = 0;
    if (t.spread_step_s <= 0) spreading.median_gap = median_gap_pass(spec, seed, requests);
    spreading.on = spreading_applies(spreading.step_s, spreading.median_gap, requests);
  }
  double first_s = 0, last_s = 0;
  int64_t requests = 0;
  if (t.target_rate_per_s > 0) {
    // First pass: the count and span of the spread, unscaled arrivals.
    Pipeline unscaled(spec, seed, spreading, 1);
    Request r;
    while (unscaled.next(r)) {
      first_s = requests == 0 ? r.arrival_s : std::min(first_s, r.arrival_s);
      last_s = requests == 0 ? r.arrival_s : std::max(last_s, r.arrival_s);
      ++requests;
    }
  }
  pipeline_ = std::make_unique<Pipeline>(spec, seed, spreading, rescale_factor(t, requests, first_s, last_s));
}

WorkloadStream::~WorkloadStream() = default;

bool WorkloadStream::next(Request& r) { return pipeline_->next(r); }

const TraceReadReport& WorkloadStream::read_report() const { return pipeline_->read_report(); }

WorkloadBuild workload_build_report(const WorkloadSpec& spec, uint64_t seed) {
  WorkloadBuild build;
  SelectedSource source(spec, seed);
  Request r;
  while (source.next(r)) build.requests.push_back(std::move(r));
  build.read = source.read_report();
  transforms_finish(build.requests, spec.transforms, seed);
  return build;
}

int64_t workload_count(const WorkloadSpec& spec, uint64_t seed) {
  // The time window and first N decide which requests are kept; spreading and rescaling move them, never drop one.
  if (spec.synthetic && !spec.transforms.has_time_window)
    return spec.transforms.first_n > 0 ? std::min(spec.transforms.first_n, spec.synthetic_spec.count)
                                       : spec.synthetic_spec.count;
  SelectedSource source(spec, seed);
  Request r;
  while (source.next(r)) {
  }
  return source.kept();
}

double workload_span_s(const WorkloadSpec& spec, uint64_t seed) {
  WorkloadStream stream(spec, seed);
  Request r;
  bool any = false;
  double first = 0, last = 0;
  while (stream.next(r)) {
    first = any ? std::min(first, r.arrival_s) : r.arrival_s;
    last = any ? std::max(last, r.arrival_s) : r.arrival_s;
    any = true;
  }
  return last - first;
}

std::function<bool(Request&)> workload_stream(const WorkloadSpec& spec, uint64_t seed) {
  auto stream = std::make_shared<WorkloadStream>(spec, seed);
  auto noted = std::make_shared<bool>(false);
  return [stream, noted](Request& r) {
    if (stream->next(r)) return true;
    if (*noted) return false;
    *noted = true;
    workload_read_notes(stream->read_report());
    return false;
  };
}

}  // namespace lynx
