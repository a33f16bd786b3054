// The GPU half of the kernel benchmark (see kernel_bench.hpp): the CUDA kernels of kv_cuda.hpp timed with CUDA
// events on device 0, next to a device-to-device copy of the same bytes, at sizes far beyond the L2 cache
// (default 1 GiB of bf16 K+V per case).
#pragma once
#include <cstdio>

#include "kernels/cost_table.hpp"
#include "kernels/kernel_bench.hpp"

namespace lynx {

// Throws LynxError when there is no CUDA device.
CostTable kernel_bench_cuda(const KernelBenchOptions& options, FILE* progress);

}  // namespace lynx
