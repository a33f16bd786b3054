// lynxsim validate: the profiled cost model (built only from per-op, attention, collective and CPU-overhead
// measurements) against every end-to-end measurement in the calibration data folder; prints condition, measured,
// predicted and ratio, the MAPE per group, and writes validation.csv and a predicted-vs-measured plot (log-log,
// y = x line) into --out. See models/validation/validation.hpp. The transfer group (sim/transfer/transfer_validation.hpp):
// the transfer engine presets against published engine micro-benchmarks they were not fitted on, printed in us.
// The engine groups (models/validation/engine_validation.hpp): published end-to-end rows of named engines
// (models/validation/*_published.tsv) against the engine-composed model of their kernels.
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <filesystem>

#include "app/commands.hpp"
#include "common/atomic_file.hpp"
#include "common/output_paths.hpp"
#include "experiments/plot.hpp"
#include "models/arch/catalog.hpp"
#include "models/readers/csv_table.hpp"
#include "models/validation/engine_validation.hpp"
#include "models/validation/gpu_derivation_validation.hpp"
#include "models/cost/profiled/gpu_profile.hpp"
#include "models/validation/validation.hpp"
#include "sim/cluster/engine_serving.hpp"
#include "sim/transfer/transfer_validation.hpp"
#include "sim/validation/serving_validation.hpp"

