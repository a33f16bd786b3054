// Chooses an instance's compute cost model from the configuration's `compute_model`:
//   "profiled": the published measurements (profiled/profiled_cost.hpp); an error if they do not cover the GPU
//               (measured, or derived from the measured GPU nearest by datasheet peaks) and the model's shape;
//   "roofline": the roofline (cost_model.hpp);
//   "auto" (the default): profiled where the measurements cover the GPU and shape, else the roofline.
// The measurements are of dense GQA layers: a MoE, MLA or sliding-window model is not covered (roofline under auto,
// an error under profiled) until measured tables for those layers come (the engines issue).
// With an AIConfigurator engine, "auto" and "profiled" mean that engine's tables, MoE layers included (an MLA or
// sliding-window model takes the roofline under auto, is an error under profiled); "roofline" is the roofline.
// The chosen model's source() says which, from what, and (profiled) whether it was derived or extrapolated.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "common/enum_names.hpp"
#include "models/arch/catalog.hpp"
#include "models/cost/engine/gpu_derivation.hpp"
#include "models/cost/roofline/cost_model.hpp"
#include "models/cost/serving_engine.hpp"
#include "models/cost/step_cost.hpp"

namespace lynx {

// The configuration's compute_model and its names.
enum class ComputeModelKind { automatic, profiled, roofline };
inline constexpr auto kComputeModelNames = enum_names<ComputeModelKind>({{ComputeModelKind::automatic, "auto"},
                                                                        {ComputeModelKind::profiled, "profiled"},
                                                                        {ComputeModelKind::roofline, "roofline"}});

struct ComputeChoice {
  ComputeModelKind model = ComputeModelKind::automatic;
  WeightsDtype weights = WeightsDtype::bf16;
  std::string profiles_manifest;        // "" = models/catalog/profiles.json
  std::string calibration_dir;          // "" = calibration_dir()
  // The pool's serving engine (serving_engine.hpp): vidur-2024, the measurements above (vidur's sarathi-serve, BLIS,
  // NCCL); or an engine whose own kernels AIConfigurator measured, composed by engine/engine_cost.hpp from the GPU's
  // tables (or the nearest GPU with tables, derived op by op).
  ServingEngine engine = ServingEngine::vidur_2024;
  // The KV cache is fp8 (a named engine's fp8-KV attention tables; the other models ignore it: their attention
  // over a quantized cache is weighted by the kernel cost table instead).
  bool fp8_kv_cache = false;
  // A named engine's kernel time per family over its tables' (the pool's kernel_family_factors).
  KernelFamilyFactors kernel_family_factors;
};

// `gpus` is the catalog the GPU came from (to find the nearest measured GPU for a GPU without measurements).
std::shared_ptr<const StepCostModel> make_step_cost(const ModelSpec& model, const GpuSpec& gpu,
                                                    const std::vector<GpuSpec>& gpus, int tensor_parallel,
                                                    const ComputeChoice& choice, MoeParallel moe = {});

class EngineCostModel;
// The engine-composed model itself (no coverage checks, no fallback): the GPU's AIConfigurator tables, or the
// nearest GPU's with tables, derived. `data_dir`: the calibration folder. For validation and tests.
std::shared_ptr<const EngineCostModel> make_engine_cost(const ModelSpec& model, const GpuSpec& gpu,
                                                        const std::vector<GpuSpec>& gpus, int tensor_parallel,
                                                        WeightsDtype weights, ServingEngine engine,
                                                        const std::string& data_dir, bool fp8_kv_cache = false,
                                                        int expert_parallel = 1,
                                                        const KernelFamilyFactors& family_factors = {});

// The engine of an AIConfigurator-measured name ("vllm-0.24", ...); a LynxError "engine "NAME": not one of" those
// otherwise (make_engine_cost refuses vidur-2024 with the same words).
ServingEngine aic_engine_parse(const std::string& name);

// The measured GPU a profile is taken from for `gpu`: itself if measured, else the measured GPU of the catalog
// nearest in (log bf16 peak, log HBM bandwidth). "" when no GPU is measured.
std::string profile_gpu_for(const GpuSpec& gpu, const std::vector<GpuSpec>& gpus,
                            const std::vector<std::string>& measured);

}  // namespace lynx
