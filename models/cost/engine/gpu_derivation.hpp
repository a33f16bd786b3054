// A kernel's time on a GPU AIConfigurator never measured, derived from its measured time on another GPU by what
// the kernel spends its time on (the rule `sources` names for every derived GPU):
//   measured  t = floor + compute + memory + other
//     floor    the kernel's fixed launch and latency cost, which no datasheet figure moves: AIConfigurator's own
//              mem_empirical_constant_latency, 3 us per kernel (its systems/<gpu>.yaml);
//     compute  the kernel's FLOPs at the measured GPU's dense tensor peak (bf16, or fp8 for fp8 operands): the least
//              time its math can take there, capped at t - floor;
//     memory   its HBM bytes at the measured GPU's full bandwidth, capped at what is left;
//     other    the rest: prologue and epilogue, softmax and other non-tensor math, waves that do not fill the GPU,
//              synchronisation; it runs on the same SMs as the math;
//   derived   floor + compute x (tensor_measured / tensor_target) + other x (fp32_measured / fp32_target)
//             + memory x (HBM_measured / HBM_target), the FP32 (non-tensor) peaks standing for the SMs' own
//             throughput (the tensor peaks where a GPU's entry gives no FP32 figure);
//   a collective: a 5 us latency floor + the rest x (NVLink_measured / NVLink_target).
// So a kernel that reaches 45% of an H100's tensor peak grows on an H20 (tensor peak 6.7x lower, FP32 1.5x lower, HBM
// 1.2x higher) mostly by its compute part and runs much nearer the H20's peak, where the rule
// it replaces (peak_ratio: the whole time by one ratio per family, GEMMs and MoE by their roofline max(FLOPs / peak,
// bytes / HBM), context attention by the tensor peak, generation attention by the HBM bandwidth, collectives by
// floor + bytes / NVLink) kept the H100's 45%. `lynxsim validate`'s GPU-derivation group derives each measured GPU's
// tables from another's and compares both rules (models/validation/gpu_derivation_validation.hpp).
#pragma once
#include <array>
#include <cstddef>
#include <string>

#include "common/enum_names.hpp"

#include "models/arch/catalog.hpp"

namespace lynx {

enum class KernelFamily { gemm, context_attention, generation_attention, moe, allreduce };
struct KernelFamilyInfo {
  KernelFamily value;
  const char* name;   // as configurations and profiles key it: "gemm", "context_attention", ...
  const char* label;  // in tables and messages: "GEMM", "context attention", ...
};
inline constexpr auto kKernelFamilyTable = enum_table<KernelFamilyInfo>({
    {KernelFamily::gemm, "gemm", "GEMM"},
    {KernelFamily::context_attention, "context_attention", "context attention"},
    {KernelFamily::generation_attention, "generation_attention", "generation attention"},
    {KernelFamily::moe, "moe", "MoE"},
    {KernelFamily::allreduce, "allreduce", "all-reduce"},
});
constexpr const char* kernel_family_name(KernelFamily family) { return kKernelFamilyTable[family].label; }
constexpr const char* kernel_family_key(KernelFamily family) { return kKernelFamilyTable.name(family); }
// Every family, in declaration order.
inline constexpr auto kKernelFamilies = [] {
  std::array<KernelFamily, kKernelFamilyTable.size()> all{};
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<KernelFamily>(i);
  return all;
}();

// A deployment's kernel time per family over the tables' (a pool's kernel_family_factors; `lynxsim calibrate
// --fit-kernel-families` fits them): 1 is the tables as measured.
struct KernelFamilyFactors {
  std::array<double, kKernelFamilyTable.size()> factor = [] {
    std::array<double, kKernelFamilyTable.size()> ones{};
    ones.fill(1);
    return ones;
  }();
  double& operator[](KernelFamily f) { return factor[static_cast<size_t>(f)]; }
  double operator[](KernelFamily f) const { return factor[static_cast<size_t>(f)]; }
  bool all_one() const {
    for (double x : factor)
      if (x != 1) return false;
    return true;
  }
};

enum class DerivationRule { bottleneck, peak_ratio };

// What a kernel does, from its shape: FLOPs, HBM bytes, and (collectives) bytes over the GPU links.
struct KernelWork {
  double flops = 0;
  double hbm_bytes = 0;
  double link_bytes = 0;
  bool fp8 = false;  // fp8 operands: the fp8 tensor peak
};

KernelWork gemm_work(double m, double n, double k, bool fp8);
// One causal prefill of `isl` tokens per sequence: QK and PV over half the square.
KernelWork context_attention_work(double batch, double isl, double heads, double kv_heads, double head_dim);
// One decode token per sequence over `kv_tokens` cached tokens: K and V read once.
KernelWork generation_attention_work(double batch, double kv_tokens, double heads, double kv_heads, double head_dim);
// A fused MoE layer at balanced routing: the routed tokens' three GEMMs on this GPU's experts and width, the weights
// of the experts they reach read once.
KernelWork moe_work(double tokens, double hidden, double inter, double topk, double experts, double moe_tp,
                    double moe_ep, bool fp8);
// MLA (DeepSeek's 128-dim nope + 64-dim rope keys, 128-dim values, 512-dim latent): prefill over the expanded keys
// and values, decode over the latent cache (576 values per token).
KernelWork mla_context_work(double batch, double isl, double heads);
KernelWork mla_generation_work(double batch, double kv_tokens, double heads);
// A ring all-reduce of `elements` bf16 values over `gpus` GPUs: 2 (g - 1) / g of the message each way per GPU.
KernelWork allreduce_work(double elements, int gpus);

// The kernel's time (ms) on `target` from `measured_ms` on `measured`, by `rule` (above).
double derive_kernel_ms(KernelFamily family, const KernelWork& work, double measured_ms, const GpuSpec& measured,
                        const GpuSpec& target, DerivationRule rule = DerivationRule::bottleneck);

// The rule in words, for `sources`.
std::string derivation_rule_text();

}  // namespace lynx
