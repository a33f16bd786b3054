// bench_kernels: the kernel benchmark as a standalone program (what `make bench` runs, and what the GPU check runs
// on a machine without the simulator's dependencies): the same measurement as `lynxsim bench-kernels`.
//   bench_kernels [--device cpu|cuda] [--quick] [--out FILE.json] [--kv-mib N] [--repeats N] [--format NAME]...
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>

#include "common/error.hpp"
#include "kernels/cost_table.hpp"
#include "kernels/kernel_bench.hpp"
#if defined(LYNX_HAVE_CUDA)
#include "kernels/cuda/kernel_bench_cuda.hpp"
#endif

namespace {
int usage() {
  std::fprintf(stderr, "usage: bench_kernels [--device cpu|cuda] [--quick] [--out FILE.json] [--kv-mib N] "
                       "[--repeats N] [--warmup N] [--format NAME]...\n");
  return 2;
}
}  // namespace

int main(int argc, char** argv) {
  std::string device = "cpu", out;
  lynx::KernelBenchOptions options;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--quick") {
      options.quick = true;
    } else if (arg == "--device" && has_value) {
      device = argv[++i];
    } else if (arg == "--out" && has_value) {
      out = argv[++i];
    } else if (arg == "--kv-mib" && has_value) {
      options.kv_mib = std::atof(argv[++i]);
    } else if (arg == "--repeats" && has_value) {
      options.repeats = std::atoi(argv[++i]);
    } else if (arg == "--warmup" && has_value) {
      options.warmup = std::atoi(argv[++i]);
    } else if (arg == "--format" && has_value) {
      options.formats.push_back(argv[++i]);
    } else {
      return usage();
    }
  }
  try {
    lynx::CostTable table;
    if (device == "cpu") {
      table = lynx::kernel_bench_cpu(options, stderr);
    } else if (device == "cuda") {
#if defined(LYNX_HAVE_CUDA)
      table = lynx::kernel_bench_cuda(options, stderr);
#else
      lynx::throw_error("built without CUDA");
#endif
    } else {
      return usage();
    }
    lynx::cost_table_check_complete(table, options.formats.empty() ? lynx::kernel_bench_default_formats()
                                                                   : options.formats);
    lynx::print_cost_table(table, stdout);
    if (!out.empty()) lynx::save_cost_table(table, out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_kernels: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
