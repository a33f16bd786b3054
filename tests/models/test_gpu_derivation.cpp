// The GPU derivation rule (models/cost/engine/gpu_derivation.hpp) by hand, and its leave-one-GPU-out check
// (models/validation/gpu_derivation_validation.hpp) against the targets between the Hopper GPUs.
#include <doctest/doctest.h>

#include "models/arch/catalog.hpp"
#include "models/cost/engine/gpu_derivation.hpp"
#include "models/readers/csv_table.hpp"
#include "models/validation/gpu_derivation_validation.hpp"

using namespace lynx;

namespace {
GpuSpec gpu(double tensor_tflops, double fp32_tflops, double hbm_gb_per_s, double nvlink_gb_per_s) {
  GpuSpec g;
  g.name = "test";
  g.bf16_dense_tflops = tensor_tflops;
  g.fp32_tflops = fp32_tflops;
  g.hbm_gb_per_s = hbm_gb_per_s;
  g.nvlink_gb_per_s = nvlink_gb_per_s;
  return g;
}
}  // namespace

TEST_CASE("derivation by hand: floor, FLOPs at the tensor peak, bytes at full HBM bandwidth, the rest on the SMs") {
  const GpuSpec from = gpu(1000, 50, 2000, 400), to = gpu(100, 25, 4000, 100);
  // 1 ms measured: 3 us floor, 0.5 ms of FLOPs (5e11 at 1e15/s), 0.2 ms of bytes (4e8 at 2e12/s), 0.297 ms other
  const KernelWork w{5e11, 4e8, 0, false};
  const double expected = 0.003 + 0.5 * 10 + 0.2 * 0.5 + 0.297 * 2;
  CHECK(derive_kernel_ms(KernelFamily::gemm, w, 1.0, from, to) == doctest::Approx(expected).epsilon(1e-12));
  // the same GPU: the measured time
  CHECK(derive_kernel_ms(KernelFamily::moe, w, 1.0, from, from) == doctest::Approx(1.0).epsilon(1e-12));
  // FLOPs beyond the measured time are capped: all of it compute
  CHECK(derive_kernel_ms(KernelFamily::gemm, {5e12, 0, 0, false}, 1.0, from, to) ==
        doctest::Approx(0.003 + 0.997 * 10).epsilon(1e-12));
  // a kernel under the floor keeps its time
  CHECK(derive_kernel_ms(KernelFamily::gemm, w, 0.002, from, to) == doctest::Approx(0.002).epsilon(1e-12));
  // no FP32 figure on either side: the rest by the tensor peaks
  const GpuSpec no_fp32 = gpu(100, 0, 4000, 100);
  CHECK(derive_kernel_ms(KernelFamily::gemm, w, 1.0, from, no_fp32) ==
        doctest::Approx(0.003 + 0.5 * 10 + 0.2 * 0.5 + 0.297 * 10).epsilon(1e-12));
  // an all-reduce: a 5 us floor and the rest by NVLink
  CHECK(derive_kernel_ms(KernelFamily::allreduce, allreduce_work(1e6, 8), 0.105, from, to) ==
        doctest::Approx(0.005 + 0.1 * 4).epsilon(1e-12));
  // the peak-ratio rule it replaced: one ratio per family
  CHECK(derive_kernel_ms(KernelFamily::context_attention, w, 1.0, from, to, DerivationRule::peak_ratio) ==
        doctest::Approx(10).epsilon(1e-12));
  CHECK(derive_kernel_ms(KernelFamily::generation_attention, w, 1.0, from, to, DerivationRule::peak_ratio) ==
        doctest::Approx(0.5).epsilon(1e-12));
  CHECK(derive_kernel_ms(KernelFamily::gemm, w, 1.0, from, to, DerivationRule::peak_ratio) ==
        doctest::Approx(5e11 / 1e14 / (5e11 / 1e15)).epsilon(1e-12));
}

TEST_CASE("work by hand: GEMM, causal prefill attention, decode attention, MoE, ring all-reduce") {
  const KernelWork g = gemm_work(4, 8, 16, false);
  CHECK(g.flops == 2 * 4 * 8 * 16);
  CHECK(g.hbm_bytes == 2 * (4 * 16 + 8 * 16) + 2 * 4 * 8);
  const KernelWork c = context_attention_work(1, 3, 2, 1, 4);  // 6 query-key pairs, 2 heads, dim 4
  CHECK(c.flops == 6 * 2 * 4 * 4);
  const KernelWork d = generation_attention_work(2, 10, 8, 2, 4);  // K and V of 10 tokens, 2 KV heads, 2 sequences
  CHECK(d.hbm_bytes == 2 * 2 * 10 * 2 * 2 * 4);
  const KernelWork m = moe_work(4, 16, 32, 2, 8, 2, 1, false);  // 8 routed pairs, width 16
  CHECK(m.flops == 2 * 8 * 3 * 16 * 16);
  CHECK(allreduce_work(1000, 4).link_bytes == doctest::Approx(2.0 * 3 / 4 * 2 * 1000));
}

TEST_CASE("leave one GPU out: between H100 and H200 every family meets median 10% and p90 25%, better than peak ratios") {
  const auto checks = gpu_derivation_checks(calibration_dir() + "/aiconfigurator",
                                            load_gpu_catalog(default_gpu_catalog_path()));
  REQUIRE(checks.size() == 20);
  int hopper = 0;
  for (const DerivationCheck& c : checks) {
    CAPTURE(c.family);
    CAPTURE(c.source_gpu);
    CAPTURE(c.target_gpu);
    CHECK(c.points > 50);
    if (c.target_gpu == "b200-sxm") continue;
    ++hopper;
    CHECK(c.median_percent <= 10);
    CHECK(c.p90_percent <= 25);
  }
  CHECK(hopper == 10);
  // GEMMs and decode attention: the peak-ratio rule was far off between H100 and H200
  for (const DerivationCheck& c : checks)
    if ((c.family == "GEMM" || c.family == "generation attention") && c.target_gpu != "b200-sxm")
      CHECK(c.old_median_percent > 2 * c.median_percent);
}
