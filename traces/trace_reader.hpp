// Reading production traces into Requests, row by row from a stream (memory holds what the caller keeps, not the
// file). Real traces have quirks, and a replay that silently drops or mis-times requests is worse than one that
// stops, so every row is checked: a malformed row (missing column, not a number, negative or zero length, bad
// date-time, time going backwards) stops the read with "file:line: what: "offending text" (expected form)",
// unless skip_bad_rows is set, in which case it is skipped and counted. An empty file is an error.
//
// Times: Mooncake, BurstGPT and Vidur times are relative to the trace start and kept as they are; Azure's absolute
// date-times become seconds from the first valid row. Times are parsed as exact integer nanoseconds, so the
// seconds are the correctly rounded doubles of the written values.
// Failed rows: a row with 0 output tokens is a failed request (BurstGPT logs failures so); it is counted and
// dropped unless keep_failed is set, in any format.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "traces/request.hpp"
#include "traces/text_parse.hpp"
#include "traces/trace_format.hpp"

namespace lynx {

// Column (CSV) or member (JSONL) names for the generic formats "csv" and "jsonl".
struct TraceColumns {
  std::string arrival;        // arrival time (required)
  std::string input_tokens;   // prompt tokens (required)
  std::string output_tokens;  // generated tokens (required)
  std::string prefix_hashes;  // JSONL only, optional: an array of prefix block ids, as Mooncake's hash_ids
  TimeUnit time_unit = TimeUnit::s;  // unit of the arrival column; `datetime` always counts from the first row
  bool rebase_to_first_row = false;  // numeric times: count from the first valid row instead of from 0
};

struct TraceReadOptions {
  TraceFormat format = TraceFormat::auto_detect;
  bool skip_bad_rows = false;  // skip and count malformed rows instead of stopping at the first
  bool keep_failed = false;    // keep rows with 0 output tokens (failed requests) instead of dropping them
  TraceColumns columns;        // for TraceFormat::csv and TraceFormat::jsonl
  // False: each row's prefix block ids are checked as always but not kept (Request::prefix_block_hashes stays
  // empty), for a caller that reads none of them (a simulation without a prefix cache).
  bool keep_prefix_hashes = true;
};

struct TraceReadReport {
  std::string path;
  TraceFormat format = TraceFormat::auto_detect;  // the format read (detected when auto)
  int64_t rows = 0;              // data rows read (not counting a header or blank lines)
  int64_t bad_rows_skipped = 0;  // with skip_bad_rows
  std::vector<std::string> first_bad_rows;  // the messages of the first few skipped rows
  int64_t failed_rows = 0;       // valid rows with 0 output tokens (dropped unless keep_failed)
  bool failed_kept = false;
  int64_t requests = 0;          // requests handed to the caller
  bool stopped_early = false;    // the caller asked to stop before the end of the file
  uint64_t bytes = 0;            // bytes of the file read
};

// Pulls the requests of `path` one at a time (the reader keeps one line buffer, not the file). The constructor
// opens the file, detects the format and reads a CSV header; next() fills the next valid request, or returns false
// at the end of the file after the checks on the file as a whole (no rows, no valid row). Errors as above.
class TraceRowStream {
 public:
  TraceRowStream(const std::string& path, const TraceReadOptions& options);
  ~TraceRowStream();
  TraceRowStream(const TraceRowStream&) = delete;
  TraceRowStream& operator=(const TraceRowStream&) = delete;

  bool next(Request& out);
  // The caller wants no more requests (report().stopped_early).
  void stop();
  const TraceReadReport& report() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Reads `path` and calls `on_request` with each request in file order (id = its index among the requests handed
// over, arrival_s as described above). `on_request` returns false to stop reading (e.g. past a time window).
// Throws LynxError on a bad row (unless skip_bad_rows), an unknown format, an empty file, or a file that yields
// no request.
TraceReadReport trace_read_each(const std::string& path, const TraceReadOptions& options,
                                const std::function<bool(Request&&)>& on_request);

struct TraceReadResult {
  std::vector<Request> requests;
  TraceReadReport report;
};

// Reads the whole trace into memory.
TraceReadResult trace_read(const std::string& path, const TraceReadOptions& options = {});

}  // namespace lynx
