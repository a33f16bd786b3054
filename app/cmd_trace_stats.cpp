// lynxsim trace-stats: reads a trace (any format lynxsim reads, with the same options and transforms as a
// simulation's "workload" object) and prints its size, span, rate, token-length distributions and prefix hit ratio.
// The options are turned into a workload JSON object and parsed by workload_spec_from_json, so the command and the
// simulator accept exactly the same workloads.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "common/error.hpp"
#include "common/json_schema.hpp"
#include "traces/workload_spec.hpp"

namespace lynx {

namespace {
// The workload reader's declaration of a choice the options pass to it (traces/workload_spec.cpp): its names and
// default, for the options' defaults and help.
const ChoiceField& workload_choice(const char* path) {
  const SchemaField* field = schema_find_path(kWorkloadSection, path);
  if (field == nullptr || field->kind != FieldKind::choice || field->choice->default_value == nullptr)
    throw_internal_error("the workload section declares no choice with a default at %s", path);
  return *field->choice;
}
std::string choices_joined(const ChoiceField& field) {
  std::string text;
  for (const char* const* name = field.choices; *name != nullptr; ++name)
    text += (text.empty() ? "" : "|") + std::string(*name);
  return text;
}

struct TraceStatsOptions {
  std::string file, format = workload_choice("format").default_value;
  bool skip_bad_rows = false, keep_failed = false;
  std::string arrival_column, input_column, output_column, hashes_column,
      time_unit = workload_choice("columns.time_unit").default_value;
  bool rebase_to_first_row = false;
  int64_t first_n = 0;
  std::vector<double> time_window_s;
  double time_scale = 0, target_rate_per_s = 0, spread_step_s = 0;
  bool spread_same_timestamp = false;
  int64_t prefix_block_tokens = kMooncakeBlockTokens;
  uint64_t seed = 0;
  bool json = false;
  // Options given on the command line (their values pass to the workload JSON, which validates them).
  std::vector<const CLI::Option*> column_options;
  const CLI::Option *first_n_option = nullptr, *time_scale_option = nullptr, *target_rate_option = nullptr,
                    *spread_step_option = nullptr;
  static bool given(const CLI::Option* option) { return option && option->count() > 0; }
};

nlohmann::json workload_json(const TraceStatsOptions& o) {
  nlohmann::json w = {{"trace", o.file}, {"format", o.format}};
  if (o.skip_bad_rows) w["skip_bad_rows"] = true;
  if (o.keep_failed) w["keep_failed"] = true;
  bool any_column = false;
  for (const CLI::Option* option : o.column_options) any_column = any_column || TraceStatsOptions::given(option);
  if (any_column) {
    nlohmann::json c = {{"arrival", o.arrival_column}, {"input_tokens", o.input_column},
                        {"output_tokens", o.output_column}, {"time_unit", o.time_unit}};
    if (!o.hashes_column.empty()) c["prefix_hashes"] = o.hashes_column;
    if (o.rebase_to_first_row) c["rebase_to_first_row"] = true;
    w["columns"] = c;
  }
  if (TraceStatsOptions::given(o.first_n_option)) w["first_n"] = o.first_n;
  if (!o.time_window_s.empty()) w["time_window_s"] = o.time_window_s;
  if (TraceStatsOptions::given(o.time_scale_option)) w["time_scale"] = o.time_scale;
  if (TraceStatsOptions::given(o.target_rate_option)) w["target_rate_per_s"] = o.target_rate_per_s;
  if (o.spread_same_timestamp) w["spread_same_timestamp"] = true;
  if (TraceStatsOptions::given(o.spread_step_option)) w["spread_step_s"] = o.spread_step_s;
  w["prefix_block_tokens"] = o.prefix_block_tokens;
  return w;
}

nlohmann::json token_json(const TokenStats& t) {
  return {{"mean", t.mean}, {"p50", t.p50}, {"p90", t.p90}, {"p99", t.p99}, {"max", t.max},
          {"share_over_8k", t.share_over_8k}, {"share_over_32k", t.share_over_32k}};
}

void print_tokens(const char* name, const TokenStats& t) {
  std::printf("%-15s %10.1f %9lld %9lld %9lld %9lld %8.1f%% %8.1f%%\n", name, t.mean, static_cast<long long>(t.p50),
              static_cast<long long>(t.p90), static_cast<long long>(t.p99), static_cast<long long>(t.max),
              100 * t.share_over_8k, 100 * t.share_over_32k);
}

void run_trace_stats(const TraceStatsOptions& o) {
  nlohmann::json w = workload_json(o);
  JsonObject object(w, "command line", "$");
  WorkloadSpec spec = workload_spec_from_json(object, "");
  WorkloadBuild build = workload_build_report(spec, o.seed);
  const TraceReadReport& r = build.read;
  TraceStats s = trace_stats_compute(build.requests, spec.prefix_block_tokens);
  for (const auto& message : r.first_bad_rows) std::fprintf(stderr, "lynxsim: skipped: %s\n", message.c_str());
  if (r.bad_rows_skipped > static_cast<int64_t>(r.first_bad_rows.size()))
    std::fprintf(stderr, "lynxsim: skipped %lld bad rows in all\n", static_cast<long long>(r.bad_rows_skipped));

  if (o.json) {
    nlohmann::json j = {{"file", r.path},
                        {"format", trace_format_name(r.format)},
                        {"rows", r.rows},
                        {"bad_rows_skipped", r.bad_rows_skipped},
                        {"failed_rows", r.failed_rows},
                        {"failed_kept", r.failed_kept},
                        {"stopped_early", r.stopped_early},
                        {"requests", s.requests},
                        {"span_s", s.span_s},
                        {"rate_per_s", std::isnan(s.rate_per_s) ? nlohmann::json() : nlohmann::json(s.rate_per_s)},
                        {"input_tokens", token_json(s.input)},
                        {"output_tokens", token_json(s.output)}};
    if (s.has_prefix_blocks) {
      j["prefix_hit_ratio"] = s.prefix_hit_ratio;
      j["prefix_hit_tokens"] = s.prefix_hit_tokens;
      j["prefix_block_tokens"] = spec.prefix_block_tokens;
    }
    j["input_tokens_total"] = s.input_tokens_total;
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  std::printf("file            %s\n", r.path.c_str());
  std::printf("format          %s\n", trace_format_name(r.format));
  std::printf("rows            %lld read, %lld bad skipped, %lld failed (0 output tokens) %s%s\n",
              static_cast<long long>(r.rows), static_cast<long long>(r.bad_rows_skipped),
              static_cast<long long>(r.failed_rows), r.failed_kept ? "kept" : "dropped",
              r.stopped_early ? " (stopped early)" : "");
  std::printf("requests        %lld\n", static_cast<long long>(s.requests));
  std::printf("span_s          %.3f (%.3f to %.3f)\n", s.span_s, s.first_arrival_s, s.last_arrival_s);
  if (std::isnan(s.rate_per_s))
    std::printf("rate_per_s      undefined (span 0: %s)\n",
                s.requests == 1 ? "one request" : "every request arrives at the same time");
  else
    std::printf("rate_per_s      %.4f\n", s.rate_per_s);
  std::printf("%-15s %10s %9s %9s %9s %9s %9s %9s\n", "tokens", "mean", "p50", "p90", "p99", "max", "over_8k",
              "over_32k");
  print_tokens("input_tokens", s.input);
  print_tokens("output_tokens", s.output);
  if (s.has_prefix_blocks)
    std::printf("prefix_hit      %.1f%% of input tokens (infinite cache, %lld-token blocks: %lld of %lld tokens)\n",
                100 * s.prefix_hit_ratio, static_cast<long long>(spec.prefix_block_tokens),
                static_cast<long long>(s.prefix_hit_tokens), static_cast<long long>(s.input_tokens_total));
  else
    std::printf("prefix_hit      n/a (the trace has no prefix block ids)\n");
}
}  // namespace

void add_trace_stats_command(CLI::App& app) {
  auto o = std::make_shared<TraceStatsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "trace-stats", "Rows, span, rate, token lengths (mean, p50, p90, p99, max, share over 8K/32K) and prefix hit "
                     "ratio of a trace");
  cmd->add_option("file", o->file, "Trace file (Mooncake JSONL, Azure/BurstGPT/Vidur CSV, or generic CSV/JSONL); @data/PATH names a file in "
                  "the data folder")
      ->required();
  const ChoiceField& format = workload_choice("format");
  cmd->add_option("--format", o->format, "Trace format: " + choices_joined(format) + " (default " +
                                             format.default_value + ": from the first line)");
  cmd->add_flag("--skip-bad-rows", o->skip_bad_rows, "Skip and count malformed rows instead of stopping");
  cmd->add_flag("--keep-failed", o->keep_failed, "Keep rows with 0 output tokens (failed requests)");
  o->column_options = {
      cmd->add_option("--arrival-column", o->arrival_column, "csv/jsonl formats: the arrival time column"),
      cmd->add_option("--input-column", o->input_column, "csv/jsonl formats: the input-token column"),
      cmd->add_option("--output-column", o->output_column, "csv/jsonl formats: the output-token column"),
      cmd->add_option("--hashes-column", o->hashes_column, "jsonl format: the prefix block id array member"),
      cmd->add_option("--time-unit", o->time_unit,
                      "csv/jsonl formats: " + choices_joined(workload_choice("columns.time_unit")) + " (default " +
                          workload_choice("columns.time_unit").default_value + ")"),
      cmd->add_flag("--rebase-to-first-row", o->rebase_to_first_row,
                    "csv/jsonl formats: count time from the first row")};
  o->first_n_option = cmd->add_option("--first-n", o->first_n, "Keep the first N requests");
  cmd->add_option("--time-window-s", o->time_window_s, "Keep arrivals in [BEGIN, END) s, shifted to start at 0")
      ->expected(2);
  o->time_scale_option = cmd->add_option("--time-scale", o->time_scale, "Multiply arrival times (0.5 = twice as fast)");
  o->target_rate_option =
      cmd->add_option("--target-rate-per-s", o->target_rate_per_s, "Rescale arrival times to this mean rate");
  cmd->add_flag("--spread-same-timestamp", o->spread_same_timestamp,
                "Spread requests sharing a timestamp uniformly over the timestamp step (seeded)");
  o->spread_step_option = cmd->add_option("--spread-step-s", o->spread_step_s, "The timestamp step (default: inferred)");
  cmd->add_option("--prefix-block-tokens", o->prefix_block_tokens, "Tokens per prefix block id (default 512)")
      ->check(CLI::Range(1, 1 << 20));
  cmd->add_option("--seed", o->seed, "Seed of the random transforms (default 0)");
  cmd->add_flag("--json", o->json, "Print the figures as JSON");
  cmd->callback([o] { run_trace_stats(*o); });
}

}  // namespace lynx
