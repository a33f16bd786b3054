// A run's timeline as a Chrome trace-event JSON file, the format ui.perfetto.dev and speedscope open:
// {"traceEvents":[...],"displayTimeUnit":"ms",...}, "X" (complete) events with ts and dur in microseconds, "i"
// (instant) events, and "M" metadata naming every process and thread.
//
// Tracks (default). A process per prefill instance ("prefill 3"), per prefill instance's NICs, sending ("network:
// prefill 3 sends (8 NICs)"), per decode instance's NICs, receiving ("network: decode 5 receives (8 NICs)"), and per
// decode instance. A request's transfer is shown on both the sending and the receiving NICs. Many requests overlap
// on one instance, and Chrome-trace "X" events on one thread must nest, so each process has threads ("lane 0",
// "lane 1", ...): a request's spans on an instance go to the lowest lane free over their whole interval (a lane's
// spans never overlap). With `per_request` (`--timeline-per-request`, for small runs) each request is instead a
// process of its own ("request 17") whose threads are its prefill instance, its transfer stream(s) and its decode
// instance: one request's whole path in one place. Thread ids are unique in the whole file and differ from every
// pid (Perfetto names threads by tid alone, and gives a process's metadata the tid of its pid); each thread's name
// comes before its first event.
//
// Flows. Every span of a request carries "bind_id": <request id> (the format's flow events, version 2): the request's
// first span (its queue wait or prefill) has "flow_out", every later one "flow_in" and "flow_out", so Perfetto
// draws one chain of arrows through the request's spans across all its tracks, in time order.
//
// Spans and marks: a request's phases from its record (sim/output/request_spans.hpp, which defines each one; the
// same list `lynxsim plot --gantt` draws): queue wait and prefill on its prefill instance; KV transfer, or Lynx's
// anchor transfer and residual transfer, on the NICs of both sides; decode memory wait, batch wait, drafting,
// verification and decode on its decode instance, with the first draft and first token marks on the decode lane. A
// span is written when it lasts at least one tick (below).
//
// Times. Every time is rounded once, to a tick of 1/8 us (125 ns), and printed exactly (ts 12.375, dur 0.625): a
// multiple of 1/8 is exact in binary floating point, so a viewer that reads ts and dur as doubles gets ts + dur
// exactly (and ts * 1000, Perfetto's nanoseconds, exactly); a span that ends where the next one on its track begins
// ends exactly at its ts, and rounding keeps the order of any two times, so spans that do not overlap in the record
// do not overlap in any viewer. (Decimal microseconds to the nanosecond, as before, do not: 12.345 + 0.678 read as
// doubles can land past 13.023 and break nesting.) The record itself keeps full precision in requests.csv. Same
// records in the same order -> the same bytes.
//
// Memory: the file is streamed a record at a time (the writer keeps each lane's end time, not the spans) to
// "<path>.tmp.<pid>", renamed over <path> by commit(). Without commit() (an error) the temporary file, and any
// folder created for it, are removed.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/output/request_record.hpp"
#include "sim/output/request_spans.hpp"
#include "sim/config/sim_config.hpp"

namespace lynx {

// The timeline's tick: 1/8 us (see the file comment).
constexpr int64_t kTimelineTicksPerUs = 8;

class TimelineWriter {
 public:
  // Creates <path>'s folder if needed and opens the temporary file; throws LynxError naming the path.
  // `per_request`: a process per request instead of per instance.
  TimelineWriter(const std::string& path, const SimConfig& config, bool per_request = false);
  ~TimelineWriter();
  TimelineWriter(const TimelineWriter&) = delete;
  TimelineWriter& operator=(const TimelineWriter&) = delete;
  // A finished request's spans (records in request order, as the simulator hands them out).
  void add(const RequestRecord& r);
  // Ends the JSON and renames the file into place.
  void commit();

 private:
  int prefill_pid(int instance) const { return 1 + instance; }
  int send_pid(int instance) const { return 1 + prefill_instances_ + instance; }
  int receive_pid(int instance) const { return 1 + 2 * prefill_instances_ + instance; }
  int decode_pid(int instance) const { return 1 + 2 * prefill_instances_ + decode_instances_ + instance; }
  // The thread id of the lowest lane of process `pid` free from start_s on, now taken up to end_s; a new lane's
  // metadata is written when it first appears.
  int lane(int pid, double start_s, double end_s);
  void add_by_instance(const RequestRecord& r);
  void add_per_request(const RequestRecord& r);
  // Writes an "X" event when it lasts at least one tick; `args` is the JSON text inside its "args" object after the
  // request id. The request's first span written starts its flow, every later one continues it.
  void span(int pid, int tid, const char* name, double start_s, double end_s, const RequestRecord& r,
            const std::string& args = std::string());
  void instant(int pid, int tid, const char* name, double t_s, const RequestRecord& r);
  void metadata(int pid, int tid, const char* name, const char* key, const std::string& value);
  void event_start();
  void event_head(const char* name, const char* phase, int pid, int tid);  // up to "ts":
  void flush();
  void discard();  // removes the temporary file and the folders created for it (if empty)

  std::string path_, tmp_path_, buffer_, other_data_;
  std::FILE* file_ = nullptr;
  std::vector<std::string> created_dirs_;  // deepest first: removed on failure if still empty
  int prefill_instances_ = 0, decode_instances_ = 0;
  int prefill_nics_ = 0, decode_nics_ = 0;
  bool per_request_ = false;
  int requests_added_ = 0;
  bool flow_started_ = false;  // the current request's flow has its first span
  struct Lane {
    double end_s;  // the end of its last span
    int tid;
  };
  std::vector<std::vector<Lane>> lanes_;  // [pid - 1], by instance only
  int next_tid_ = 0;                      // thread ids are unique in the file, and above every pid
  bool first_event_ = true;
};

}  // namespace lynx
