#include "models/validation/gpu_derivation_validation.hpp"

#include <algorithm>
#include <cmath>
#include <memory>

#include "models/cost/engine/aic_database.hpp"
#include "models/cost/engine/gpu_derivation.hpp"

namespace lynx {

namespace {

struct FamilyTable {
  KernelFamily family;
  const char* table;  // AicDatabase family
  KernelWork (*work)(const AicAxes&);
};

KernelWork gemm_of(const AicAxes& x) { return gemm_work(x[2], x[0], x[1], false); }
KernelWork context_of(const AicAxes& x) { return context_attention_work(x[3], x[4], x[2], x[1], x[0]); }
KernelWork generation_of(const AicAxes& x) { return generation_attention_work(x[3], x[4], x[2], x[1], x[0]); }
KernelWork moe_of(const AicAxes& x) { return moe_work(x[6], x[0], x[1], x[2], x[3], x[4], x[5], false); }
KernelWork allreduce_of(const AicAxes& x) { return allreduce_work(x[1], static_cast<int>(x[0])); }

const FamilyTable kFamilies[] = {
    {KernelFamily::gemm, "gemm", gemm_of},
    {KernelFamily::context_attention, "context_attention", context_of},
    {KernelFamily::generation_attention, "generation_attention", generation_of},
    {KernelFamily::moe, "moe:bfloat16", moe_of},
    {KernelFamily::allreduce, "nccl_allreduce", allreduce_of},
};

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
}

std::unique_ptr<AicDatabase> database(const std::string& root, const GpuSpec& g) {
  return std::make_unique<AicDatabase>(root, aic_gpu_folder(g.name), ServingEngine::vllm,
                                       AicPeaks{g.bf16_dense_tflops, g.fp8_dense_tflops, g.hbm_gb_per_s,
                                                g.nvlink_gb_per_s});
}

}  // namespace

std::vector<DerivationCheck> gpu_derivation_checks(const std::string& aic_root, const std::vector<GpuSpec>& gpus) {
  const std::pair<const char*, const char*> pairs[] = {
      {"h100-sxm", "h200-sxm"}, {"h200-sxm", "h100-sxm"}, {"h200-sxm", "b200-sxm"}, {"h100-sxm", "b200-sxm"}};
  std::vector<DerivationCheck> out;
  for (const auto& [from, to] : pairs) {
    const GpuSpec& source = find_gpu(gpus, from);
    const GpuSpec& target = find_gpu(gpus, to);
    const auto source_db = database(aic_root, source), target_db = database(aic_root, target);
    for (const FamilyTable& f : kFamilies) {
      std::vector<double> errors, old_errors, signed_errors;
      const AicGrid& source_grid = source_db->grid(f.table);
      const AicRoofline flat = [](const AicAxes&) { return 1.0; };  // unused: points beyond the grid are skipped
      target_db->grid(f.table).for_each_point([&](const AicAxes& x, double measured_ms) {
        bool beyond = false;
        const double source_ms = source_grid.at_ms(x, flat, &beyond);
        if (beyond) return;
        const KernelWork w = f.work(x);
        const double ratio = derive_kernel_ms(f.family, w, source_ms, source, target) / measured_ms;
        errors.push_back(std::fabs(ratio - 1));
        signed_errors.push_back(ratio - 1);
        old_errors.push_back(std::fabs(
            derive_kernel_ms(f.family, w, source_ms, source, target, DerivationRule::peak_ratio) / measured_ms - 1));
      });
      DerivationCheck c;
      c.family = kernel_family_name(f.family);
      c.source_gpu = from;
      c.target_gpu = to;
      c.points = static_cast<int>(errors.size());
      c.median_percent = 100 * quantile(errors, 0.5);
      c.p90_percent = 100 * quantile(errors, 0.9);
      c.old_median_percent = 100 * quantile(old_errors, 0.5);
      c.old_p90_percent = 100 * quantile(old_errors, 0.9);
      c.bias_percent = 100 * quantile(signed_errors, 0.5);
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace lynx
