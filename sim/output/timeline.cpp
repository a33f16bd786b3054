#include "sim/output/timeline.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "sim/output/request_spans.hpp"

namespace lynx {

namespace {
constexpr size_t kFlushBytes = size_t{1} << 20;

// Numbers are written with std::to_chars (locale-free, and several times faster than printf).
void append_int(std::string& out, int64_t value) {
  char text[24];
  const std::to_chars_result end = std::to_chars(text, text + sizeof text, value);
  out.append(text, end.ptr);
}

// Every time is rounded once to a tick (1/8 us, timeline.hpp): rounding keeps the order of any two times, so
// spans that do not overlap in the record never overlap in the file.
int64_t to_ticks(double s) { return std::llround(s * 1e6 * static_cast<double>(kTimelineTicksPerUs)); }
// Ticks as the trace's microseconds, exactly: the integer part, then the eighth (a finite binary fraction).
void append_us(std::string& out, int64_t ticks) {
  static_assert(kTimelineTicksPerUs == 8, "the fractions below are eighths");
  static const char* const kEighths[8] = {"", ".125", ".25", ".375", ".5", ".625", ".75", ".875"};
  if (ticks < 0) {
    out += '-';
    ticks = -ticks;
  }
  append_int(out, ticks / kTimelineTicksPerUs);
  out += kEighths[ticks % kTimelineTicksPerUs];
}
// A duration in an args entry: microseconds to the nanosecond (not a ts, never summed by a viewer).
void append_arg_us(std::string& out, const char* key, double s) {
  out += ",\"";
  out += key;
  out += "\":";
  int64_t ns = std::llround(s * 1e9);
  if (ns < 0) {
    out += '-';
    ns = -ns;
  }
  append_int(out, ns / 1000);
  const auto digit = [](int64_t d) { return static_cast<char>('0' + d); };
  const char fraction[4] = {'.', digit(ns / 100 % 10), digit(ns / 10 % 10), digit(ns % 10)};
  out.append(fraction, sizeof fraction);
}

// ,"key":value of a span's args.
void append_arg(std::string& out, const char* key, int64_t value) {
  out += ",\"";
  out += key;
  out += "\":";
  append_int(out, value);
}

std::string nic_count(int nics) { return std::to_string(nics) + (nics == 1 ? " NIC" : " NICs"); }

// What each span and mark means: the file's otherData.legend (the definitions of request_spans.hpp, for the reader).
nlohmann::json legend() {
  nlohmann::json out = {
      {"time", "ts and dur in microseconds, rounded to 1/8 us (125 ns); requests.csv holds the exact times"},
      {"flow", "the arrows (bind_id = the request id) link one request's spans across tracks, in time order"}};
  for (const SpanMeaning& m : request_span_meanings()) out[m.name] = m.meaning;
  return out;
}

// A span's args after the request id: what the phase did (tokens, waits).
std::string span_args(const RequestSpan& s, const RequestSpans& spans, const RequestRecord& r) {
  std::string args;
  const std::string name = s.name;
  if (name == "queue wait") {
    append_arg_us(args, "prefill_memory_wait_us", r.prefill_memory_wait_s);
  } else if (name == "prefill") {
    append_arg(args, "input_tokens", r.input_tokens);
    append_arg(args, "cached_tokens", r.cached_tokens);
  } else if (name == "drafting") {
    append_arg(args, "spec_tokens", r.spec_tokens);
  } else if (name == "verification") {
    append_arg(args, "accepted_tokens", r.accepted_tokens);
    append_arg(args, "rolled_back_tokens", r.rolled_back_tokens);
    append_arg_us(args, "after_residual_arrival_us", spans.drafting_end_s - r.residual_arrival_s);
  } else if (name == "decode") {
    append_arg(args, "output_tokens", r.output_tokens);
  }
  return args;
}
}  // namespace

TimelineWriter::TimelineWriter(const std::string& path, const SimConfig& config, bool per_request)
    : path_(path),
      tmp_path_(path + ".tmp." + std::to_string(::getpid())),
      prefill_instances_(config.prefill.instances),
      decode_instances_(config.decode.instances),
      per_request_(per_request) {
  namespace fs = std::filesystem;
  std::error_code error;
  for (fs::path dir = fs::path(path).parent_path(); !dir.empty() && !fs::exists(dir, error); dir = dir.parent_path())
    created_dirs_.push_back(dir.string());
  if (!created_dirs_.empty()) fs::create_directories(created_dirs_.front(), error);
  if (error) throw_error("%s: cannot create its folder: %s", path.c_str(), error.message().c_str());
  file_ = std::fopen(tmp_path_.c_str(), "wb");
  if (file_ == nullptr) {
    const int why = errno;
    for (const std::string& dir : created_dirs_) fs::remove(dir, error);
    throw_error("%s: cannot write: %s", tmp_path_.c_str(), std::strerror(why));
  }
  buffer_ = "{\"traceEvents\":[\n";
  const auto nics = [&](const PoolConfig& pool) {
    return config.network.nics_per_instance > 0 ? config.network.nics_per_instance : pool.tensor_parallel;
  };
  prefill_nics_ = nics(config.prefill), decode_nics_ = nics(config.decode);
  other_data_ = nlohmann::json{{"model", config.model},
                               {"format", config.format},
                               {"tracks", per_request_ ? "one process per request" : "one process per instance"},
                               {"legend", legend()}}
                    .dump();
  if (per_request_) return;  // processes are named as requests arrive
  const int processes = 2 * prefill_instances_ + 2 * decode_instances_;
  lanes_.resize(static_cast<size_t>(processes));
  next_tid_ = processes + 1;
  for (int i = 0; i < prefill_instances_; ++i) {
    metadata(prefill_pid(i), prefill_pid(i), "process_name", "name", "\"prefill " + std::to_string(i) + "\"");
    metadata(send_pid(i), send_pid(i), "process_name", "name",
             "\"network: prefill " + std::to_string(i) + " sends (" + nic_count(prefill_nics_) + ")\"");
  }
  for (int i = 0; i < decode_instances_; ++i) {
    metadata(receive_pid(i), receive_pid(i), "process_name", "name",
             "\"network: decode " + std::to_string(i) + " receives (" + nic_count(decode_nics_) + ")\"");
    metadata(decode_pid(i), decode_pid(i), "process_name", "name", "\"decode " + std::to_string(i) + "\"");
  }
  // Listed as prefill, its NICs, the decode NICs, decode: the order a request crosses them.
  for (int pid = 1; pid <= processes; ++pid) metadata(pid, pid, "process_sort_index", "sort_index", std::to_string(pid));
}

TimelineWriter::~TimelineWriter() {
  if (file_ != nullptr) discard();  // not committed
}

void TimelineWriter::discard() {
  if (file_ != nullptr) std::fclose(file_);
  file_ = nullptr;
  std::remove(tmp_path_.c_str());
  std::error_code error;
  for (const std::string& dir : created_dirs_) std::filesystem::remove(dir, error);  // only if empty
}

void TimelineWriter::event_start() {
  if (!first_event_) buffer_ += ",\n";
  first_event_ = false;
}

void TimelineWriter::metadata(int pid, int tid, const char* name, const char* key, const std::string& value) {
  event_start();
  buffer_ += "{\"name\":\"";
  buffer_ += name;
  buffer_ += "\",\"ph\":\"M\",\"pid\":";
  append_int(buffer_, pid);
  buffer_ += ",\"tid\":";
  append_int(buffer_, tid);
  buffer_ += ",\"args\":{\"";
  buffer_ += key;
  buffer_ += "\":";
  buffer_ += value;
  buffer_ += "}}";
}

int TimelineWriter::lane(int pid, double start_s, double end_s) {
  std::vector<Lane>& lanes = lanes_[static_cast<size_t>(pid - 1)];
  size_t k = 0;
  while (k < lanes.size() && lanes[k].end_s > start_s) ++k;
  if (k == lanes.size()) {
    lanes.push_back(Lane{end_s, next_tid_++});
    metadata(pid, lanes[k].tid, "thread_name", "name", "\"lane " + std::to_string(k) + "\"");
    metadata(pid, lanes[k].tid, "thread_sort_index", "sort_index", std::to_string(k));
  } else {
    lanes[k].end_s = end_s;
  }
  return lanes[k].tid;
}

void TimelineWriter::span(int pid, int tid, const char* name, double start_s, double end_s, const RequestRecord& r,
                          const std::string& args) {
  if (!(end_s > start_s)) return;  // not reached (NaN) or took no time
  const int64_t start = to_ticks(start_s), end = to_ticks(end_s);
  if (end <= start) return;  // shorter than the timeline's resolution
  event_start();
  event_head(name, "X", pid, tid);
  append_us(buffer_, start);
  buffer_ += ",\"dur\":";
  append_us(buffer_, end - start);
  // Flow (version 2): the request's first span starts it, each later one is bound to it on the way in and out.
  buffer_ += ",\"bind_id\":";
  append_int(buffer_, r.id);
  buffer_ += flow_started_ ? ",\"flow_in\":true,\"flow_out\":true" : ",\"flow_out\":true";
  flow_started_ = true;
  buffer_ += ",\"args\":{\"request\":";
  append_int(buffer_, r.id);
  buffer_ += args;
  buffer_ += "}}";
}

void TimelineWriter::instant(int pid, int tid, const char* name, double t_s, const RequestRecord& r) {
  if (std::isnan(t_s)) return;
  event_start();
  event_head(name, "i\",\"s\":\"t", pid, tid);
  append_us(buffer_, to_ticks(t_s));
  buffer_ += ",\"args\":{\"request\":";
  append_int(buffer_, r.id);
  buffer_ += "}}";
}

void TimelineWriter::event_head(const char* name, const char* phase, int pid, int tid) {
  buffer_ += "{\"name\":\"";
  buffer_ += name;
  buffer_ += "\",\"cat\":\"request\",\"ph\":\"";
  buffer_ += phase;
  buffer_ += "\",\"pid\":";
  append_int(buffer_, pid);
  buffer_ += ",\"tid\":";
  append_int(buffer_, tid);
  buffer_ += ",\"ts\":";
}

void TimelineWriter::add(const RequestRecord& r) {
  flow_started_ = false;
  if (per_request_)
    add_per_request(r);
  else
    add_by_instance(r);
  ++requests_added_;
  if (buffer_.size() >= kFlushBytes) flush();
}

void TimelineWriter::add_by_instance(const RequestRecord& r) {
  const RequestSpans spans = request_spans(r);
  // Prefill instance: queued, then prefilling, on one lane.
  const int prefill = prefill_pid(r.prefill_instance);
  const int prefill_lane = lane(prefill, r.arrival_s, r.prefill_end_s);
  for (const RequestSpan& s : spans.spans)
    if (s.track == SpanTrack::prefill) span(prefill, prefill_lane, s.name, s.start_s, s.end_s, r, span_args(s, spans, r));

  // The transfer, on the sending and the receiving NICs; Lynx's two streams on two lanes.
  for (const int pid : {send_pid(r.prefill_instance), receive_pid(r.decode_instance)})
    for (const RequestSpan& s : spans.spans)
      if (s.track == SpanTrack::stream || s.track == SpanTrack::residual)
        span(pid, lane(pid, s.start_s, s.end_s), s.name, s.start_s, s.end_s, r);

  // Decode instance: awaiting_memory, then from the KV being usable to the last token, on one lane.
  const int decode = decode_pid(r.decode_instance);
  const double kv_usable_s = r.anchor_arrival_s;
  const int decode_lane = lane(decode, r.decode_memory_wait_s > 0 ? spans.memory_wait_start_s : kv_usable_s, r.end_s);
  for (const RequestSpan& s : spans.spans)
    if (s.track == SpanTrack::decode) span(decode, decode_lane, s.name, s.start_s, s.end_s, r, span_args(s, spans, r));
  for (const RequestMark& m : spans.marks) instant(decode, decode_lane, m.name, m.at_s, r);
}

void TimelineWriter::add_per_request(const RequestRecord& r) {
  // A process per request, its threads: prefill instance, the stream(s), decode instance. Request k's pid is 1 + 5k
  // and its threads pid + 1 .. pid + 4: unique, and never a pid.
  const RequestSpans spans = request_spans(r);
  const int pid = 1 + 5 * requests_added_;
  const bool two_streams = !std::isnan(r.residual_arrival_s);
  const int prefill = pid + 1, stream = pid + 2, residual = pid + 3, decode = pid + 4;
  metadata(pid, pid, "process_name", "name", "\"request " + std::to_string(r.id) + "\"");
  metadata(pid, pid, "process_sort_index", "sort_index", std::to_string(requests_added_));
  const std::string route = "prefill " + std::to_string(r.prefill_instance) + " -> decode " +
                            std::to_string(r.decode_instance);
  std::vector<std::pair<int, std::string>> threads = {
      {prefill, "prefill " + std::to_string(r.prefill_instance)},
      {stream, (two_streams ? "anchor stream: " : "KV transfer: ") + route}};
  if (two_streams) threads.push_back({residual, "residual stream: " + route});
  threads.push_back({decode, "decode " + std::to_string(r.decode_instance)});
  for (size_t k = 0; k < threads.size(); ++k) {
    metadata(pid, threads[k].first, "thread_name", "name", "\"" + threads[k].second + "\"");
    metadata(pid, threads[k].first, "thread_sort_index", "sort_index", std::to_string(k));
  }
  const int tid_of[] = {prefill, stream, residual, decode};  // by SpanTrack
  for (const RequestSpan& s : spans.spans)
    span(pid, tid_of[static_cast<int>(s.track)], s.name, s.start_s, s.end_s, r, span_args(s, spans, r));
  for (const RequestMark& m : spans.marks) instant(pid, decode, m.name, m.at_s, r);
}

void TimelineWriter::flush() {
  if (!buffer_.empty() && std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size())
    throw_error("%s: cannot write: %s", tmp_path_.c_str(), std::strerror(errno));
  buffer_.clear();
}

void TimelineWriter::commit() {
  buffer_ += "\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":";
  buffer_ += other_data_;
  buffer_ += "}\n";
  flush();  // on failure the destructor discards the file
  std::FILE* file = file_;
  file_ = nullptr;
  if (std::fclose(file) != 0) {
    const int why = errno;
    discard();
    throw_error("%s: cannot write: %s", path_.c_str(), std::strerror(why));
  }
  rename_into_place(tmp_path_, path_);  // removes the temporary file if it refuses
}

}  // namespace lynx
