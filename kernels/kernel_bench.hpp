// The kernel benchmark behind `lynxsim bench-kernels`: times every kernel of cost_table.hpp for every KV format on
// one device and returns the cost table the simulator reads. Each figure is the median of `repeats` runs after
// `warmup` runs, at a size that leaves the caches, next to the device's own copy bandwidth measured in the same run
// (single-threaded memcpy on the CPU; kernel_bench_cuda does the GPU). On the CPU the kernels are the reference
// codecs (kv_encode/kv_decode, float in and out) and the reference attention, timed by the thread's CPU time so that
// other processes on a shared machine do not count.
#pragma once
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/cost_table.hpp"

namespace lynx {

struct KernelBenchOptions {
  std::vector<std::string> formats;  // empty: kernel_bench_default_formats()
  bool quick = false;                // tiny sizes and 2 repeats: a functional check of the table, not a measurement
  double kv_mib = 0;                 // MiB of K+V source tensors per case; 0: 64 on the CPU, 1024 on a GPU
  int repeats = 0;                   // timed runs per figure; 0: 5 on the CPU, 10 on a GPU
  int warmup = 0;                    // untimed runs first; 0: 1 on the CPU, 2 on a GPU
};

// bf16, fp8-e4m3, int8/int4 (g64, and g32/g128 for int4), kivi2-g32, lynx-a4r4 in g32/g64/g128, bit-slice and -rq.
std::vector<std::string> kernel_bench_default_formats();

// Benchmarks the CPU reference kernels; progress lines go to `progress` (may be null).
CostTable kernel_bench_cpu(const KernelBenchOptions& options, FILE* progress);

// A table derived from a datasheet's memory bandwidth instead of measured: the copy moves copy_efficiency x
// hbm_bytes_per_s (read + write), each kernel moves its bytes (read + written, exact for each format) at
// kernel_efficiency x the copy's bandwidth. measured = false and derived_from says all this.
CostTable cost_table_from_datasheet(const std::string& device, double hbm_bytes_per_s, double copy_efficiency,
                                    double kernel_efficiency, const std::vector<std::string>& formats);

// One entry from what was timed: `elements` K/V elements, `input_bytes` read and `output_bytes` written per run.
KernelCost kernel_cost(const std::string& kernel, const std::string& format, int64_t elements, double input_bytes,
                       double output_bytes, double median_s, double copy_bytes_per_s);

// Bytes a kernel reads and writes per run for `batch` sequences of `tokens` tokens (K and V, kv_heads x head_dim),
// with the source tensors' elements of `source_bytes` bytes (4 for float, 2 for bf16).
struct KernelBytes {
  double input = 0, output = 0;
};
KernelBytes kernel_bytes(const std::string& kernel, const std::string& format, int64_t batch, int64_t tokens,
                         int64_t kv_heads, int64_t n_heads, int64_t head_dim, int source_bytes);

// The table as text: one line per kernel and format with its throughput and ratios to the copy, then the targets
// (CPU: encode >= 0.3 of memcpy; GPU: encode and decode >= 0.7 of the copy's bandwidth; attention over a Lynx
// anchor reads <= 0.3 of the bytes bf16 attention reads) and whether each is met.
void print_cost_table(const CostTable& table, FILE* out);

// Today's date in UTC, YYYY-MM-DD.
std::string today_utc();
// The median of `values` (not empty).
double median_of(std::vector<double> values);

}  // namespace lynx
