#include "models/cost/engine/gpu_derivation.hpp"

#include <algorithm>

#include "common/error.hpp"

namespace lynx {

namespace {
// AIConfigurator's systems/<gpu>.yaml, mem_empirical_constant_latency: 3 us per kernel (the same on H100, H200, B200).
constexpr double kKernelFloorMs = 3e-3;
// A collective's latency floor, as aic_database.cpp's roofline beyond the grid takes it: the smallest custom
// all-reduce rows of the H100 tables are 2.6-4.6 us.
constexpr double kCollectiveFloorMs = 5e-3;

double tensor_peak_flops(const GpuSpec& g, bool fp8) {
  const double tflops = fp8 && g.fp8_dense_tflops > 0 ? g.fp8_dense_tflops : g.bf16_dense_tflops;
  return tflops * 1e12;
}
}  // namespace

KernelWork gemm_work(double m, double n, double k, bool fp8) {
  const double in = fp8 ? 1 : 2;
  return {2 * m * n * k, in * (m * k + n * k) + 2 * m * n, 0, fp8};
}

KernelWork context_attention_work(double batch, double isl, double heads, double kv_heads, double head_dim) {
  const double pairs = isl * (isl + 1) / 2;  // causal query-key pairs
  return {batch * heads * pairs * 2 * 2 * head_dim, 2 * batch * isl * head_dim * (2 * heads + 2 * kv_heads), 0, false};
}

KernelWork generation_attention_work(double batch, double kv_tokens, double heads, double kv_heads, double head_dim) {
  return {batch * heads * kv_tokens * 2 * 2 * head_dim, 2 * batch * kv_tokens * 2 * kv_heads * head_dim, 0, false};
}

KernelWork moe_work(double tokens, double hidden, double inter, double topk, double experts, double moe_tp,
                    double moe_ep, bool fp8) {
  const double width = inter / moe_tp;
  const double routed = tokens * topk / moe_ep;  // token-expert pairs on this GPU
  const double reached = std::min(experts, tokens * topk) / moe_ep;
  const double in = fp8 ? 1 : 2;
  return {2 * routed * 3 * hidden * width, reached * 3 * hidden * width * in + 2 * 2 * tokens * hidden, 0, fp8};
}

KernelWork mla_context_work(double batch, double isl, double heads) {
  const double pairs = isl * (isl + 1) / 2;
  return {batch * heads * pairs * 2 * (192 + 128), 2 * batch * isl * heads * (192 + 192 + 128 + 128), 0, false};
}

KernelWork mla_generation_work(double batch, double kv_tokens, double heads) {
  return {batch * heads * kv_tokens * 2 * (576 + 512), 2 * batch * kv_tokens * 576, 0, false};
}

KernelWork allreduce_work(double elements, int gpus) {
  const double g = gpus;
  return {0, 0, 2.0 * (g - 1) / g * 2 * elements, false};
}

double derive_kernel_ms(KernelFamily family, const KernelWork& w, double measured_ms, const GpuSpec& measured,
                        const GpuSpec& target, DerivationRule rule) {
  if (!(measured_ms > 0)) throw_internal_error("derive_kernel_ms: a measured time must be positive, got %g", measured_ms);
  const double p_m = tensor_peak_flops(measured, w.fp8), p_t = tensor_peak_flops(target, w.fp8);
  const double bw_m = measured.hbm_gb_per_s * 1e9, bw_t = target.hbm_gb_per_s * 1e9;
  const double nvl_m = measured.nvlink_gb_per_s * 1e9, nvl_t = target.nvlink_gb_per_s * 1e9;
  if (rule == DerivationRule::peak_ratio) {
    switch (family) {
      case KernelFamily::gemm:
      case KernelFamily::moe: {
        auto roof = [&](double p, double bw) { return std::max(w.flops / p, w.hbm_bytes / bw); };
        return measured_ms * roof(p_t, bw_t) / roof(p_m, bw_m);
      }
      case KernelFamily::context_attention: return measured_ms * p_m / p_t;
      case KernelFamily::generation_attention: return measured_ms * bw_m / bw_t;
      case KernelFamily::allreduce: {
        auto roof = [&](double nvl) { return kCollectiveFloorMs * 1e-3 + w.link_bytes / nvl; };
        return measured_ms * roof(nvl_t) / roof(nvl_m);
      }
    }
    throw_internal_error("derive_kernel_ms: unknown family");
  }
  if (family == KernelFamily::allreduce) {
    const double floor = std::min(measured_ms, kCollectiveFloorMs);
    return floor + (measured_ms - floor) * nvl_m / nvl_t;
  }
  const double floor = std::min(measured_ms, kKernelFloorMs);
  const double above = measured_ms - floor;
  const double compute = std::min(above, w.flops / p_m * 1e3);
  const double memory = std::min(above - compute, w.hbm_bytes / bw_m * 1e3);
  const double other = above - compute - memory;
  // The SMs' own throughput: the non-tensor FP32 peaks where both GPUs give one, else the tensor peaks.
  const bool sm_given = measured.fp32_tflops > 0 && target.fp32_tflops > 0;
  const double sm_ratio = sm_given ? measured.fp32_tflops / target.fp32_tflops : p_m / p_t;
  return floor + compute * p_m / p_t + other * sm_ratio + memory * bw_m / bw_t;
}

std::string derivation_rule_text() {
  return "each kernel's measured time as a 3 us launch floor (AIConfigurator's mem_empirical_constant_latency), its "
         "FLOPs at the tensor peak, its HBM bytes at full bandwidth and the rest; the FLOPs scaled by the tensor "
         "peaks' ratio, the bytes by the HBM bandwidths', the rest by the FP32 (SM) peaks' (the tensor peaks' where "
         "a GPU gives none); all-reduce as a 5 us floor + the rest by the NVLink bandwidths' ratio";
}

}  // namespace lynx
