#include "models/compute_model.hpp"

#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>

#include "common/error.hpp"
#include "models/profiled/csv_table.hpp"
#include "models/profiled/gpu_profile.hpp"
#include "models/profiled/profiled_cost.hpp"

namespace lynx {

namespace {
// Profiles are read once per process and shared by every instance that uses them.
std::shared_ptr<const GpuProfile> cached_profile(const std::string& manifest, const std::string& gpu,
                                                 const std::string& data_dir) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const GpuProfile>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  const std::string key = manifest + "|" + gpu + "|" + data_dir;
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  auto profile = std::make_shared<const GpuProfile>(load_gpu_profile(manifest, gpu, data_dir));
  cache.emplace(key, profile);
  return profile;
}
}  // namespace

std::string profile_gpu_for(const GpuSpec& gpu, const std::vector<GpuSpec>& gpus,
                            const std::vector<std::string>& measured) {
  for (const std::string& m : measured)
    if (m == gpu.name) return m;
  std::string best;
  double best_d = 0;
  for (const std::string& m : measured)
    for (const GpuSpec& g : gpus) {
      if (g.name != m) continue;
      const double d = std::hypot(std::log(g.bf16_dense_tflops / gpu.bf16_dense_tflops),
                                  std::log(g.hbm_gb_per_s / gpu.hbm_gb_per_s));
      if (best.empty() || d < best_d) best = m, best_d = d;
    }
  return best;
}

std::shared_ptr<const StepCostModel> make_step_cost(const ModelSpec& model, const GpuSpec& gpu,
                                                    const std::vector<GpuSpec>& gpus, int tensor_parallel,
                                                    const ComputeChoice& choice, MoeParallel moe) {
  auto roofline = std::make_shared<ComputeCostModel>(model, gpu, tensor_parallel, choice.weights, moe);
  if (choice.model == ComputeModelKind::roofline) return roofline;
  const bool required = choice.model == ComputeModelKind::profiled;
  const std::string manifest = choice.profiles_manifest.empty() ? default_profiles_manifest_path()
                                                                : choice.profiles_manifest;
  const std::string data_dir = choice.calibration_dir.empty() ? calibration_dir() : choice.calibration_dir;
  auto fallback = [&](const std::string& why) -> std::shared_ptr<const StepCostModel> {
    if (required) throw_error("compute_model \"profiled\": %s", why.c_str());
    struct Labelled : ComputeCostModel {
      Labelled(const ComputeCostModel& base, std::string why) : ComputeCostModel(base), why_(std::move(why)) {}
      std::string source() const override { return ComputeCostModel::source() + "; profiled model not used: " + why_; }
      std::string why_;
    };
    return std::make_shared<Labelled>(*roofline, why);
  };
  if (is_moe(model) || model.attention == AttentionKind::mla || model.sliding_window > 0)
    return fallback("the measurements cover dense grouped-query layers only, not " + model.name + "'s " +
                    (is_moe(model) ? "experts" : model.attention == AttentionKind::mla ? "MLA" : "sliding windows"));
  if (!std::filesystem::exists(data_dir))
    return fallback("no calibration data at " + data_dir + " (set --data-dir or LYNX_DATA_DIR; scripts/get-data.sh fetches it)");
  const std::string measured_gpu = profile_gpu_for(gpu, gpus, profiled_gpu_names(manifest));
  if (measured_gpu.empty()) return fallback("no measured GPU in " + manifest);
  const GpuSpec* measured_spec = nullptr;
  for (const GpuSpec& g : gpus)
    if (g.name == measured_gpu) measured_spec = &g;
  if (!measured_spec) return fallback("the measured GPU " + measured_gpu + " is not in the GPU catalog");
  auto profiled = std::make_shared<ProfiledCostModel>(model, gpu, tensor_parallel, choice.weights,
                                                      cached_profile(manifest, measured_gpu, data_dir), *measured_spec);
  if (!profiled->not_covered().empty()) return fallback(profiled->not_covered());
  return profiled;
}

}  // namespace lynx
