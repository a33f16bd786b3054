// Internal to lynx_traces: each trace format as a schema, i.e. which columns (CSV) or members (JSONL) hold the
// arrival time, the input and output tokens and the prefix block ids, the time unit, and the row form quoted in
// error messages. The readers of all formats share one row-checking path through it.
#pragma once
#include <string>

#include "traces/trace_reader.hpp"

namespace lynx {

struct TraceSchema {
  TraceFormat format = TraceFormat::auto_detect;
  bool jsonl = false;
  std::string arrival, input_tokens, output_tokens, prefix_hashes;  // prefix_hashes may be empty
  TimeUnit time_unit = TimeUnit::s;
  bool rebase_to_first_row = false;
  std::string row_form;  // "expected ..." text for structural errors
};

// The schema of `format` (not auto_detect); for csv and jsonl, from `columns` (throws LynxError if a required
// name is missing).
TraceSchema trace_schema_for(TraceFormat format, const TraceColumns& columns);

// The expected form of each field, for field errors.
std::string trace_schema_time_form(const TraceSchema& schema);

}  // namespace lynx
