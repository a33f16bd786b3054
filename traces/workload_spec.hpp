// The workload of a simulation: a production trace (read, then transformed) or a synthetic workload, as the
// "workload" object of a simulate configuration and the trace-stats command describe it. The simulator calls
// workload_spec_from_json once and workload_build once per run.
//
// JSON (every field but "trace" or "synthetic" optional; unknown fields are errors):
//   {"trace": "path",                      relative to the configuration file's directory
//    "format": "auto",                     auto|mooncake|azure|burstgpt|vidur|csv|jsonl
//    "skip_bad_rows": false,               skip and count malformed rows instead of stopping
//    "keep_failed": false,                 keep rows with 0 output tokens (failed requests)
//    "columns": {"arrival": "t", "input_tokens": "in", "output_tokens": "out",     csv and jsonl formats only
//                "prefix_hashes": "blocks", "time_unit": "s", "rebase_to_first_row": false},
//    "time_window_s": [begin, end],        keep arrivals in [begin, end), shifted to start at 0
//    "first_n": N,                         keep the first N requests
//    "spread_same_timestamp": false,       spread requests sharing a timestamp over the step (transforms.hpp)
//    "spread_step_s": 3,                   the step, when not inferred
//    "time_scale": 1,                      multiply arrival times (0.5 = twice as fast)
//    "target_rate_per_s": r,               or rescale to this mean rate (not with time_scale)
//    "prefix_block_tokens": 512,           tokens per prefix block id (Mooncake: 512)
//    "over_context": "error"}              a request longer than the model's context: an error, or "skip" it, or
//                                          "truncate" its prompt (the summary counts both)
// or
//   {"synthetic": {"arrival": "poisson",   poisson|gamma
//                  "rate_per_s": r, "cv": c (gamma only, required there), "count": n,
//                  "input_tokens": {"fixed": n} | {"uniform": [lo, hi]} | {"empirical": "trace path", "format": ...,
//                                   "skip_bad_rows": ..., "keep_failed": ..., "columns": {...}},
//                  "output_tokens": {...same...}},
//    plus any of the transforms above}
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/json_reader.hpp"
#include "traces/request.hpp"
#include "traces/synthetic.hpp"
#include "traces/trace_reader.hpp"
#include "traces/trace_stats.hpp"
#include "traces/transforms.hpp"

namespace lynx {

struct WorkloadSpec {
  bool prefix_block_tokens_given = false;  // set in the JSON (the simulator refuses it without a prefix cache)
  std::string over_context = "error";      // a request longer than the model's context: "error" | "skip" | "truncate"
  std::string trace_path;          // a trace (resolved path), or empty for a synthetic workload
  TraceReadOptions read;
  bool synthetic = false;
  SyntheticSpec synthetic_spec;
  TraceTransforms transforms;
  int64_t prefix_block_tokens = kMooncakeBlockTokens;
  std::string origin;              // where the spec came from, for messages ("run.json: $.workload")
};

// Parses the "workload" object; errors name the file and JSON path and the expected form. Relative trace paths
// are resolved against base_dir; a trace that cannot be opened is reported here, with its JSON path.
WorkloadSpec workload_spec_from_json(JsonObject& workload, const std::string& base_dir);

struct WorkloadBuild {
  std::vector<Request> requests;  // sorted by arrival, ids 0..n-1
  TraceReadReport read;           // for a trace: rows, bad rows skipped, failed rows
};

// Builds the request list, deterministic for a given seed. Throws LynxError on a bad trace or an empty result.
WorkloadBuild workload_build_report(const WorkloadSpec& spec, uint64_t seed);

// The same, returning the requests only; skipped bad rows and dropped failed rows are noted on stderr.
std::vector<Request> workload_build(const WorkloadSpec& spec, uint64_t seed);

}  // namespace lynx
