#include "traces/trace_schema.hpp"

#include <vector>

#include "common/error.hpp"
#include "traces/json_line.hpp"

namespace lynx {

namespace {
const char* kMooncakeForm =
    R"({"timestamp": <ms from trace start>, "input_length": <tokens>, "output_length": <tokens>, "hash_ids": [<block ids>]})";
const char* kAzureForm = "TIMESTAMP,ContextTokens,GeneratedTokens rows like 2023-11-16 18:17:03.9799600,4808,10";
const char* kBurstGptForm =
    "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type rows like 5,ChatGPT,472,18,490,"
    "Conversation log";
const char* kVidurForm = "arrived_at,num_prefill_tokens,num_decode_tokens rows like 0.125,1024,128";

bool has_all(const std::vector<std::string_view>& names, std::initializer_list<std::string_view> wanted) {
  for (auto w : wanted) {
    bool found = false;
    for (auto n : names) found = found || text_trim(n) == w;
    if (!found) return false;
  }
  return true;
}
}  // namespace

TraceFormat trace_format_detect(std::string_view first_line) {
  std::string_view line = text_trim(first_line);
  if (!line.empty() && line.front() == '{') {
    std::vector<JsonMember> members;
    JsonLineError error;
    if (json_line_scan(line, members, error) && json_member_find(members, "timestamp") &&
        json_member_find(members, "input_length") && json_member_find(members, "output_length"))
      return TraceFormat::mooncake;
    return TraceFormat::auto_detect;
  }
  std::vector<std::string_view> names;
  if (!csv_split(line, names)) return TraceFormat::auto_detect;
  if (has_all(names, {"TIMESTAMP", "ContextTokens", "GeneratedTokens"})) return TraceFormat::azure;
  if (has_all(names, {"Timestamp", "Request tokens", "Response tokens"})) return TraceFormat::burstgpt;
  if (has_all(names, {"arrived_at", "num_prefill_tokens", "num_decode_tokens"})) return TraceFormat::vidur;
  return TraceFormat::auto_detect;
}

std::string trace_format_known_forms() {
  return std::string("a Mooncake JSONL row ") + kMooncakeForm +
         ", or a CSV header of Azure (TIMESTAMP,ContextTokens,GeneratedTokens), BurstGPT (Timestamp,Model,Request "
         "tokens,Response tokens,Total tokens,Log Type) or Vidur (arrived_at,num_prefill_tokens,num_decode_tokens); "
         "for other files name the format (csv or jsonl) and the columns";
}

TraceSchema trace_schema_for(TraceFormat format, const TraceColumns& columns) {
  TraceSchema s;
  s.format = format;
  switch (format) {
    case TraceFormat::mooncake:
      s.jsonl = true;
      s.arrival = "timestamp", s.input_tokens = "input_length", s.output_tokens = "output_length";
      s.prefix_hashes = "hash_ids";
      s.time_unit = TimeUnit::ms;
      s.row_form = kMooncakeForm;
      break;
    case TraceFormat::azure:
      s.arrival = "TIMESTAMP", s.input_tokens = "ContextTokens", s.output_tokens = "GeneratedTokens";
      s.time_unit = TimeUnit::datetime;
      s.row_form = kAzureForm;
      break;
    case TraceFormat::burstgpt:
      s.arrival = "Timestamp", s.input_tokens = "Request tokens", s.output_tokens = "Response tokens";
      s.time_unit = TimeUnit::s;
      s.row_form = kBurstGptForm;
      break;
    case TraceFormat::vidur:
      s.arrival = "arrived_at", s.input_tokens = "num_prefill_tokens", s.output_tokens = "num_decode_tokens";
      s.time_unit = TimeUnit::s;
      s.row_form = kVidurForm;
      break;
    case TraceFormat::csv:
    case TraceFormat::jsonl: {
      if (columns.arrival.empty() || columns.input_tokens.empty() || columns.output_tokens.empty())
        throw_error("trace format \"%s\" needs the names of its arrival, input-token and output-token columns "
                    "(columns.arrival, columns.input_tokens, columns.output_tokens)",
                    trace_format_name(format));
      s.jsonl = format == TraceFormat::jsonl;
      s.arrival = columns.arrival, s.input_tokens = columns.input_tokens, s.output_tokens = columns.output_tokens;
      s.prefix_hashes = columns.prefix_hashes;
      if (!s.jsonl && !s.prefix_hashes.empty())
        throw_error("trace format \"csv\" cannot hold prefix block ids (columns.prefix_hashes is for jsonl)");
      s.time_unit = columns.time_unit;
      s.rebase_to_first_row = columns.rebase_to_first_row;
      std::string time = std::string("<time in ") + time_unit_name(s.time_unit) + ">";
      if (s.jsonl) {
        s.row_form = "{\"" + s.arrival + "\": " + time + ", \"" + s.input_tokens + "\": <tokens>, \"" +
                     s.output_tokens + "\": <tokens>" +
                     (s.prefix_hashes.empty() ? "" : ", \"" + s.prefix_hashes + "\": [<block ids>]") + "}";
      } else {
        s.row_form = "a header naming " + s.arrival + ", " + s.input_tokens + " and " + s.output_tokens +
                     ", then rows of " + time + ", <tokens>, <tokens>";
      }
      break;
    }
    case TraceFormat::auto_detect:
      throw_error("internal error: no schema for format auto");
  }
  if (s.time_unit == TimeUnit::datetime) s.rebase_to_first_row = true;
  return s;
}

std::string trace_schema_time_form(const TraceSchema& schema) {
  switch (schema.time_unit) {
    case TimeUnit::s: return "a non-negative number of seconds";
    case TimeUnit::ms: return "a non-negative number of milliseconds";
    case TimeUnit::us: return "a non-negative number of microseconds";
    case TimeUnit::ns: return "a non-negative number of nanoseconds";
    case TimeUnit::datetime: return "a date-time like 2023-11-16 18:17:03.9799600, in the years 1970-2199";
  }
  return "?";
}

}  // namespace lynx
