// lynxsim: a simulator of disaggregated LLM inference with Lynx's split-stream KV transfer (see DESIGN.md).
#include <cstdio>
#include <exception>

#include "app/commands.hpp"
#include "common/error.hpp"

int main(int argc, char** argv) {
  CLI::App app{"lynxsim: simulate disaggregated LLM inference where the KV cache crosses the network"};
  app.set_version_flag("--version", std::string("lynxsim ") + LYNX_VERSION);
  app.require_subcommand(1);
  lynx::add_kv_size_command(app);
  lynx::add_trace_stats_command(app);
  lynx::add_simulate_command(app);
  lynx::add_run_command(app);
  lynx::add_accuracy_command(app);
  lynx::add_bench_kernels_command(app);
  lynx::add_validate_command(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const lynx::LynxError& e) {
    std::fprintf(stderr, "lynxsim: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "lynxsim: internal error: %s\n", e.what());
    return 2;
  }
  return 0;
}
