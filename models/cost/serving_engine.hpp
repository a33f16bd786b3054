// The serving engines a pool may name (`cluster.prefill.engine`, `cluster.decode.engine`), declared once: the
// configuration's choice, the compute model chosen for it (compute_model.hpp), the AIConfigurator tables read for it
// (engine/aic_database.hpp), the validation rows that name it (models/validation/*_published.tsv) and the summary
// all go through this table.
//   vidur-2024     vidur's 2024 measurements (sarathi-serve layers, BLIS attention, NCCL, Ray-era host overheads),
//                  the profiled model (profiled/profiled_cost.hpp)
//   vllm-0.24, sglang-0.5.14, trtllm-1.3
//                  that engine's own kernels measured by NVIDIA AIConfigurator (engine/engine_cost.hpp), at the
//                  versions kept in the data folder (its calibration/aiconfigurator/README.md)
#pragma once
#include "common/enum_names.hpp"

namespace lynx {

enum class ServingEngine { vidur_2024, vllm, sglang, trtllm };

struct ServingEngineInfo {
  ServingEngine value;
  const char* name;         // as configurations, summaries and validation tables spell it: "vllm-0.24"
  const char* aic_folder;   // its folder in AIConfigurator's tables ("vllm"); nullptr: not measured there
  const char* aic_version;  // the version folder below it ("0.24.0")
};

inline constexpr auto kServingEngines = enum_table<ServingEngineInfo>({
    {ServingEngine::vidur_2024, "vidur-2024", nullptr, nullptr},
    {ServingEngine::vllm, "vllm-0.24", "vllm", "0.24.0"},
    {ServingEngine::sglang, "sglang-0.5.14", "sglang", "0.5.14"},
    {ServingEngine::trtllm, "trtllm-1.3", "trtllm", "1.3.0rc20"},
});

constexpr const char* serving_engine_name(ServingEngine engine) { return kServingEngines.name(engine); }
// True for the engines whose kernels AIConfigurator measured (every engine but vidur-2024).
constexpr bool serving_engine_in_aic(ServingEngine engine) { return kServingEngines[engine].aic_folder != nullptr; }

}  // namespace lynx
