// The lynxsim command line: each subcommand lives in its own cmd_<name>.cpp and only parses arguments and
// calls the libraries. add_<name>_command registers the subcommand and its callback on the top-level app.
#pragma once
#include <map>
#include <string>

#include <CLI/CLI.hpp>

namespace lynx {

// An enum table's names (common/enum_names.hpp) as CLI11's CheckedTransformer takes them: an option whose values are
// an enum's names reads the enum.
template <class Table>
std::map<std::string, typename Table::Enum> enum_name_map(const Table& table) {
  std::map<std::string, typename Table::Enum> names;
  for (const auto& row : table) names.emplace(row.name, row.value);
  return names;
}

void add_kv_size_command(CLI::App& app);
void add_trace_stats_command(CLI::App& app);
void add_simulate_command(CLI::App& app);
void add_run_command(CLI::App& app);  // run, merge
void add_plot_command(CLI::App& app);
void add_accuracy_command(CLI::App& app);
void add_bench_kernels_command(CLI::App& app);
void add_generate_command(CLI::App& app);
void add_validate_command(CLI::App& app);
void add_calibrate_command(CLI::App& app);
void add_list_command(CLI::App& app);  // list models|gpus|formats
void add_config_command(CLI::App& app);
void add_export_hf_command(CLI::App& app);

}  // namespace lynx