namespace lynx {

namespace {
struct ValidateOptions {
  std::string out_dir = "results/validation";
  std::string data_dir;
  bool plot = true;
  bool quiet = false;
  bool serving = false;      // the serving group alone (each run simulated: minutes)
  std::string fit_engine;    // fit that engine's terms on the serving group's training runs
  bool fit_kernel = false;   // and a kernel-time factor of the deployment
  bool deployment_factor = false;  // the serving group again with one kernel-time factor per page, fitted
};

// The serving group (sim/validation/serving_validation.hpp): every GPUStack run replayed; with `per_run`, each run's
// figures and why a run is not replayed; then the MAPE of duration, mean TTFT and mean TPOT per engine and role
// (train / check), per engine and workload kind, and over all check and all training runs. With `deployment_factor`,
// then one kernel-time factor per page fitted on its training runs (fit_deployment_kernel_factor) and the MAPE per
// engine and role again with each page's factor.
void print_serving_group(const std::string& data_dir, bool per_run, bool deployment_factor) {
  const std::string folder = data_dir + "/gpustack-performance-lab/performance-lab";
  if (!per_run && !std::filesystem::is_directory(folder)) {  // plain validate on a data folder without the pages
    std::printf("\nserving group: not run, no %s (scripts/get-data.sh fetches it)\n", folder.c_str());
    return;
  }
  const std::vector<ServingCase> cases = gpustack_serving_cases(folder);
  if (per_run) {
    std::printf("%-16s %12s %13s %19s %18s %11s  %s\n", "serving terms", "host_step_ms", "eager_step_ms",
                "host_per_request_us", "frontend_serial_ms", "frontend_ms", "source");
    for (ServingEngine e : {ServingEngine::vllm, ServingEngine::sglang, ServingEngine::trtllm}) {
      const ServingTermDefaults d = serving_term_defaults(e);
      std::printf("%-16s %12g %13g %19g %18g %11g  %s\n", serving_engine_name(e), d.host_step_ms, d.host_eager_step_ms,
                  d.host_per_request_us, d.frontend_serial_ms, d.frontend_ms, d.source.c_str());
    }
    std::printf("\n");
  }
  struct Sum {
    double sum[3] = {0, 0, 0};
    int n[3] = {0, 0, 0};
  };
  struct Groups {
    std::map<std::string, Sum> by_role, by_workload;
  };
  // Each replayable run simulated with `factor_of(run)` as its kernel-time factor (its engine's shipped terms
  // otherwise); with `print_runs`, each run printed. A run at factor 1 is simulated once: its prediction is kept.
  int failed = 0;
  std::vector<std::optional<ServingPrediction>> at_factor_one(cases.size());
  auto evaluate = [&](const std::function<double(const ServingCase&)>& factor_of, bool print_runs) {
    Groups g;
    if (print_runs)
      std::printf("%-30s %-14s %-20s %-5s %-36s %9s %9s %9s %9s %9s %9s\n", "run", "engine", "model", "role",
                  "workload", "dur_s", "pred", "ttft_ms", "pred", "tpot_ms", "pred");
    for (size_t i = 0; i < cases.size(); ++i) {
      const ServingCase& c = cases[i];
      if (!c.not_replayed.empty()) {
        if (print_runs) std::printf("%-30s not replayed: %s\n", c.name().c_str(), c.not_replayed.c_str());
        continue;
      }
      ServingTerms terms;
      terms.kernel_time_factor = factor_of(c);
      const bool one = terms.kernel_time_factor == 1;
      if (one && !at_factor_one[i]) at_factor_one[i] = serving_predict(c, terms);
      const ServingPrediction p = one ? *at_factor_one[i] : serving_predict(c, terms);
      if (!p.error.empty()) {
        std::printf("%-30s %-14s %-20s error: %s\n", c.name().c_str(), c.engine.c_str(), c.model.c_str(),
                    p.error.c_str());
        ++failed;
        continue;
      }
      const char* role = c.training ? "train" : "check";
      if (print_runs)
        std::printf("%-30s %-14s %-20s %-5s %-36s %9.2f %9.2f %9.1f %9.1f %9.2f %9.2f\n", c.name().c_str(),
                    c.engine.c_str(), c.model.c_str(), role, c.workload.c_str(), c.run.duration_s(), p.duration_s,
                    c.run.mean_ttft_ms(), p.mean_ttft_ms, c.run.mean_tpot_ms(), p.mean_tpot_ms);
      const ServingErrors e = serving_errors(c, p);
      const double x[3] = {e.duration, e.ttft, e.tpot};
      auto add = [&x](Sum& sum) {
        for (int m = 0; m < 3; ++m)
          if (!std::isnan(x[m])) {
            sum.sum[m] += x[m];
            ++sum.n[m];
          }
      };
      add(g.by_role[c.engine + " " + role]);
      add(g.by_role[std::string("all ") + role]);
      // The workload kind: the random workload's prompt length, or ShareGPT at once / in a closed loop.
      const std::string kind =
          c.workload.rfind("random", 0) == 0
              ? "random " + std::to_string(c.input_tokens) + "/" + std::to_string(c.output_tokens)
              : c.max_concurrency > 0 ? std::string("sharegpt closed loop") : std::string("sharegpt at once");
      add(g.by_workload[c.engine + " " + kind + " (" + role + ")"]);
    }
    return g;
  };
  auto print = [](const char* title, const std::map<std::string, Sum>& groups) {
    std::printf("\n%-44s %8s %8s %8s %6s\n", title, "dur_%", "ttft_%", "tpot_%", "runs");
    for (const auto& group : groups) {
      const Sum& s = group.second;  // a plain reference: clang 14 cannot capture a structured binding
      auto pct = [&s](int i) { return s.n[i] > 0 ? 100 * s.sum[i] / s.n[i] : std::nan(""); };
      std::printf("%-44s %8.1f %8.1f %8.1f %6d\n", group.first.c_str(), pct(0), pct(1), pct(2), s.n[0]);
    }
  };
  const Groups shipped = evaluate([](const ServingCase&) { return 1.0; }, per_run);
  print("serving group (engine, role)", shipped.by_role);
  if (per_run) print("serving breakdown (engine, workload, role)", shipped.by_workload);
  if (failed > 0) throw_error("%d serving runs failed to simulate (above)", failed);
  if (!deployment_factor) return;
  // One kernel-time factor per page (one machine: the lab ran each page's engines on one setup), fitted on its
  // training runs at the engines' shipped terms; a page without a training run keeps 1.
  auto page_of = [](const ServingCase& c) { return c.name().substr(0, c.name().find(':')); };
  std::map<std::string, std::vector<ServingCase>> training_of;
  for (const ServingCase& c : cases)
    if (c.not_replayed.empty()) {
      std::vector<ServingCase>& runs = training_of[page_of(c)];
      if (c.training) runs.push_back(c);
    }
  std::map<std::string, double> factor_of;
  std::printf("\n%-44s %8s %10s %13s\n", "deployment factors (page: kernel-time factor)", "factor", "train_runs",
              "train_error_%");
  for (const auto& page : training_of) {
    double error = std::nan("");
    const double f = page.second.empty() ? 1.0 : fit_deployment_kernel_factor(page.second, &error);
    factor_of[page.first] = f;
    std::printf("%-44s %8.1f %10zu %13.1f\n", page.first.c_str(), f, page.second.size(), 100 * error);
  }
  const Groups fitted = evaluate([&](const ServingCase& c) { return factor_of.at(page_of(c)); }, false);
  print("serving group with deployment factors (engine, role)", fitted.by_role);
  if (failed > 0) throw_error("%d serving runs failed to simulate (above)", failed);
}

void run_serving_validation(const ValidateOptions& o) {
  const std::string data = o.data_dir.empty() ? calibration_dir() : o.data_dir;
  if (!o.fit_engine.empty()) {
    std::vector<ServingCase> training;
    for (const ServingCase& c : gpustack_serving_cases(data + "/gpustack-performance-lab/performance-lab"))
      if (c.not_replayed.empty() && c.training && c.engine == o.fit_engine) training.push_back(c);
    if (training.empty()) throw_error("--fit %s: no training run of that engine", o.fit_engine.c_str());
    const ServingTerms t = fit_serving_terms(training, o.fit_kernel ? KernelFit::one : KernelFit::none, [](const std::string& line) {
      std::fprintf(stderr, "fit: %s\n", line.c_str());
    });
    std::printf("fitted on %zu training runs of %s: host_step_ms %g, host_per_request_us %g, frontend_ms %g, "
                "frontend_serial_ms %g, kernel_time_factor %g\n", training.size(), o.fit_engine.c_str(), t.host_step_ms,
                t.host_per_request_us, t.frontend_ms, t.frontend_serial_ms, t.kernel_time_factor);
    return;
  }
  print_serving_group(data, !o.quiet, o.deployment_factor);
}

void run_validate(const ValidateOptions& o) {
  if (!o.serving && (o.deployment_factor || !o.fit_engine.empty() || o.fit_kernel))
    throw_error("--fit, --fit-kernel-factor and --deployment-factor need --serving (they fit on its runs)");
  if (o.fit_kernel && o.fit_engine.empty()) throw_error("--fit-kernel-factor needs --fit ENGINE");
  if (o.deployment_factor && !o.fit_engine.empty())
    throw_error("--deployment-factor and --fit are two fits: give one");
  if (o.serving) {
    run_serving_validation(o);
    return;
  }
  const std::string data = o.data_dir.empty() ? calibration_dir() : o.data_dir;
  OutputPlan plan;  // common/output_paths.hpp: before the whole run, not after it
  plan.input_folder("--data-dir", data);
  plan.input_tree("the calibration folder --data-dir", data);  // every table below it
  plan.input_tree("the published rows", default_engine_validation_dir());
  plan.input_shared(OutputPlan::kDataFolder | OutputPlan::kCatalogs | OutputPlan::kKernelCosts);
  plan.output_folder("--out", o.out_dir, {"validation.csv", "validation.png", "validation.svg"});
  plan.check();
  ValidationReport report = run_validation(data, default_profiles_manifest_path(), default_model_catalog_path(),
                                           default_gpu_catalog_path());
  add_engine_validation(report, default_engine_validation_dir(), data, default_model_catalog_path(),
                        default_gpu_catalog_path());
  const size_t compute_rows = report.rows.size();
  add_transfer_validation(report);
  const std::vector<DerivationCheck> derivation =
      gpu_derivation_checks(data + "/aiconfigurator", load_gpu_catalog(default_gpu_catalog_path()));
  if (!o.quiet) {
    std::printf("%-38s %-42s %11s %11s %7s\n", "group", "condition", "measured_ms", "predicted_ms", "ratio");
    // (engine groups: models/validation/*_published.tsv, each row's citation in validation.csv's source column)
    for (size_t i = 0; i < compute_rows; ++i) {
      const ValidationRow& r = report.rows[i];
      std::printf("%-38s %-42s %11.2f %11.2f %7.3f%s%s\n", r.group.c_str(), r.condition.c_str(), r.measured_ms,
                  r.predicted_ms, r.predicted_ms / r.measured_ms, r.excluded.empty() ? "" : "  excluded: ",
                  r.excluded.c_str());
    }
    std::printf("\n%-38s %-52s %11s %12s %7s\n", "group", "condition", "measured_us", "predicted_us", "ratio");
    for (size_t i = compute_rows; i < report.rows.size(); ++i) {
      const ValidationRow& r = report.rows[i];
      std::printf("%-38s %-52s %11.2f %12.2f %7.3f%s%s\n", r.group.c_str(), r.condition.c_str(), r.measured_ms * 1e3,
                  r.predicted_ms * 1e3, r.predicted_ms / r.measured_ms, r.excluded.empty() ? "" : "  excluded: ",
                  r.excluded.c_str());
    }
    std::printf("\n");
  }
  std::printf("%-38s %5s %8s\n", "group", "rows", "MAPE_%");
  for (const ValidationGroup& g : report.groups) {
    if (g.rows == 0)  // every row of the group excluded (validation.csv says why): no MAPE to show
      std::printf("%-38s %5d %8s\n", g.group.c_str(), g.rows, "-");
    else
      std::printf("%-38s %5d %8.2f\n", g.group.c_str(), g.rows, g.mape_percent);
  }
  // Leave one GPU out: a measured GPU's tables derived from another's (models/cost/engine/gpu_derivation.hpp).
  std::printf("\nGPU derivation, leave one GPU out (vLLM 0.24 tables, NCCL all-reduce; targets: median <= 10%%, p90 "
              "<= 25%%)\n%-22s %-20s %7s %9s %7s %7s %13s %9s\n",
              "family", "derived from -> to", "points", "median_%", "p90_%", "bias_%", "old median_%", "old p90_%");
  for (const DerivationCheck& c : derivation)
    std::printf("%-22s %-20s %7d %9.1f %7.1f %+7.1f %13.1f %9.1f\n", c.family.c_str(),
                (c.source_gpu.substr(0, 4) + " -> " + c.target_gpu.substr(0, 4)).c_str(), c.points, c.median_percent,
                c.p90_percent, c.bias_percent, c.old_median_percent, c.old_p90_percent);
  if (!o.quiet) {
    std::printf("\nbreakdown (diagnostic; the groups above are the headline)\n");
    for (const ValidationGroup& g : report.breakdown)
      std::printf("%-66s %5d %8.2f\n", g.group.c_str(), g.rows, g.mape_percent);
  }
  // The serving group (GPUStack's co-located runs, each simulated): its MAPE per engine and role; the runs
  // themselves with --serving.
  print_serving_group(data, false, false);
  std::filesystem::create_directories(o.out_dir);
  write_file_atomic(o.out_dir + "/validation.csv", validation_csv(report));
  std::printf("wrote %s/validation.csv\n", o.out_dir.c_str());
  if (o.plot) run_plot_script("plot_validation.py", o.out_dir);
}
}  // namespace

void add_validate_command(CLI::App& app) {
  auto options = std::make_shared<ValidateOptions>();
  CLI::App* cmd = app.add_subcommand("validate",
                                     "predict every end-to-end measurement of the calibration data with the profiled "
                                     "cost model (fitted on component measurements only) and report the error");
  cmd->add_option("--out", options->out_dir, "directory for validation.csv and the plot")->capture_default_str();
  cmd->add_option("--data-dir", options->data_dir,
                  "calibration folder (default: <data folder>/calibration, see lynxsim --data-dir)");
  cmd->add_flag("!--no-plot", options->plot, "skip the plot");
  cmd->add_flag("--quiet", options->quiet, "print only the MAPE per group");
  cmd->add_flag("--serving", options->serving,
                "the serving group alone: every GPUStack H100 run replayed through the simulator (minutes)");
  cmd->add_option("--fit", options->fit_engine,
                  "with --serving: fit ENGINE's host and front-end terms on the group's training runs and print them");
  cmd->add_flag("--fit-kernel-factor", options->fit_kernel,
                "with --fit: also fit one kernel-time factor for the deployment");
  cmd->add_flag("--deployment-factor", options->deployment_factor,
                "with --serving: then fit one kernel-time factor per page (one machine) on its training runs, at the "
                "engines' shipped terms, and print the serving group again with them");
  cmd->callback([options] { run_validate(*options); });
}

}  // namespace lynx
