#include "sim/config/run_config.hpp"

#include <algorithm>
#include <filesystem>
#include <memory>

#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "sim/network/cross_traffic.hpp"
#include "common/json_reader.hpp"
#include "common/data_manifest.hpp"
#include "sim/config/input_checks.hpp"
#include "sim/output/run_files.hpp"
#include "sim/config/simulation_setup.hpp"
#include "sim/output/timeline.hpp"
#include "traces/workload_spec.hpp"
#include "traces/workload_stream.hpp"

namespace lynx {

namespace fs = std::filesystem;

namespace {
std::string describe_workload(const WorkloadSpec& spec) {
  if (!spec.trace_path.empty()) return spec.trace_path;
  return "synthetic (see workload.synthetic)";
}

// The transforms the workload applies, in the order they run (traces/transforms.hpp); [] when none.
nlohmann::json transforms_applied(const WorkloadSpec& spec) {
  const TraceTransforms& t = spec.transforms;
  nlohmann::json applied = nlohmann::json::array();
  if (t.has_time_window) applied.push_back({{"time_window_s", {t.window_begin_s, t.window_end_s}}});
  if (t.first_n > 0) applied.push_back({{"first_n", t.first_n}});
  if (t.spread_same_timestamp)
    applied.push_back({{"spread_same_timestamp",
                        t.spread_step_s > 0 ? nlohmann::json{{"step_s", t.spread_step_s}}
                                            : nlohmann::json{{"step_s", "inferred from the timestamps"}}}});
  if (t.time_scale != 1) applied.push_back({{"time_scale", t.time_scale}});
  if (t.target_rate_per_s > 0) applied.push_back({{"target_rate_per_s", t.target_rate_per_s}});
  return applied;
}

// The summary's "workload": what was replayed or generated, with the hash of every file read.
nlohmann::json workload_record(const WorkloadSpec& spec, const nlohmann::json& workload_json) {
  nlohmann::json w;
  if (!spec.trace_path.empty()) {
    w["trace"] = spec.trace_path;
    w["sha256"] = data_file_sha256(spec.trace_path);  // not read again if checked against the manifest
    w["format"] = trace_format_name(spec.read.format);
    w["skip_bad_rows"] = spec.read.skip_bad_rows;
    w["keep_failed"] = spec.read.keep_failed;
  } else {
    w["synthetic"] = workload_json.at("synthetic");
    for (const char* key : {"input_tokens", "output_tokens"}) {
      const nlohmann::json& lengths = w["synthetic"][key];
      if (lengths.is_object() && lengths.contains("empirical"))
        w["synthetic"][key]["empirical_sha256"] = data_file_sha256(lengths["empirical"].get<std::string>());
    }
  }
  w["transforms"] = transforms_applied(spec);
  w["over_context"] = over_context_name(spec.over_context);
  return w;
}

}  // namespace

RunOutcome run_config(const ResolvedConfig& resolved, const std::string& out_dir, const RunExtras& extras) {
  const SimConfig& config = resolved.config;
  JsonObject workload(config.workload, config.origin, "$.workload");
  WorkloadSpec spec = workload_spec_from_json(workload, config.base_dir);
  if (spec.prefix_block_tokens_given && !config.prefill.prefix_cache)
    workload.fail("prefix_block_tokens", "no prefix_block_tokens without \"cluster.prefill.prefix_cache\": true (it "
                                         "would be ignored)");
  if (config.prefill.prefix_cache && spec.synthetic)
    throw_error("%s: $.cluster.prefill.prefix_cache: true, but a synthetic workload carries no prefix block ids (a "
                "Mooncake trace's hash_ids, or a jsonl trace's columns.prefix_hashes): the cache would never hit",
                config.origin.c_str());
  if (config.router == RouterPolicy::prefix_aware && !config.prefill.prefix_cache)
    throw_error("%s: $.cluster.router: \"prefix-aware\" routes by the prefill instances' cached prefix blocks and "
                "needs \"cluster.prefill.prefix_cache\": true (without it every instance holds none: least-loaded)",
                config.origin.c_str());
  // Only a prefix cache reads the prompts' prefix block ids (the prefix-aware router needs one, above): without it
  // the trace's ids are checked but not kept.
  spec.read.keep_prefix_hashes = config.prefill.prefix_cache;
  // The workload is read as it is needed (bounded memory for any length), unless over_context "skip" or "truncate"
  // must renumber the requests first.
  std::function<bool(Request&)> stream = spec.over_context == OverContextPolicy::error ? workload_stream(spec, config.seed) : nullptr;
  SimulationInputs inputs = simulation_inputs(config, stream ? std::vector<Request>{} : workload_build(spec, config.seed));
  inputs.request_source = std::move(stream);
  const std::string source = describe_workload(spec);
  inputs.workload_source = source;
  inputs.workload_record = workload_record(spec, resolved.json.at("workload"));
  inputs.prefix_block_tokens = spec.prefix_block_tokens;
  inputs.max_concurrency = spec.max_concurrency;
  inputs.flow_log_path = extras.flow_log_path;
  inputs.simgrid_cfg = extras.simgrid_cfg;
  apply_over_context(inputs, spec.over_context);
  // Cross traffic's background work, estimated before anything is written (sim/network/cross_traffic.hpp): one
  // more pass over a streamed workload, only when a link has on-off or Poisson traffic.
  if (cross_traffic_events_per_s(config.network) > 0) {
    double span_s = 0;
    if (inputs.request_source) {
      span_s = workload_span_s(spec, config.seed);
    } else if (!inputs.requests.empty()) {
      double first = inputs.requests.front().arrival_s, last = first;
      for (const Request& r : inputs.requests) first = std::min(first, r.arrival_s), last = std::max(last, r.arrival_s);
      span_s = last - first;
    }
    cross_traffic_check_cost(config.network, span_s, config.origin);
  }

  std::error_code error;
  const bool existed = fs::exists(out_dir, error);
  fs::create_directories(out_dir, error);
  if (error) throw_error("%s: cannot create directory: %s", out_dir.c_str(), error.message().c_str());
  fs::remove(fs::path(out_dir) / "summary.json", error);
  if (error) throw_error("%s/summary.json: cannot remove: %s", out_dir.c_str(), error.message().c_str());
  SimulationResult result;
  RunOutcome outcome;
  try {
    write_file_atomic(out_dir + "/config.json", resolved.json.dump(2) + "\n");
    std::unique_ptr<TimelineWriter> timeline;  // an uncommitted timeline removes its file when dropped
    if (!extras.timeline_path.empty())
      timeline = std::make_unique<TimelineWriter>(extras.timeline_path, config, extras.timeline_per_request);
    RecordSink watch;
    if (timeline || extras.progress)
      watch = [&](const RequestRecord& r) {
        if (extras.progress != nullptr) extras.progress->add(r);
        if (timeline) timeline->add(r);
      };
    if (extras.progress != nullptr)
      extras.progress->start(inputs.request_source ? static_cast<uint64_t>(workload_count(spec, config.seed))
                                                  : inputs.requests.size());
    outcome.summary = simulate_to_files(out_dir, inputs, source, &result, watch);
    if (timeline) timeline->commit();
  } catch (...) {
    if (!existed) fs::remove_all(out_dir, error);  // a failed run leaves nothing behind
    throw;
  }
  outcome.wall_s = result.wall_s;
  outcome.requests = result.requests;
  return outcome;
}

}  // namespace lynx
