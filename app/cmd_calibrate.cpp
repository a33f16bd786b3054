// lynxsim calibrate DEPLOYMENT RUN...: fits a deployment's engine-level serving terms (host time per step and per
// running request, the front end's per-request latency and its one-at-a-time part, and optionally one kernel-time
// factor) on the benchmark results a user already has, and writes a serving profile that a configuration names
// ("serving_profile"). Each run is replayed as its client sent it: every request at once, C in flight
// (--max-concurrency), or at a rate replayed at each request's recorded send time (AIPerf's records), with the
// file's own per-request lengths when it has them (vLLM's --save-detailed, SGLang's --output-details, AIPerf's
// records), else every request at the mean lengths. The fit is sim/validation/serving_validation.hpp's
// (bounded grids, coordinate by coordinate); k-fold cross-validation (runs dealt round-robin into K folds, each fold
// predicted by the terms fitted on the others) measures the held-out error the profile carries, and how far each term
// moves between folds; the final terms are fitted on every run. Runs on a disaggregated deployment also fit the P/D
// handoff; several deployments (a configuration among the RUN arguments starts the next) share one profile's terms.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>

#include <nlohmann/json.hpp>

#include "app/commands.hpp"
#include "common/atomic_file.hpp"
#include "common/error.hpp"
#include "common/json_reader.hpp"
#include "common/output_paths.hpp"
#include "common/sha256.hpp"
#include "sim/config/sim_config.hpp"
#include "sim/validation/serving_cases.hpp"
#include "sim/validation/serving_validation.hpp"
#include "traces/serving_bench.hpp"

