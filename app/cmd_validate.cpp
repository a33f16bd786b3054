// lynxsim validate: the profiled cost model (built only from per-op, attention, collective and CPU-overhead
// measurements) against every end-to-end measurement in the calibration data folder; prints condition, measured,
// predicted and ratio, the MAPE per group, and writes validation.csv and a predicted-vs-measured plot (log-log,
// y = x line) into --out. See models/validation/validation.hpp. The transfer group (sim/transfer/transfer_validation.hpp):
// the transfer engine presets against published engine micro-benchmarks they were not fitted on, printed in us.
// The engine groups (models/validation/engine_validation.hpp): published end-to-end rows of named engines
// (models/validation/*_published.tsv) against the engine-composed model of their kernels.
#include <cstdio>
#include <filesystem>

#include "app/commands.hpp"
#include "common/atomic_file.hpp"
#include "common/output_paths.hpp"
#include "experiments/plot.hpp"
#include "models/arch/catalog.hpp"
#include "models/readers/csv_table.hpp"
#include "models/validation/engine_validation.hpp"
#include "models/cost/profiled/gpu_profile.hpp"
#include "models/validation/validation.hpp"
#include "sim/transfer/transfer_validation.hpp"

namespace lynx {

namespace {
struct ValidateOptions {
  std::string out_dir = "results/validation";
  std::string data_dir;
  bool plot = true;
  bool quiet = false;
};

void run_validate(const ValidateOptions& o) {
  const std::string data = o.data_dir.empty() ? calibration_dir() : o.data_dir;
  OutputPlan plan;  // common/output_paths.hpp: before the whole run, not after it
  plan.input_folder("--data-dir", data);
  plan.output_folder("--out", o.out_dir, {"validation.csv", "validation.png", "validation.svg"});
  plan.check();
  ValidationReport report = run_validation(data, default_profiles_manifest_path(), default_model_catalog_path(),
                                           default_gpu_catalog_path());
  add_engine_validation(report, default_engine_validation_dir(), data, default_model_catalog_path(),
                        default_gpu_catalog_path());
  const size_t compute_rows = report.rows.size();
  add_transfer_validation(report);
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
  if (!o.quiet) {
    std::printf("\nbreakdown (diagnostic; the groups above are the headline)\n");
    for (const ValidationGroup& g : report.breakdown)
      std::printf("%-66s %5d %8.2f\n", g.group.c_str(), g.rows, g.mape_percent);
  }
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
  cmd->callback([options] { run_validate(*options); });
}

}  // namespace lynx
