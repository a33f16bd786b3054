// lynxsim: a simulator of disaggregated LLM inference with Lynx's split-stream KV transfer (see DESIGN.md).
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <new>

#include "app/commands.hpp"
#include "common/error.hpp"
#include "experiments/plot.hpp"

namespace {
// Exit codes: 0 success; 2 bad input or an impossible request (one "lynxsim: error: ..." line names the file, line
// or JSON path); 3 an internal error (a bug: please report it).
constexpr int kBadInput = 2;
constexpr int kInternalError = 3;

// A command-line error as one line: "lynxsim: error: <what>"; an unexpected argument also lists the options of
// the command it was given to.
std::string one_line_failure(const CLI::App* app, const CLI::Error& e) {
  std::string text = std::string("lynxsim: error: ") + e.what();
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
    const CLI::App* command = app;
    while (!command->get_subcommands().empty()) command = command->get_subcommands().front();
    std::string options;
    for (const CLI::Option* opt : command->get_options())
      if (!opt->get_lnames().empty()) options += (options.empty() ? "--" : ", --") + opt->get_lnames().front();
    const std::string name = command == app ? "lynxsim" : "lynxsim " + command->get_name();
    text += " (options of `" + name + "`: " + options + ")";
  } else {
    text += " (see --help)";
  }
  return text + "\n";
}
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"lynxsim: simulate disaggregated LLM inference where the KV cache crosses the network"};
  app.set_version_flag("--version", std::string("lynxsim ") + LYNX_VERSION);
  app.require_subcommand(1);
  // The data folder (common/data_folder.hpp), for this process and the sweep points it starts.
  app.add_option_function<std::string>(
         "--data-dir",
         [](const std::string& dir) {
           setenv("LYNX_DATA_DIR", std::filesystem::absolute(dir).lexically_normal().string().c_str(), 1);
         },
         "Folder of the traces, model, text and calibration data (default: $LYNX_DATA_DIR, else ../shared/data "
         "beside the checkout, else data/ in it); @data/PATH in configs names a file there")
      ->check(CLI::ExistingDirectory);
  app.fallthrough();
  app.failure_message(one_line_failure);
  lynx::add_kv_size_command(app);
  lynx::add_trace_stats_command(app);
  lynx::add_simulate_command(app);
  lynx::add_run_command(app);
  lynx::add_plot_command(app);
  lynx::add_accuracy_command(app);
  lynx::add_bench_kernels_command(app);
  lynx::add_generate_command(app);
  lynx::add_export_hf_command(app);
  lynx::add_validate_command(app);
  lynx::add_calibrate_command(app);
  lynx::add_list_command(app);
  lynx::add_config_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : kBadInput;  // --help and --version exit 0
  } catch (const lynx::PlotInputError&) {
    return kBadInput;  // the plotting script printed its one line
  } catch (const lynx::LynxError& e) {
    std::fprintf(stderr, "lynxsim: error: %s\n", lynx::printable(e.what()).c_str());
    return kBadInput;
  } catch (const std::bad_alloc&) {
    // A resource limit, not a bug: what the input asks for does not fit this machine's memory. Writers remove their
    // temporary files as the error unwinds (common/atomic_file.hpp), and a run folder this run created is removed.
    std::fprintf(stderr,
                 "lynxsim: error: out of memory: the input asks for more memory than this machine gives the process "
                 "(a resource limit, not a bug); what drives it: for simulate and run the cluster's instances x tp "
                 "(one simulated NIC per GPU) and, with workload.over_context skip or truncate, the workload held "
                 "whole; for trace-stats the trace's requests; nothing was written\n");
    return kBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lynxsim: internal error: %s\n", lynx::printable(e.what()).c_str());
    return kInternalError;
  }
  return 0;
}