namespace lynx {

namespace {

struct CalibrateOptions {
  std::vector<std::string> inputs;  // DEPLOYMENT RUN..., or with --from-commands RUN... (files or folders of pages)
  std::string from_commands;        // an engine: each run's deployment from the serving command printed above it
  std::string split = "k-fold";     // or "declared": the runs' own training and check marks (GPUStack's pages)
  std::string out_dir;
  int folds = -1;  // -1: min(5, runs); 0: no held-out check
  bool fit_kernel = false;           // one kernel-time factor
  bool fit_kernel_families = false;  // one factor per kernel family
  std::vector<std::string> fix;      // TERM=VALUE: terms measured elsewhere, kept out of the fit
  KernelFit kernel_fit() const {
    return fit_kernel_families ? KernelFit::families : fit_kernel ? KernelFit::one : KernelFit::none;
  }
  bool quiet = false;
};

// A deployment as a replay base: the configuration file read (a workload, if any, is replaced per run), checked by
// loading it once with a stand-in workload so that a bad deployment is one error before any run.
struct Deployment {
  std::string path;
  nlohmann::json config;
  double pd_notify_base_us = NAN;  // disaggregated: its connector's notify_us, which the P/D handoff term adds to
};

Deployment read_deployment(const std::string& path) {
  Deployment d{path, json_parse_file(path, true)};
  if (!d.config.is_object()) throw_error("%s: expected a lynxsim configuration (a JSON object)", path.c_str());
  nlohmann::json probe = d.config;
  probe["workload"] = {{"synthetic",
                        {{"arrival", "at-once"}, {"count", 1}, {"input_tokens", {{"fixed", 16}}},
                         {"output_tokens", {{"fixed", 2}}}}}};
  const SimConfig config = sim_config_from_json(probe, path, std::filesystem::path(path).parent_path().string());
  if (config.serving == ServingMode::disaggregated) d.pd_notify_base_us = config.transfer.cost.notify_us;
  d.config.erase("workload");
  return d;
}

// The deployments' paths, or their files' sha256.
nlohmann::json deployment_list(const std::vector<Deployment>& deployments, bool sha256) {
  nlohmann::json list = nlohmann::json::array();
  for (const Deployment& d : deployments) list.push_back(sha256 ? sha256_file(d.path) : d.path);
  return list;
}

// Whether a RUN argument is a lynxsim configuration (a deployment for the runs after it) rather than a result file:
// a JSON object with "model" and "cluster" that no result format has (a file without the word "cluster" is not
// parsed here: result files can be large, and serving_bench_read parses them).
bool is_deployment_file(const std::string& path) {
  if (std::filesystem::is_directory(path)) return false;
  const std::string text = read_file(path);
  if (text.find("\"cluster\"") == std::string::npos) return false;
  const nlohmann::json o = nlohmann::json::parse(text, nullptr, false, true);
  return !o.is_discarded() && o.is_object() && o.contains("model") && o.contains("cluster") && !o.contains("completed");
}

// The trace of a run's own requests (Mooncake's JSONL form, traces/trace_schema.cpp): every one at time 0, or with
// `timed` at its recorded send time (ms to the nanosecond, rows in time order).
std::string run_trace(const ServingBenchRun& run, bool timed) {
  std::vector<size_t> order(run.input_lens.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  if (timed) std::stable_sort(order.begin(), order.end(), [&run](size_t a, size_t b) { return run.send_s[a] < run.send_s[b]; });
  std::string text;
  char at[32] = "0";
  for (size_t i : order) {
    if (timed) std::snprintf(at, sizeof at, "%.6f", run.send_s[i] * 1e3);
    text += std::string("{\"timestamp\": ") + at + ", \"input_length\": " +
            std::to_string(std::max<int64_t>(1, run.input_lens[i])) + ", \"output_length\": " +
            std::to_string(std::max<int64_t>(1, run.output_lens[i])) + ", \"hash_ids\": []}\n";
  }
  return text;
}

struct Metrics {
  double duration = 0, ttft = 0, tpot = 0;
  int n_duration = 0, n_ttft = 0, n_tpot = 0;
  std::vector<double> duration_errors, ttft_errors, tpot_errors;
  void add(const ServingErrors& e) {
    if (!std::isnan(e.duration)) duration += e.duration, ++n_duration, duration_errors.push_back(e.duration);
    if (!std::isnan(e.ttft)) ttft += e.ttft, ++n_ttft, ttft_errors.push_back(e.ttft);
    if (!std::isnan(e.tpot)) tpot += e.tpot, ++n_tpot, tpot_errors.push_back(e.tpot);
  }
};

double percent(double sum, int n) { return n > 0 ? 100 * sum / n : NAN; }

double p90(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(std::ceil(0.9 * static_cast<double>(v.size()))) - 1];
}

nlohmann::json number_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

// The terms as a profile holds them; pd_handoff_ms only when fitted (a run on a disaggregated deployment), the
// kernel family factors only when fitted (--fit-kernel-families).
nlohmann::json terms_json(const ServingTerms& t, bool families) {
  nlohmann::json j = {{"host_step_ms", t.host_step_ms},
                      {"host_per_request_us", t.host_per_request_us},
                      {"frontend_ms", t.frontend_ms},
                      {"frontend_serial_ms", t.frontend_serial_ms},
                      {"kernel_time_factor", t.kernel_time_factor}};
  if (!std::isnan(t.pd_handoff_ms)) j["pd_handoff_ms"] = number_or_null(t.pd_handoff_ms);
  if (families) j["kernel_family_factors"] = kernel_family_json(t.family);
  return j;
}

// The runs of --from-commands: every result block of the files (a folder: every GPUStack-style page in it) whose
// serving command is of `engine`, each replayed as validate's serving group replays it (sim/validation/serving_cases.hpp).
std::vector<ServingCase> cases_from_commands(const std::vector<std::string>& inputs, const std::string& engine) {
  std::vector<ServingCase> all, kept;
  for (const std::string& path : inputs) {
    if (std::filesystem::is_directory(path)) {
      for (ServingCase& c : gpustack_serving_cases(path)) all.push_back(c);
    } else {
      for (const ServingBenchRun& run : serving_bench_read(path)) all.push_back(serving_case_of(run));
    }
  }
  for (ServingCase& c : all) {
    if (c.engine != engine) continue;
    if (!c.not_replayed.empty()) {
      std::fprintf(stderr, "calibrate: %s not replayed: %s\n", c.name().c_str(), c.not_replayed.c_str());
      continue;
    }
    kept.push_back(c);
  }
  if (kept.empty()) throw_error("--from-commands %s: no run of that engine to replay in the inputs", engine.c_str());
  return kept;
}

void run_calibrate(const CalibrateOptions& o) {
  std::map<std::string, double> fixed;
  for (const std::string& f : o.fix) {
    const size_t eq = f.find('=');
    char* end = nullptr;
    const double v = eq == std::string::npos ? NAN : std::strtod(f.c_str() + eq + 1, &end);
    if (eq == std::string::npos || eq == 0 || end == f.c_str() + eq + 1 || *end != '\0' || !std::isfinite(v) || v < 0)
      throw_error("--fix %s: expected TERM=VALUE with a finite VALUE >= 0 (e.g. frontend_ms=20)", f.c_str());
    fixed[f.substr(0, eq)] = v;
  }
  // checked here, before any file is read; the P/D handoff is a term when a deployment is disaggregated
  check_fixed_terms(fixed, o.kernel_fit(), true);
  if (o.split != "k-fold" && o.split != "declared")
    throw_error("--split %s: expected k-fold or declared", o.split.c_str());
  std::vector<ServingCase> cases;
  std::vector<std::string> traces;  // per case: its trace's text ("" : mean lengths)
  std::vector<size_t> case_deployment;  // per case: its deployment's index
  const bool from_commands = !o.from_commands.empty();
  if (!from_commands && o.inputs.size() < 2)
    throw_error("calibrate: expected DEPLOYMENT RUN... (a lynxsim configuration, then result files), or "
                "--from-commands ENGINE RUN...");
  // DEPLOYMENT RUN... [DEPLOYMENT RUN...]...: each configuration file is the deployment of the runs after it.
  std::vector<Deployment> deployments;
  std::vector<std::string> run_files;
  std::vector<std::pair<std::string, size_t>> run_inputs;  // result file, its deployment's index
  for (size_t i = 0; i < o.inputs.size(); ++i) {
    const std::string& path = o.inputs[i];
    if (!from_commands && (i == 0 || is_deployment_file(path))) {
      deployments.push_back(read_deployment(path));
      continue;
    }
    run_files.push_back(path);
    if (!from_commands) run_inputs.emplace_back(path, deployments.size() - 1);  // --from-commands: no deployment
  }
  std::vector<bool> has_runs(deployments.size(), false);
  for (const auto& r : run_inputs) has_runs[r.second] = true;
  for (size_t i = 0; i < deployments.size(); ++i)
    if (!has_runs[i]) throw_error("%s: a deployment with no result file after it", deployments[i].path.c_str());
  if (from_commands) {
    cases = cases_from_commands(run_files, o.from_commands);
    traces.assign(cases.size(), "");
  }
  for (const auto& [path, deployment_index] : from_commands ? decltype(run_inputs){} : run_inputs) {
    const Deployment& deployment = deployments[deployment_index];
    for (ServingBenchRun& run : serving_bench_read(path)) {
      const std::string where = run.file + ":" + std::to_string(run.line);
      // A run sent at a rate replays at its recorded send times (AIPerf's records); without them it cannot be
      // replayed as sent (vLLM's and SGLang's files keep the rate, not the Poisson draws).
      const bool timed = std::isfinite(run.request_rate);
      if (timed && run.send_s.empty())
        throw_error("%s: sent at %g requests/s: the file does not hold the send times, so the run cannot be replayed "
                    "as sent; calibrate takes runs sent all at once (--request-rate inf), with --max-concurrency, or "
                    "AIPerf's exports with their per-request records",
                    where.c_str(), run.request_rate);
      if (run.requests() < 1) throw_error("%s: no successful request", where.c_str());
      ServingCase c;
      c.run = run;
      c.requests = run.requests();
      c.input_tokens = std::max<int64_t>(1, std::llround(static_cast<double>(run.input_tokens()) / static_cast<double>(c.requests)));
      c.output_tokens = std::max<int64_t>(1, std::llround(static_cast<double>(run.generated_tokens()) / static_cast<double>(c.requests)));
      const double conc = run.max_concurrency();
      c.max_concurrency = std::isnan(conc) ? 0 : conc;
      c.deployment = deployment.config;
      c.pd_notify_base_us = deployment.pd_notify_base_us;
      c.workload = (run.input_lens.empty() ? "mean lengths " + std::to_string(c.input_tokens) + "/" +
                                                 std::to_string(c.output_tokens)
                                           : std::string("its own lengths")) +
                   (timed ? ", at its recorded send times" : "") +
                   (c.max_concurrency > 0 ? ", " + std::to_string(static_cast<int64_t>(c.max_concurrency)) + " in flight"
                    : timed               ? ""
                                          : ", all at once");
      cases.push_back(c);
      traces.push_back(run.input_lens.empty() ? "" : run_trace(run, timed));
      case_deployment.push_back(deployment_index);
    }
  }
  if (cases.empty()) throw_error("no run to calibrate on");
  // What it writes: the profile, and the traces the replays read (one per run with its own lengths).
  OutputPlan plan;
  for (const Deployment& d : deployments) plan.input_file("DEPLOYMENT", d.path);
  for (const std::string& r : run_files)  // every file given (its runs kept or not)
    if (!std::filesystem::is_directory(r)) plan.input_file("RUN", r);
  for (const ServingCase& c : cases) {  // and the files read inside a folder given, AIPerf's records beside an aggregate
    plan.input_file("RUN", c.run.file);
    if (!c.run.rows_file.empty()) plan.input_file("RUN", c.run.rows_file);
  }
  std::vector<std::string> written = {"profile.json"};
  for (size_t i = 0; i < cases.size(); ++i)
    if (!traces[i].empty()) written.push_back("replay-run" + std::to_string(i + 1) + ".jsonl");
  plan.output_folder("--out", o.out_dir, written);
  plan.check();
  std::filesystem::create_directories(o.out_dir);
  for (size_t i = 0; i < cases.size(); ++i) {
    if (traces[i].empty()) continue;
    const std::string file = o.out_dir + "/replay-run" + std::to_string(i + 1) + ".jsonl";
    write_file_atomic(file, traces[i]);
    cases[i].trace_file = std::filesystem::absolute(file).string();
  }

  // Every run replays on the deployment before any fit (a prompt beyond the model's context, a TP the model refuses):
  // one error naming the run, not a fit that silently scores it as unreachable.
  for (const ServingCase& c : cases) {
    const ServingPrediction p = serving_predict(c, ServingTerms::all(0));
    if (!p.error.empty())
      throw_error("%s:%lld: the run cannot be replayed on the deployment: %s", c.run.file.c_str(),
                  static_cast<long long>(c.run.line), p.error.c_str());
  }
  const int n = static_cast<int>(cases.size());
  const bool declared = o.split == "declared";
  const int folds = declared ? 1 : o.folds < 0 ? std::min(5, n) : o.folds;
  if (!declared && (folds == 1 || folds > n))
    throw_error("--folds %d: needs 2 to %d folds (the runs given), or 0 for no held-out check", folds, n);
  if (declared) {
    int training = 0;
    for (const ServingCase& c : cases) training += c.training;
    if (training == 0 || training == n)
      throw_error("--split declared: the runs must hold both training and check runs (%d of %d are training)", training, n);
  }
  auto progress = [&o](const std::string& line) {
    if (!o.quiet) std::fprintf(stderr, "calibrate: %s\n", line.c_str());
  };
  Metrics held_out;
  const bool families = o.kernel_fit() == KernelFit::families;
  ServingTerms low = ServingTerms::all(INFINITY), high = ServingTerms::all(-INFINITY);
  low.kernel_time_factor = low.pd_handoff_ms = INFINITY;
  high.kernel_time_factor = high.pd_handoff_ms = -INFINITY;
  for (KernelFamily f : kKernelFamilies) low.family[f] = INFINITY, high.family[f] = -INFINITY;
  std::vector<int> fold_of(cases.size());
  for (int f = 0; f < folds; ++f) {
    std::vector<ServingCase> training, check;
    for (int i = 0; i < n; ++i) {
      const ServingCase& c = cases[static_cast<size_t>(i)];
      const bool held = declared ? !c.training : i % folds == f;
      fold_of[static_cast<size_t>(i)] = declared ? (c.training ? 0 : 1) : i % folds;
      (held ? check : training).push_back(c);
    }
    const ServingTerms t = fit_serving_terms(training, o.kernel_fit(), {}, fixed);
    for (double ServingTerms::*m : {&ServingTerms::host_step_ms, &ServingTerms::host_per_request_us,
                                    &ServingTerms::frontend_ms, &ServingTerms::frontend_serial_ms,
                                    &ServingTerms::kernel_time_factor, &ServingTerms::pd_handoff_ms}) {
      if (std::isnan(t.*m)) continue;  // not fitted on this fold's runs
      low.*m = std::min(low.*m, t.*m);
      high.*m = std::max(high.*m, t.*m);
    }
    for (KernelFamily k : kKernelFamilies) {
      low.family[k] = std::min(low.family[k], t.family[k]);
      high.family[k] = std::max(high.family[k], t.family[k]);
    }
    for (const ServingCase& c : check) held_out.add(serving_errors(c, serving_predict(c, t)));
    progress("fold " + std::to_string(f + 1) + " of " + std::to_string(folds) + " fitted on " +
             std::to_string(training.size()) + " runs");
  }
  // The profile's terms: fitted on every run, or with a declared split on the training runs alone (so that the
  // check runs stay held out from what is shipped).
  std::vector<ServingCase> fit_on;
  for (const ServingCase& c : cases)
    if (!declared || c.training) fit_on.push_back(c);
  const ServingTerms terms = fit_serving_terms(fit_on, o.kernel_fit(), {}, fixed);
  Metrics fitted;
  for (const ServingCase& c : fit_on) fitted.add(serving_errors(c, serving_predict(c, terms)));

  if (std::isnan(terms.pd_handoff_ms)) low.pd_handoff_ms = high.pd_handoff_ms = NAN;
  nlohmann::json runs = nlohmann::json::array();
  for (size_t i = 0; i < cases.size(); ++i) {
    const ServingCase& c = cases[i];
    nlohmann::json entry = {{"file", c.run.file},
                    {"line", c.run.line},
                    {"sha256", c.run.sha256},
                    {"requests", c.requests},
                    {"workload", c.workload},
                    {"fold", declared ? nlohmann::json(c.training ? "training" : "check")
                                      : folds > 0 ? nlohmann::json(fold_of[i] + 1) : nlohmann::json(nullptr)}};
    if (!c.run.rows_file.empty()) entry["rows"] = {{"file", c.run.rows_file}, {"sha256", c.run.rows_sha256}};
    if (deployments.size() > 1) entry["deployment"] = deployments[case_deployment[i]].path;
    runs.push_back(entry);
  }
  nlohmann::json profile = {
      {"lynxsim_serving_profile", 1},
      {"deployment", from_commands ? nlohmann::json("each run's serving command (" + o.from_commands + ")")
                     : deployments.size() == 1 ? nlohmann::json(deployments[0].path)
                                               : deployment_list(deployments, false)},
      {"deployment_sha256", from_commands ? nlohmann::json("")
                            : deployments.size() == 1 ? nlohmann::json(sha256_file(deployments[0].path))
                                                      : deployment_list(deployments, true)},
      {"split", declared ? "declared (the runs' training and check marks)" : "k-fold"},
      {"fixed", fixed.empty() ? nlohmann::json::object() : nlohmann::json(fixed)},
      {"terms", terms_json(terms, families)},
      {"fit", {{"runs", static_cast<int>(fit_on.size())},
               {"duration_mape_percent", number_or_null(percent(fitted.duration, fitted.n_duration))},
               {"ttft_mape_percent", number_or_null(percent(fitted.ttft, fitted.n_ttft))},
               {"tpot_mape_percent", number_or_null(percent(fitted.tpot, fitted.n_tpot))}}},
      {"runs", runs}};
  if (folds > 0) {
    profile["held_out"] = {{"folds", folds},
                           {"runs", held_out.n_ttft},
                           {"duration_mape_percent", number_or_null(percent(held_out.duration, held_out.n_duration))},
                           {"ttft_mape_percent", number_or_null(percent(held_out.ttft, held_out.n_ttft))},
                           {"ttft_p90_error_percent", number_or_null(100 * p90(held_out.ttft_errors))},
                           {"tpot_mape_percent", number_or_null(percent(held_out.tpot, held_out.n_tpot))},
                           {"tpot_p90_error_percent", number_or_null(100 * p90(held_out.tpot_errors))},
                           {"duration_p90_error_percent", number_or_null(100 * p90(held_out.duration_errors))}};
    profile["terms_across_folds"] = {{"low", terms_json(low, families)}, {"high", terms_json(high, families)}};
  }
  write_file_atomic(o.out_dir + "/profile.json", profile.dump(2) + "\n");
  std::printf("calibrated on %zu run(s): host_step_ms %g, host_per_request_us %g, frontend_ms %g, frontend_serial_ms %g, "
              "kernel_time_factor %g",
              fit_on.size(), terms.host_step_ms, terms.host_per_request_us, terms.frontend_ms, terms.frontend_serial_ms,
              terms.kernel_time_factor);
  if (!std::isnan(terms.pd_handoff_ms)) std::printf(", pd_handoff_ms %g", terms.pd_handoff_ms);
  if (families)
    for (KernelFamily f : kKernelFamilies) std::printf(", %s %g", kernel_family_key(f), terms.family[f]);
  std::printf("\n");
  std::printf("fitted runs: duration %.1f%%, TTFT %.1f%%, TPOT %.1f%% (MAPE)\n", percent(fitted.duration, fitted.n_duration),
              percent(fitted.ttft, fitted.n_ttft), percent(fitted.tpot, fitted.n_tpot));
  if (folds > 0)
    std::printf("held out (%s): duration %.1f%%, TTFT %.1f%% (90%% of runs within %.1f%%), TPOT %.1f%% (MAPE)\n",
                declared ? "the declared check runs" : (std::to_string(folds) + " folds").c_str(),
                percent(held_out.duration, held_out.n_duration), percent(held_out.ttft, held_out.n_ttft),
                100 * p90(held_out.ttft_errors), percent(held_out.tpot, held_out.n_tpot));
  std::printf("wrote %s/profile.json\n", o.out_dir.c_str());
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  auto o = std::make_shared<CalibrateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Fit a deployment's host and front-end serving terms on its own benchmark results (vllm bench serve JSON or "
      "printed blocks, SGLang bench_serving JSONL, AIPerf exports) and write a serving profile with its held-out error");
  cmd->add_option("inputs", o->inputs,
                  "DEPLOYMENT (a lynxsim configuration: engine, GPUs, TP, flags, co-located or P/D) then result files "
                  "(vllm bench serve --save-result JSON or its printed block, SGLang bench_serving JSONL, AIPerf's "
                  "profile_export_aiperf.json or artifact folder); a further configuration is the deployment of the "
                  "result files after it; with --from-commands only "
                  "result files or folders of pages")
      ->required();
  cmd->add_option("--from-commands", o->from_commands,
                  "ENGINE (vllm-0.24, sglang-0.5.14, trtllm-1.3): no deployment file; each run's deployment from the "
                  "serving command printed above its result block, as validate --serving reads GPUStack's pages");
  cmd->add_option("--split", o->split, "k-fold (default) or declared: the runs' own training and check marks");
  cmd->add_option("--out", o->out_dir, "folder for profile.json and the replayed traces")->required();
  cmd->add_option("--folds", o->folds, "k-fold check: K folds (default: min(5, runs); 0: none)");
  cmd->add_flag("--fit-kernel-factor", o->fit_kernel, "also fit one kernel-time factor for the deployment (1-2.5)");
  cmd->add_flag("--fit-kernel-families", o->fit_kernel_families,
                "also fit one factor per kernel family (GEMM, context attention, generation attention, MoE, "
                "all-reduce; 0.5-2.5, prior 1: the tables as measured)")
      ->excludes("--fit-kernel-factor");
  cmd->add_option("--fix", o->fix,
                  "TERM=VALUE: keep a term at a value measured elsewhere (frontend_ms=20, "
                  "kernel_family_factors.gemm=1); repeatable")
      ->expected(1)
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_flag("--quiet", o->quiet, "no progress lines");
  cmd->callback([o] { run_calibrate(*o); });
}

}  // namespace lynx
