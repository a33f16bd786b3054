#include "sim/timeline.hpp"

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

namespace lynx {

namespace {
constexpr size_t kFlushBytes = size_t{1} << 20;

// Numbers are written with std::to_chars (locale-free, and several times faster than printf).
void append_int(std::string& out, int64_t value) {
  char text[24];
  const std::to_chars_result end = std::to_chars(text, text + sizeof text, value);
  out.append(text, end.ptr);
}

// Times are rounded to whole nanoseconds first, so that a span ending where the next one starts (the same time in
// the record) ends at exactly its ts: viewers nest or drop slices that overlap by a rounding error.
int64_t to_ns(double s) { return std::llround(s * 1e9); }
// Nanoseconds as the trace's microseconds with three decimals.
void append_us(std::string& out, int64_t ns) {
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
}  // namespace

TimelineWriter::TimelineWriter(const std::string& path, const SimConfig& config)
    : path_(path),
      tmp_path_(path + ".tmp." + std::to_string(::getpid())),
      prefill_instances_(config.prefill.instances),
      decode_instances_(config.decode.instances) {
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
  const int processes = 2 * prefill_instances_ + 2 * decode_instances_;
  lanes_.resize(static_cast<size_t>(processes));
  next_tid_ = processes + 1;
  buffer_ = "{\"traceEvents\":[\n";
  const auto nics = [&](const PoolConfig& pool) {
    return config.network.nics_per_instance > 0 ? config.network.nics_per_instance : pool.tensor_parallel;
  };
  const int prefill_nics = nics(config.prefill), decode_nics = nics(config.decode);
  for (int i = 0; i < prefill_instances_; ++i) {
    metadata(prefill_pid(i), prefill_pid(i), "process_name", "name", "\"prefill " + std::to_string(i) + "\"");
    metadata(send_pid(i), send_pid(i), "process_name", "name",
             "\"network: prefill " + std::to_string(i) + " sends (" + nic_count(prefill_nics) + ")\"");
  }
  for (int i = 0; i < decode_instances_; ++i) {
    metadata(receive_pid(i), receive_pid(i), "process_name", "name",
             "\"network: decode " + std::to_string(i) + " receives (" + nic_count(decode_nics) + ")\"");
    metadata(decode_pid(i), decode_pid(i), "process_name", "name", "\"decode " + std::to_string(i) + "\"");
  }
  // Listed as prefill, its NICs, the decode NICs, decode: the order a request crosses them.
  for (int pid = 1; pid <= processes; ++pid) metadata(pid, pid, "process_sort_index", "sort_index", std::to_string(pid));
  other_data_ = nlohmann::json{{"model", config.model}, {"format", config.format}}.dump();
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
  event_start();
  event_head(name, "X", pid, tid);
  const int64_t start_ns = to_ns(start_s);
  append_us(buffer_, start_ns);
  buffer_ += ",\"dur\":";
  append_us(buffer_, to_ns(end_s) - start_ns);
  buffer_ += ",\"args\":{\"request\":";
  append_int(buffer_, r.id);
  buffer_ += args;
  buffer_ += "}}";
}

void TimelineWriter::instant(int pid, int tid, const char* name, double t_s, const RequestRecord& r) {
  if (std::isnan(t_s)) return;
  event_start();
  event_head(name, "i\",\"s\":\"t", pid, tid);
  append_us(buffer_, to_ns(t_s));
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
  // Prefill instance: queued, then prefilling, on one lane.
  const int prefill = prefill_pid(r.prefill_instance);
  const int prefill_lane = lane(prefill, r.arrival_s, r.prefill_end_s);
  std::string args = ",\"prefill_memory_wait_us\":";
  append_us(args, to_ns(r.prefill_memory_wait_s));
  span(prefill, prefill_lane, "queue wait", r.arrival_s, r.prefill_start_s, r, args);
  args.clear();
  append_arg(args, "input_tokens", r.input_tokens);
  append_arg(args, "cached_tokens", r.cached_tokens);
  span(prefill, prefill_lane, "prefill", r.prefill_start_s, r.prefill_end_s, r, args);

  // The transfer, on the sending and the receiving NICs; Lynx's two streams on two lanes.
  const bool two_streams = !std::isnan(r.residual_arrival_s);
  for (const int pid : {send_pid(r.prefill_instance), receive_pid(r.decode_instance)}) {
    if (!two_streams) {
      span(pid, lane(pid, r.transfer_start_s, r.anchor_arrival_s), "KV transfer", r.transfer_start_s,
           r.anchor_arrival_s, r);
      continue;
    }
    span(pid, lane(pid, r.transfer_start_s, r.anchor_arrival_s), "anchor transfer", r.transfer_start_s,
         r.anchor_arrival_s, r);
    span(pid, lane(pid, r.transfer_start_s, r.residual_arrival_s), "residual transfer", r.transfer_start_s,
         r.residual_arrival_s, r);
  }

  // Decode instance: awaiting_memory, then from the KV being usable to the last token, on one lane.
  const int decode = decode_pid(r.decode_instance);
  const double memory_wait_start_s = std::max(0.0, r.transfer_start_s - r.decode_memory_wait_s);
  const double kv_usable_s = r.anchor_arrival_s;
  const int decode_lane = lane(decode, r.decode_memory_wait_s > 0 ? memory_wait_start_s : kv_usable_s, r.end_s);
  span(decode, decode_lane, "decode memory wait", memory_wait_start_s, r.transfer_start_s, r);
  span(decode, decode_lane, "batch wait", kv_usable_s, r.decode_start_s, r);
  double decode_from_s = r.decode_start_s;
  if (!std::isnan(r.verify_s)) {  // drafted on the anchor, then verified
    args.clear();
    append_arg(args, "spec_tokens", r.spec_tokens);
    span(decode, decode_lane, "drafting", r.decode_start_s, r.residual_arrival_s, r, args);
    args.clear();
    append_arg(args, "accepted_tokens", r.accepted_tokens);
    append_arg(args, "rolled_back_tokens", r.rolled_back_tokens);
    span(decode, decode_lane, "verification", r.residual_arrival_s, r.verify_s, r, args);
    decode_from_s = r.verify_s;
  }
  args.clear();
  append_arg(args, "output_tokens", r.output_tokens);
  span(decode, decode_lane, "decode", decode_from_s, r.end_s, r, args);
  if (r.spec_tokens > 0) instant(decode, decode_lane, "first draft", r.first_spec_token_s, r);
  instant(decode, decode_lane, "first token", r.first_token_s, r);
  if (buffer_.size() >= kFlushBytes) flush();
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
