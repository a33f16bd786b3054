// The production trace formats lynxsim reads, and how each maps onto a Request. Detection looks at the first
// line only: a JSON object with Mooncake's members, or a CSV header naming a known format's columns.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "common/enum_names.hpp"

namespace lynx {

enum class TraceFormat {
  auto_detect,  // "auto": decided from the first line
  mooncake,     // JSONL: timestamp (ms from trace start), input_length, output_length, hash_ids (512-token blocks)
  azure,        // CSV (Azure LLM inference 2023 and 2024): TIMESTAMP (absolute date-time), ContextTokens, GeneratedTokens
  burstgpt,     // CSV: Timestamp (s), Model, Request tokens, Response tokens, Total tokens, Log Type
  vidur,        // CSV: arrived_at (s), num_prefill_tokens, num_decode_tokens (other columns ignored)
  csv,          // CSV with a header, columns named by TraceColumns
  jsonl,        // one JSON object a line, members named by TraceColumns
};

// The formats' names (also the choices of the "format" field of a workload).
inline constexpr auto kTraceFormatNames = enum_names<TraceFormat>(
    {{TraceFormat::auto_detect, "auto"}, {TraceFormat::mooncake, "mooncake"}, {TraceFormat::azure, "azure"},
     {TraceFormat::burstgpt, "burstgpt"}, {TraceFormat::vidur, "vidur"}, {TraceFormat::csv, "csv"},
     {TraceFormat::jsonl, "jsonl"}});

const char* trace_format_name(TraceFormat format);
// A format's name; throws LynxError listing them.
TraceFormat trace_format_parse(const std::string& name);

// The format a file's first non-blank line announces: a JSON object with Mooncake's timestamp, input_length and
// output_length; or a CSV header naming Azure's, BurstGPT's or Vidur's columns. auto_detect when none matches.
TraceFormat trace_format_detect(std::string_view first_line);

// What the recognised formats look like, for the message of an unknown format.
std::string trace_format_known_forms();

}  // namespace lynx
