// lynxsim bench-kernels: measures every KV kernel (encode, decode, attention) for every format on the CPU or a
// CUDA GPU and writes the cost table the simulator reads (kernels/costs/<device>.json); or derives a stand-in table
// from a GPU's datasheet bandwidth (--device datasheet), marked as not measured.
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "common/enum_names.hpp"
#include "common/output_paths.hpp"
#include "common/error.hpp"
#include "kernels/cost_table.hpp"
#include "kernels/kernel_bench.hpp"
#include "kernels/kv_format.hpp"
#if defined(LYNX_HAVE_CUDA)
#include "kernels/cuda/kernel_bench_cuda.hpp"
#endif

namespace lynx {

namespace {
enum class BenchDevice { cpu, cuda, datasheet };
constexpr auto kBenchDeviceNames = enum_names<BenchDevice>(
    {{BenchDevice::cpu, "cpu"}, {BenchDevice::cuda, "cuda"}, {BenchDevice::datasheet, "datasheet"}});

struct BenchKernelsOptions {
  BenchDevice device = BenchDevice::cpu;
  std::string out;
  KernelBenchOptions bench;
  std::string device_name = "NVIDIA H200";
  double hbm_bytes_per_s = 4.8e12;
  double copy_efficiency = 0.9;
  double kernel_efficiency = 0.7;
  std::string note;
};

void run_bench_kernels(const BenchKernelsOptions& o) {
  const std::vector<std::string> formats = o.bench.formats.empty() ? kernel_bench_default_formats() : o.bench.formats;
  for (const auto& name : formats) kv_format_parse(name);  // reject a bad name before measuring anything
  if (!o.out.empty()) output_rule_check_file("--out", o.out);  // common/output_paths.hpp
  CostTable table;
  if (o.device == BenchDevice::cpu) {
    table = kernel_bench_cpu(o.bench, stderr);
  } else if (o.device == BenchDevice::cuda) {
#if defined(LYNX_HAVE_CUDA)
    table = kernel_bench_cuda(o.bench, stderr);
#else
    throw_error("bench-kernels: this lynxsim was built without CUDA (configure with -DLYNX_CUDA=ON and nvcc)");
#endif
  } else {
    table = cost_table_from_datasheet(o.device_name, o.hbm_bytes_per_s, o.copy_efficiency, o.kernel_efficiency,
                                      formats);
    if (!o.note.empty()) table.derived_from += "; " + o.note;
  }
  cost_table_check_complete(table, formats);
  print_cost_table(table, stdout);
  if (!o.out.empty()) {
    save_cost_table(table, o.out);
    std::fprintf(stderr, "bench-kernels: wrote %s\n", o.out.c_str());
  }
}
}  // namespace

void add_bench_kernels_command(CLI::App& app) {
  auto o = std::make_shared<BenchKernelsOptions>();
  CLI::App* cmd = app.add_subcommand(
      "bench-kernels", "Measure the KV kernels (encode, decode, attention) of every format; write the cost table");
  cmd->add_option("--device", o->device, "cpu, cuda, or datasheet (a table derived from --hbm-bytes-per-s)")
      ->transform(CLI::CheckedTransformer(enum_name_map(kBenchDeviceNames)));
  cmd->add_option("--out", o->out, "Write the cost table (JSON) here, e.g. kernels/costs/cpu.json");
  cmd->add_flag("--quick", o->bench.quick, "Tiny sizes, 2 repeats: checks the table is complete, measures nothing");
  cmd->add_option("--format", o->bench.formats, "KV format, repeatable (default: a standard set); " +
                                                    kv_format_grammar());
  cmd->add_option("--kv-mib", o->bench.kv_mib, "MiB of K+V source tensors per case (default 64 CPU, 1024 GPU)")
      ->check(CLI::Range(1, 1 << 16));
  cmd->add_option("--repeats", o->bench.repeats, "Timed runs per figure, median taken (default 5 CPU, 10 GPU)")
      ->check(CLI::Range(1, 1000));
  cmd->add_option("--warmup", o->bench.warmup, "Untimed runs first (default 1 CPU, 2 GPU)")->check(CLI::Range(1, 1000));
  cmd->add_option("--device-name", o->device_name, "datasheet: the device's name")->capture_default_str();
  cmd->add_option("--hbm-bytes-per-s", o->hbm_bytes_per_s, "datasheet: memory bandwidth in bytes/s")
      ->check(CLI::Range(1e9, 1e15))
      ->capture_default_str();
  cmd->add_option("--copy-efficiency", o->copy_efficiency, "datasheet: a copy's share of that bandwidth")
      ->check(CLI::Range(0.01, 1.0))
      ->capture_default_str();
  cmd->add_option("--kernel-efficiency", o->kernel_efficiency, "datasheet: each kernel's share of the copy's")
      ->check(CLI::Range(0.01, 1.0))
      ->capture_default_str();
  cmd->add_option("--note", o->note, "datasheet: appended to the table's derived_from (where the figures come from)");
  cmd->callback([o] { run_bench_kernels(*o); });
}

}  // namespace lynx
