// `lynxsim validate`'s leave-one-GPU-out group: each GPU AIConfigurator measured has its kernel tables derived from
// another measured GPU's by the derivation rule (models/cost/engine/gpu_derivation.hpp) and compared, point by point,
// with its own measurements: every point of the target's table (vLLM 0.24's GEMM, context and generation attention
// and MoE tables, NCCL's all-reduce) whose shape the source GPU's table covers (interpolated there as the cost model
// looks it up; a point beyond the source's grid is skipped). Per family and pair: the median and 90th percentile of
// |derived / measured - 1|, for the rule and for the peak-ratio rule it replaced. Targets: median <= 10%, p90 <= 25%.
#pragma once
#include <string>
#include <vector>

#include "models/arch/catalog.hpp"

namespace lynx {

struct DerivationCheck {
  std::string family;  // kernel_family_name
  std::string source_gpu, target_gpu;
  int points = 0;
  double median_percent = 0, p90_percent = 0;            // the bottleneck rule
  double old_median_percent = 0, old_p90_percent = 0;    // the peak-ratio rule
  double bias_percent = 0;  // the bottleneck rule's median of derived / measured - 1 (signed: > 0 derives slower)
};

// `aic_root`: the aiconfigurator folder; `gpus`: the catalog (the measured GPUs' datasheet figures).
std::vector<DerivationCheck> gpu_derivation_checks(const std::string& aic_root, const std::vector<GpuSpec>& gpus);

}  // namespace lynx
