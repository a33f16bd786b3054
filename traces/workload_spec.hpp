// The workload of a simulation: a production trace (read, then transformed) or a synthetic workload, as the
// "workload" object of a simulate configuration and the trace-stats command describe it. The simulator calls
// workload_spec_from_json once and workload_build once per run.
//
// Its fields are declared once in workload_spec.cpp (kWorkloadSection and the sections under it); the reference,
// docs/config.md (`lynxsim config --schema`), is printed from those declarations. In short: {"trace": "path", reader
// options, transforms} or {"synthetic": {"arrival", "rate_per_s", "count", "input_tokens", "output_tokens"},
// transforms}; unknown fields are errors.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/enum_names.hpp"
#include "common/json_reader.hpp"
#include "traces/request.hpp"
#include "traces/synthetic.hpp"
#include "traces/trace_reader.hpp"
#include "traces/trace_stats.hpp"
#include "traces/transforms.hpp"

namespace lynx {

// A request longer than the model's context: an error, skipped, or its prompt truncated (workload.over_context).
enum class OverContextPolicy { error, skip, truncate };
inline constexpr auto kOverContextNames = enum_names<OverContextPolicy>(
    {{OverContextPolicy::error, "error"}, {OverContextPolicy::skip, "skip"}, {OverContextPolicy::truncate, "truncate"}});
const char* over_context_name(OverContextPolicy policy);

struct WorkloadSpec {
  bool prefix_block_tokens_given = false;  // set in the JSON (the simulator refuses it without a prefix cache)
  OverContextPolicy over_context = OverContextPolicy::error;
  std::string trace_path;          // a trace (resolved path), or empty for a synthetic workload
  TraceReadOptions read;
  bool synthetic = false;
  SyntheticSpec synthetic_spec;
  TraceTransforms transforms;
  int64_t prefix_block_tokens = kMooncakeBlockTokens;
  std::string origin;              // where the spec came from, for messages ("run.json: $.workload")
  int64_t max_concurrency = 0;     // a closed loop of this many clients (0: open loop, each request at its arrival)
};

// The workload's fields (and, through its nested sections, the synthetic workload's and the trace columns'): what
// workload_spec_from_json reads and what `lynxsim config --schema` prints.
extern const SchemaSection kWorkloadSection;

// Parses the "workload" object (binding it to kWorkloadSection); errors name the file and JSON path and the expected form. Relative trace paths
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

// Those notes on stderr: skipped bad rows and dropped failed requests of a trace read (nothing for a clean read).
void workload_read_notes(const TraceReadReport& report);

}  // namespace lynx
