// Measured serving-benchmark runs as users have them on disk, read into one form: what the client sent (requests,
// lengths, concurrency) and what it measured (duration, TTFT, TPOT, ITL). Today's reader takes the result block
// `vllm bench serve` prints, wherever it stands in a text file (a log, or a markdown page that quotes it, as
// GPUStack's performance lab does), with the serving command, the benchmark command and the heading found above it:
//
//   ============ Serving Benchmark Result ============
//   Successful requests:                     500
//   Maximum request concurrency:             4          (only with --max-concurrency)
//   Benchmark duration (s):                  976.29
//   Total input tokens:                      1997942
//   Total generated tokens:                  99790
//   ...
//   Mean TTFT (ms):                          482284.21
//   ...
//   ==================================================
//
// Each "Name (unit):  value" line is kept by its name; the block must carry the fields every replay needs
// (successful requests, duration, total input and generated tokens, mean TTFT) or it is an error naming the file
// and line. The command lines above a block are split into words as a shell would (quotes, backslash-newlines).
#pragma once
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace lynx {

struct ServingBenchRun {
  std::string file;
  int64_t line = 0;            // of the block's first line (1-based)
  std::string heading;         // the nearest markdown heading above the block ("" in a plain log)
  std::string label;           // a "# ..." comment line right above the block, as GPUStack labels its workloads
  std::vector<std::string> serve_command;  // the nearest serving command above (vllm serve, sglang, trtllm-serve)
  std::vector<std::string> bench_command;  // the nearest `vllm bench serve` command above, if any
  std::map<std::string, double> fields;    // every "Name (unit): value" line, by its name as printed
  // A result file's per-request rows (`vllm bench serve --save-detailed`, SGLang's --output-details), in the order
  // the file lists them: prompt and generated lengths, time to first token. Empty when the file has none.
  std::vector<int64_t> input_lens, output_lens;
  std::vector<double> ttfts_ms;
  // When each request was sent, in seconds from the first (AIPerf's per-request records), in the rows' order; empty
  // when the file does not hold send times.
  std::vector<double> send_s;
  double request_rate = INFINITY;  // requests/s the client sent at (infinity: all at once)
  std::string sha256;              // of the file it was read from
  std::string rows_file, rows_sha256;  // a second file holding the per-request rows (AIPerf's records), or ""

  // The fields every replay reads (present in every block read).
  int64_t requests() const;
  double duration_s() const;
  int64_t input_tokens() const;
  int64_t generated_tokens() const;
  double mean_ttft_ms() const;
  // Optional fields: NAN when the block does not print them.
  double field(const std::string& name) const;
  double mean_tpot_ms() const { return field("Mean TPOT (ms)"); }
  double max_concurrency() const { return field("Maximum request concurrency"); }
};

// The first disagreement between a run's per-request rows and its totals (row count against the requests, summed
// lengths against the token totals, the rows' mean TTFT against the mean within 1%), or none: `rows` names the rows
// that disagree as vLLM's detailed result names them ("input_lens", "output_lens", "ttfts"), `text` says how ("24
// rows, 25 requests in the totals").
struct RowsDisagreement {
  const char* rows;
  std::string text;
};
std::optional<RowsDisagreement> serving_rows_disagreement(const ServingBenchRun& run);

// Every result block in `path`, in file order; a file with none is an error, as is a block missing a required field
// or a value that is not a finite non-negative number.
std::vector<ServingBenchRun> serving_bench_read_text(const std::string& path);

// The runs of a saved result file: `vllm bench serve --save-result` JSON (one object: "completed", "duration",
// "total_input_tokens", "total_output_tokens", "mean_ttft_ms", ..., and with --save-detailed "input_lens",
// "output_lens", "ttfts" in seconds), or SGLang bench_serving's JSONL (one such object per line, its per-request rows
// with --output-details). Keys map to the names the printed block uses ("completed" -> "Successful requests", ...).
// A file whose totals disagree with its per-request rows (request count, summed lengths, mean TTFT within 1%) is an
// error naming the file, the line and the key.
std::vector<ServingBenchRun> serving_bench_read_json(const std::string& path);
// Any form: a folder or an AIPerf aggregate (traces/aiperf_export.hpp), a JSON result by the file's first character
// ('{'), else the printed blocks.
std::vector<ServingBenchRun> serving_bench_read(const std::string& path);

// A command line split into words as a POSIX shell splits it (single and double quotes, backslash escapes); the
// text between a `#` that starts a word and the end of the line is a comment.
std::vector<std::string> shell_words(const std::string& text);

// The value of a command-line option (`--name value` or `--name=value`; the last one wins), or "" when absent;
// `present` tells a flag given without a value.
std::string command_option(const std::vector<std::string>& words, const std::string& name, bool* present = nullptr);

}  // namespace lynx
