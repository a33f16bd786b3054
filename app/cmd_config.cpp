// lynxsim config: the configuration formats explained by the program itself, printed from the field declarations
// the readers use (common/json_schema.hpp): --schema, the Markdown reference committed as docs/config.md (a test
// fails when they differ); --example, a complete annotated simulate configuration that runs as printed; --where,
// the folders a run reads and writes (the project folder and the data folder with the rule that chose each,
// common/data_folder.hpp; the output folder) and, with --config, every input path of that configuration as the run
// resolves it (docs/paths.md states the rule).
#include <cstdio>

#include "app/commands.hpp"
#include <filesystem>

#include "common/atomic_file.hpp"
#include "common/data_folder.hpp"
#include "common/error.hpp"
#include "common/output_paths.hpp"
#include "common/schema_doc.hpp"
#include "experiments/config_overrides.hpp"
#include "experiments/experiment.hpp"
#include "sim/config/resolved_config.hpp"
#include "sim/config/sim_config.hpp"

namespace lynx {

namespace {
constexpr const char* kPreamble =
    "# lynxsim configuration reference\n\n"
    "Printed by `lynxsim config --schema` from the field declarations the readers use (`sim/config/sim_config.cpp`, "
    "`sim/network/network_config.cpp`, `traces/workload_spec.cpp`, `experiments/experiment.cpp`). Do not edit it by hand: "
    "a test compares it with the program's output; regenerate it with\n"
    "`build/app/lynxsim config --schema > docs/config.md`.\n\n"
    "`lynxsim config --example` prints a complete configuration with every field, annotated, that runs as it is. "
    "`lynxsim simulate` and `lynxsim run` take `--set PATH=VALUE` to change any field below (PATH without the "
    "leading `$.`, e.g. `--set cluster.network.nic_gbps=25 --set format=int8-g64`; VALUE is JSON when it parses, "
    "else a string; `null` restores the default).\n\n"
    "Files may hold `//` comments. An unknown field is an error that lists the valid names at its path; a number "
    "out of its range is an error naming the range. \"none\" as a default: the field is optional and, absent, not "
    "applied (its meaning says what happens instead).\n\n";

constexpr const char* kExampleHeader =
    "// A complete lynxsim simulate configuration, printed by `lynxsim config --example`: every field at its\n"
    "// default or an example value; alternatives, and fields that apply only with another setting, commented out.\n"
    "// Reference: docs/config.md (`lynxsim config --schema`). Run it: lynxsim simulate --config FILE --out DIR\n";

struct ConfigOptions {
  bool schema = false;
  bool example = false;
  bool where = false;
  std::string config;             // --where --config FILE
  std::vector<std::string> sets;  // --where --set PATH=VALUE
  std::string out;                // --where --out DIR
};

// The project folder's files a run reads, relative to it (common/data_folder.hpp's callers).
constexpr const char* kProjectFiles =
    "models/catalog/{models,gpus,profiles}.json, kernels/costs/<device>.json, models/accuracy/<model>.json, "
    "scripts/data-manifest.tsv, experiments/*.py";

// `lynxsim config --where`: one "name: value" line per folder and rule, then the configuration's input paths.
void print_where(const ConfigOptions& o) {
  // Each argument checked before anything is printed: --where reports what a run would use, so a folder it
  // names must be one a run could use.
  if (!o.sets.empty() && o.config.empty())
    throw_error("config --where: --set edits a configuration: give it with --config FILE");
  if (!o.config.empty()) check_input_file(o.config);
  if (!o.out.empty()) check_output_location(o.out, true, "--out");  // a file there: refused, as simulate does
  const ProjectFolder project = project_folder();
  std::error_code status_error;
  if (!std::filesystem::is_directory(project.path, status_error))
    throw_error("project folder %s (chosen by %s): %s", project.path.c_str(), project.chosen_by.c_str(),
                std::filesystem::exists(project.path, status_error) ? "is not a folder" : "does not exist");
  const DataFolder data = data_folder();
  // A data folder that is a file is refused; one not there yet is reported on its line (exit 0): --where is how one
  // learns where scripts/get-data.sh will put the data.
  if (std::filesystem::exists(data.path, status_error) && !std::filesystem::is_directory(data.path, status_error))
    throw_error("data folder %s (chosen by %s): is not a folder; point --data-dir / LYNX_DATA_DIR at a folder",
                data.path.c_str(), data.chosen_by.c_str());
  const bool data_missing = !std::filesystem::exists(data.path, status_error);
  std::printf("project folder: %s\n  chosen by: %s\n  read from it: %s\n", project.path.c_str(),
              project.chosen_by.c_str(), kProjectFiles);
  std::error_code error;
  const std::string here = checkout_holding((std::filesystem::current_path(error) / "x").string());
  if (!here.empty() && resolved_path(here) != resolved_path(project.path))
    std::printf("  note: the current folder is inside another checkout, %s, whose files this run does not read "
                "(set LYNX_PROJECT_DIR=%s, or run that checkout's build)\n", here.c_str(), here.c_str());
  std::printf("data folder: %s\n  chosen by: %s\n  read from it: every @data/PATH of a configuration or "
              "experiment, the calibration measurements (calibration/)\n",
              data.path.c_str(), data.chosen_by.c_str());
  if (data_missing)
    std::printf("  missing: the folder does not exist; scripts/get-data.sh fetches the data into it, or point "
                "--data-dir / LYNX_DATA_DIR at a folder that holds it\n");
  const std::string out = o.out.empty() ? "none given (simulate and run write only into --out DIR; plot into the "
                                          "results folder or its --out)"
                                        : resolved_path(o.out) + " (--out)";
  std::printf("output folder: %s\n", out.c_str());
  std::printf("relative paths: in a configuration or experiment file, against that file's folder; in --set "
              "PATH=VALUE, against the configuration's folder too, except a value starting with ./ or ../, which "
              "is against the current folder; @data/PATH inside the data folder; absolute paths as written\n");
  if (o.config.empty()) return;
  const ResolvedConfig r = resolve_config_file_with_overrides(o.config, config_overrides_parse(o.sets));
  std::printf("configuration %s: relative paths against %s\n", o.config.c_str(),
              resolved_path(std::filesystem::path(o.config).parent_path().string()).c_str());
  for (const std::string& field : resolved_config_path_fields()) {
    const nlohmann::json* value = &r.json;
    size_t begin = 0;
    while (value != nullptr && begin <= field.size()) {
      const size_t dot = field.find('.', begin);
      const std::string key = field.substr(begin, dot == std::string::npos ? std::string::npos : dot - begin);
      value = value->is_object() && value->contains(key) ? &value->at(key) : nullptr;
      begin = dot == std::string::npos ? field.size() + 1 : dot + 1;
    }
    if (value != nullptr && value->is_string() && !value->get<std::string>().empty())
      std::printf("  %s: %s\n", field.c_str(), value->get<std::string>().c_str());
  }
}

void run_config_command(const ConfigOptions& o) {
  if (o.schema + o.example + o.where != 1) throw_error("config: give one of --schema, --example or --where");
  if (!o.where && (!o.config.empty() || !o.sets.empty() || !o.out.empty()))
    throw_error("config: --config, --set and --out go with --where");
  if (o.where) return print_where(o);
  if (o.schema) {
    const std::vector<SchemaDocument> documents = {
        {"Simulation configuration (`lynxsim simulate --config FILE`)",
         "What `lynxsim simulate --config` reads (and each point of an experiment is); one section per JSON "
         "object, under its path.",
         &kSimConfigSection},
        {"Experiment file (`lynxsim run FILE`)",
         "A base simulation configuration and sweep axes over it; every point is a simulation configuration, "
         "validated before anything runs.",
         &kExperimentSection}};
    std::fputs(schema_markdown(documents, kPreamble).c_str(), stdout);
  } else {
    std::fputs(schema_example(kSimConfigSection, kExampleHeader).c_str(), stdout);
  }
}
}  // namespace

void add_config_command(CLI::App& app) {
  auto o = std::make_shared<ConfigOptions>();
  CLI::App* cmd = app.add_subcommand("config", "Explain the configuration formats: reference or annotated example");
  cmd->add_flag("--schema", o->schema,
                "Print the reference of every configuration and experiment field (Markdown, as docs/config.md)");
  cmd->add_flag("--example", o->example,
                "Print a complete annotated simulate configuration that runs (JSON with // comments)");
  cmd->add_flag("--where", o->where,
                "Print the folders a run reads and writes: the project folder (catalogs, kernel costs, accuracy "
                "files) and the data folder, each with the rule that chose it, the output folder, and how relative "
                "paths resolve");
  cmd->add_option("--config", o->config,
                  "With --where: also print every input path of this simulate configuration as a run resolves it "
                  "(default: none)");
  cmd->add_option("--set", o->sets, "With --where --config: override a field first, as in `simulate --set`")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--out", o->out, "With --where: the output folder a run would write (default: none)");
  cmd->callback([o] { run_config_command(*o); });
}

}  // namespace lynx
