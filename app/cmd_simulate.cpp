// lynxsim simulate: one configuration (cluster, model, format, workload) -> the resolved configuration
// (config.json, runnable as is), the per-request CSV and the summary JSON, and optionally a timeline (--timeline);
// progress on stderr when it is a terminal (--progress / --no-progress).
#include <sys/resource.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <tuple>

#include "app/commands.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "common/output_paths.hpp"
#include "experiments/config_overrides.hpp"
#include "experiments/run_outputs.hpp"
#include "sim/config/run_config.hpp"
#include "sim/config/resolved_config.hpp"
#include "sim/engine/simgrid_options.hpp"

namespace lynx {

namespace {
struct SimulateOptions {
  std::string config;
  std::string out;
  std::string timeline;
  std::vector<std::string> sets;
  std::vector<std::string> simgrid_cfg;
  std::string flow_log;
  bool quiet = false, progress = false, no_progress = false, timeline_per_request = false;
};

void run_simulate(const SimulateOptions& o) {
  // The output rule (common/output_paths.hpp): first with what the command line names, then, once the
  // configuration is read, with every input file it names; nothing is written before both pass.
  OutputPlan plan;
  plan.input_file("--config", o.config);
  plan.input_shared(OutputPlan::kAllShared);  // the data folder, the catalogs, cost tables and accuracy files
  plan.output_folder("--out", o.out, run_folder_files());
  if (!o.timeline.empty()) plan.output_file("--timeline", o.timeline);
  if (!o.flow_log.empty()) plan.output_file("--flow-log", o.flow_log);
  plan.check();
  simgrid_options_check(o.simgrid_cfg, "--cfg");
  const std::vector<ConfigOverride> overrides = config_overrides_parse(o.sets);
  nlohmann::json raw = json_parse_file(o.config, true);  // its input files, before any is read
  sim_config_check_kind(raw, o.config);
  if (raw.is_object()) config_overrides_apply(raw, overrides);
  output_plan_add_config_inputs(plan, "--config " + o.config, raw, std::filesystem::path(o.config).parent_path().string());
  plan.check();
  const ResolvedConfig resolved = resolve_config_file_with_overrides(o.config, overrides);
  std::error_code error;
  const bool created_out = !std::filesystem::exists(o.out, error);
  const bool timeline_existed = !o.timeline.empty() && std::filesystem::exists(o.timeline, error);
  RunExtras extras;
  extras.timeline_path = o.timeline;
  extras.timeline_per_request = o.timeline_per_request;
  extras.flow_log_path = o.flow_log;
  extras.simgrid_cfg = o.simgrid_cfg;
  std::optional<ProgressMeter> meter;
  if (o.progress || (!o.no_progress && !o.quiet && ::isatty(STDERR_FILENO) != 0)) extras.progress = &meter.emplace(stderr);
  // An error the run finds later (cross-field and workload checks) names the override that caused it too.
  RunOutcome outcome = [&] {
    try {
      return run_config(resolved, o.out, extras);
    } catch (const LynxError& e) {
      throw LynxError(config_override_blame(e.what(), overrides));
    }
  }();
  if (meter) meter->finish();
  const nlohmann::json& m = outcome.summary["metrics"];
  const long long skipped = m.value("over_context_skipped", 0LL), truncated = m.value("over_context_truncated", 0LL);
  if (outcome.requests == 0) {
    if (created_out) std::filesystem::remove_all(o.out, error);  // made by this command for a run of nothing
    if (!o.timeline.empty() && !timeline_existed) std::filesystem::remove(o.timeline, error);
    throw_error("%s: every one of the workload's %lld requests was skipped (workload.over_context: skip, the "
                "model's context is shorter than each): nothing was simulated",
                o.config.c_str(), skipped);
  }
  if (!o.quiet) {
    std::printf("%s: %zu requests, %s, %s\n", printable(o.config).c_str(), outcome.requests,
                printable(outcome.summary["config"]["model"].get<std::string>()).c_str(),
                printable(outcome.summary["config"]["format"].get<std::string>()).c_str());
    if (skipped > 0 || truncated > 0)
      std::printf("  over the model's context: %lld requests skipped, %lld truncated (workload.over_context)\n",
                  skipped, truncated);
    if (!o.sets.empty()) {
      std::string sets;
      for (const std::string& s : o.sets) sets += (sets.empty() ? "--set " : " --set ") + s;
      std::printf("  overrides: %s\n", printable(sets).c_str());
    }
    std::printf("  ttft         mean %10.2f ms  p50 %10.2f  p90 %10.2f  p99 %10.2f\n", m["mean_ttft_ms"].get<double>(),
                m["median_ttft_ms"].get<double>(), m["p90_ttft_ms"].get<double>(), m["p99_ttft_ms"].get<double>());
    // A run that speculates (a Lynx format, or one among the adaptive policy's candidates) has three first-token
    // times: the verified one above, the first token verification keeps, the first (speculative) one.
    const nlohmann::json& sources = outcome.summary["sources"];
    const bool speculates = sources.contains("acceptance") && sources["acceptance"] != "not used (no speculation)";
    if (speculates)
      std::printf("  ttft_correct mean %10.2f ms  p50 %10.2f  p90 %10.2f  p99 %10.2f\n",
                  m["mean_ttft_correct_ms"].get<double>(), m["median_ttft_correct_ms"].get<double>(),
                  m["p90_ttft_correct_ms"].get<double>(), m["p99_ttft_correct_ms"].get<double>());
    std::printf("  ttft_spec    mean %10.2f ms  p50 %10.2f  p90 %10.2f  p99 %10.2f\n",
                m["mean_ttft_spec_ms"].get<double>(), m["median_ttft_spec_ms"].get<double>(),
                m["p90_ttft_spec_ms"].get<double>(), m["p99_ttft_spec_ms"].get<double>());
    if (speculates) {
      std::printf("  acceptance: %s\n", printable(sources["acceptance"].get<std::string>()).c_str());
      const long long extrapolated = m.value("acceptance_extrapolated_requests", 0LL);
      if (extrapolated > 0)
        std::printf("  acceptance extrapolated for %lld of %zu requests (prompt lengths outside the measured range)\n",
                    extrapolated, outcome.requests);
    }
    if (m.contains("format_requests") && m["format_requests"].is_object()) {
      std::string chosen;
      for (const auto& [format, count] : m["format_requests"].items())
        chosen += (chosen.empty() ? "" : ", ") + format + " " + std::to_string(count.get<long long>());
      std::printf("  formats chosen (transfer.format_policy adaptive): %s\n", printable(chosen).c_str());
    }
    const double tpot = m["mean_tpot_ms"].get<double>();
    char tpot_text[32] = "n/a";  // every request produced a single token
    if (!std::isnan(tpot)) std::snprintf(tpot_text, sizeof tpot_text, "%.2f", tpot);
    std::printf("  tpot         mean %10s ms   e2el mean %10.2f ms   throughput %.3f req/s\n", tpot_text,
                m["mean_e2el_ms"].get<double>(), m["request_throughput"].get<double>());
    // A calibrated profile's held-out error beside the metrics it measured (summary.json: sources.serving_profile).
    const nlohmann::json& profile_sources = outcome.summary["sources"];
    if (profile_sources.contains("serving_profile")) {
      const nlohmann::json& e = profile_sources["serving_profile"]["held_out_error"];
      auto pct = [&e](const char* key) {
        return e.is_object() && e.contains(key) && e[key].is_number() ? e[key].get<double>() : NAN;
      };
      if (e.is_object()) {
        std::printf("  serving profile %s, held out over %d folds: mean TTFT within %.1f%% on 90%% of runs (MAPE "
                    "%.1f%%), duration MAPE %.1f%%, mean TPOT MAPE %.1f%%\n",
                    printable(profile_sources["serving_profile"]["file"].get<std::string>()).c_str(),
                    e.value("folds", 0), pct("ttft_p90_error_percent"), pct("ttft_mape_percent"),
                    pct("duration_mape_percent"), pct("tpot_mape_percent"));
        // Each checked metric with the band that held 90% of the held-out runs.
        const nlohmann::json bands =
            profile_sources["serving_profile"].value("bands_90_percent_of_held_out_runs", nlohmann::json::object());
        std::string line;
        const std::tuple<const char*, const char*, const char*> shown[] = {
            {"mean_ttft_ms", "mean TTFT", "ms"}, {"mean_tpot_ms", "mean TPOT", "ms"}, {"duration_s", "duration", "s"}};
        for (const auto& [key, name, unit] : shown) {
          if (!bands.contains(key)) continue;
          char buf[128];
          std::snprintf(buf, sizeof buf, "%s%s %.2f %s +-%.1f%%", line.empty() ? "" : ", ", name,
                        bands[key]["value"].get<double>(), unit, bands[key]["within_percent"].get<double>());
          line += buf;
        }
        if (!line.empty()) std::printf("  %s (90%% of held-out runs)\n", line.c_str());
      } else
        std::printf("  serving profile %s: fitted without a held-out check (calibrate --folds 0): no error band\n",
                    printable(profile_sources["serving_profile"]["file"].get<std::string>()).c_str());
    } else if (profile_sources.contains("serving_terms")) {
      const nlohmann::json& t = profile_sources["serving_terms"];
      const nlohmann::json& e = t["held_out_error"];
      if (e.is_object())
        std::printf("  serving terms: %s's built-in, checked on GPUStack's H100 runs (%s): mean TTFT MAPE %.1f%%, "
                    "duration %.1f%%, mean TPOT %.1f%% held out; calibrate your deployment for an error band of "
                    "its own\n",
                    printable(t["engine"].get<std::string>()).c_str(), printable(t["backed_by"].get<std::string>()).c_str(),
                    e.value("ttft_mape_percent", NAN), e.value("duration_mape_percent", NAN),
                    e.value("tpot_mape_percent", NAN));
    }
    std::printf("  results in %s/summary.json and %s/requests.csv; configuration as run in %s/config.json\n",
                o.out.c_str(), o.out.c_str(), o.out.c_str());
    if (!o.timeline.empty()) std::printf("  timeline in %s (open it in ui.perfetto.dev)\n", o.timeline.c_str());
  }
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  std::fprintf(stderr, "simulated %zu requests in %.3f s wall (%.0f requests/s), peak memory %.0f MB\n",
               outcome.requests, outcome.wall_s, static_cast<double>(outcome.requests) / outcome.wall_s,
               static_cast<double>(usage.ru_maxrss) / 1024.0);
}
}  // namespace

void add_simulate_command(CLI::App& app) {
  auto options = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand("simulate", "Simulate one configuration; write config.json (as run), requests.csv and summary.json");
  cmd->add_option("--config", options->config, "Simulation configuration (JSON)")->required();
  cmd->add_option("--out", options->out, "Output directory")->required();
  cmd->add_option("--set", options->sets,
                  "Override a field: PATH=VALUE, PATH dotted as in sweep axes (cluster.network.nic_gbps=25, "
                  "format=int8-g64); VALUE is JSON when it parses, else a string; null restores the default. "
                  "Repeatable; reference: docs/config.md")
      ->allow_extra_args(false);
  cmd->add_flag("--quiet", options->quiet, "Print nothing but diagnostics");
  CLI::Option* timeline = cmd->add_option(
      "--timeline", options->timeline,
      "Also write the run's timeline, a Chrome trace-event JSON file (open it in ui.perfetto.dev)");
  cmd->add_flag("--timeline-per-request", options->timeline_per_request,
                "The timeline's tracks: one process per request (its prefill, stream(s) and decode rows) instead of "
                "one per instance; for small runs")
      ->needs(timeline);
  cmd->add_option("--cfg", options->simgrid_cfg,
                  "A SimGrid configuration item ITEM:VALUE (network/optim:Lazy|Full, "
                  "network/maxmin-selective-update, maxmin/precision, surf/precision); repeatable; items of the "
                  "network model are refused (docs/benchmarks.md)")
      ->allow_extra_args(false);
  cmd->add_option("--flow-log", options->flow_log,
                  "Also write every network flow as it starts (binary; the speed benchmark's replay reads it: "
                  "docs/benchmarks.md)");
  CLI::Option* progress =
      cmd->add_flag("--progress", options->progress, "Show progress on stderr even when it is not a terminal");
  cmd->add_flag("--no-progress", options->no_progress, "Never show progress (default: shown on a terminal)")
      ->excludes(progress);
  cmd->callback([options] { run_simulate(*options); });
}

}  // namespace lynx
