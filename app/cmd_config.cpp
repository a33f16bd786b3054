// lynxsim config: the configuration formats explained by the program itself, printed from the field declarations
// the readers use (common/json_schema.hpp): --schema, the Markdown reference committed as docs/config.md (a test
// fails when they differ); --example, a complete annotated simulate configuration that runs as printed.
#include <cstdio>

#include "app/commands.hpp"
#include "common/error.hpp"
#include "common/schema_doc.hpp"
#include "experiments/experiment.hpp"
#include "sim/sim_config.hpp"

namespace lynx {

namespace {
constexpr const char* kPreamble =
    "# lynxsim configuration reference\n\n"
    "Printed by `lynxsim config --schema` from the field declarations the readers use (`sim/sim_config.cpp`, "
    "`sim/network_config.cpp`, `traces/workload_spec.cpp`, `experiments/experiment.cpp`). Do not edit it by hand: "
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
};

void run_config_command(const ConfigOptions& o) {
  if (o.schema == o.example) throw_error("config: give one of --schema or --example");
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
  cmd->callback([o] { run_config_command(*o); });
}

}  // namespace lynx
