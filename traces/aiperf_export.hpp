// AIPerf's (ai-dynamo/aiperf, NVIDIA's successor to genai-perf) profile exports read as one measured serving run
// (traces/serving_bench.hpp), for `lynxsim calibrate`. An AIPerf run leaves, in its artifact folder:
//
//   profile_export_aiperf.json   the aggregate: each metric an object {"unit": ..., "avg": ..., "p50": ..., ...}
//                                ("request_count", "benchmark_duration" in sec, "total_isl", "total_osl",
//                                "time_to_first_token" and "inter_token_latency" in ms, ...) and "input_config"
//                                ("loadgen": "concurrency", "request_rate", "request_rate_mode")
//   profile_export.jsonl         one record per request: {"metadata": {"request_start_ns", "benchmark_phase", ...},
//                                "metrics": {"input_sequence_length": {"value", "unit"}, "output_sequence_length",
//                                "time_to_first_token", ...}, "error": null or {...}}
//
// AIPerf's inter_token_latency is per request (request_latency - time_to_first_token) / (output_sequence_length - 1),
// averaged over requests: vLLM's TPOT, and read as it ("Mean TPOT (ms)"). The records, when beside the aggregate
// (profile_export_aiperf.json -> profile_export.jsonl), give each request's lengths, TTFT and send time; only
// successful requests of the profiling phase count, and they must agree with the aggregate (count, summed lengths,
// mean TTFT within 1%; serving_rows_disagreement) or the run is an error naming both files.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "traces/serving_bench.hpp"

namespace lynx {

// Whether a parsed JSON document is an AIPerf aggregate export ("benchmark_duration" and "request_count" objects).
bool aiperf_is_aggregate(const nlohmann::json& document);
// Whether it is one of AIPerf's per-request records ("metadata" and "metrics" objects).
bool aiperf_is_record(const nlohmann::json& document);

// The run of an AIPerf export: `path` is the aggregate JSON or the artifact folder that holds it. The records file
// beside it is read when present.
ServingBenchRun aiperf_read(const std::string& path);

}  // namespace lynx
