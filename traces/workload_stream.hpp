// The workload read as it is needed: the requests one at a time, exactly those (and in the order, with the ids)
// that workload_build makes, without holding the trace. This is what lets a simulation's memory stay flat with
// the trace's length (a week of production traffic is millions of requests).
//
// How each transform streams (traces/transforms.hpp has their definitions):
//   - time window and first N: applied as the rows are read (RequestSelector), as in workload_build;
//   - time_scale: each arrival multiplied as it passes;
//   - spread_same_timestamp: one group of requests sharing a timestamp is held at a time, plus the next row (its
//     gap is the group's step). When the step is inferred, the median gap between distinct timestamps is needed
//     first: a first pass over the workload keeps those gaps only (8 bytes per distinct timestamp, not per
//     request). Spread arrivals can pass the next group's (a given spread_step_s wider than the gaps), so the
//     spread requests wait in a queue ordered by (arrival, position) until no later row can arrive before them:
//     the result is the stable sort workload_build makes, and the queue holds one step's worth of requests;
//   - target_rate_per_s: the rate needs the whole workload's count and span, so a first pass computes them (the
//     trace is read twice, or three times with an inferred spreading step).
// Trace rows are in non-decreasing time order (the reader refuses others) and synthetic arrivals increase, so with
// no spreading the order is already the sorted one.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>

#include "traces/request.hpp"
#include "traces/workload_spec.hpp"

namespace lynx {

class WorkloadStream {
 public:
  // Runs the first passes the transforms need (see above); errors as workload_build's.
  WorkloadStream(const WorkloadSpec& spec, uint64_t seed);
  ~WorkloadStream();
  WorkloadStream(const WorkloadStream&) = delete;
  WorkloadStream& operator=(const WorkloadStream&) = delete;

  // Fills the next request (ids 0, 1, ...); false after the last. Throws LynxError on a bad trace row (unless
  // skip_bad_rows), or at the end when the workload is empty.
  bool next(Request& r);
  // The trace's read report (rows, skipped bad rows, dropped failed rows), complete once next() returned false;
  // empty for a synthetic workload.
  const TraceReadReport& read_report() const;

 private:
  class Pipeline;
  WorkloadSpec spec_;  // the passes read it
  std::unique_ptr<Pipeline> pipeline_;
};

// The number of requests the workload has, by one pass that keeps none of them (a trace is read once more; a
// synthetic workload without a time window is counted without drawing). For a progress meter's total.
int64_t workload_count(const WorkloadSpec& spec, uint64_t seed);

// The seconds from the workload's first arrival to its last, by one pass as the run would read it (transforms
// applied), keeping none of the requests; 0 for an empty workload. For estimates made before a run
// (sim/network/cross_traffic.hpp's cost).
double workload_span_s(const WorkloadSpec& spec, uint64_t seed);

// A WorkloadStream as a function, for SimulationInputs::request_source; the trace's notes (skipped bad rows,
// dropped failed requests) go to stderr at the end, as workload_build writes them.
std::function<bool(Request&)> workload_stream(const WorkloadSpec& spec, uint64_t seed);

}  // namespace lynx
