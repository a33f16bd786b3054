#include "models/cost/compute_model.hpp"

#include <cmath>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>

#include "common/error.hpp"
#include "models/cost/engine/aic_database.hpp"
#include "models/readers/csv_table.hpp"
#include "models/cost/engine/engine_cost.hpp"
#include "models/cost/profiled/gpu_profile.hpp"
#include "models/cost/profiled/profiled_cost.hpp"

namespace lynx {

namespace {
// An engine AIConfigurator measured, or "engine "NAME": not one of" those engines.
void check_aic_engine(bool measured, const std::string& name) {
  if (measured) return;
  std::string known;
  for (const ServingEngineInfo& e : kServingEngines)
    if (serving_engine_in_aic(e.value)) known += std::string(known.empty() ? "" : ", ") + e.name;
  throw_error("engine \"%s\": not one of %s", name.c_str(), known.c_str());
}

// An engine's tables on a GPU, read once per process (lazily, table by table) and shared by every instance.
std::shared_ptr<const AicDatabase> cached_database(const std::string& root, const std::string& folder,
                                                   ServingEngine engine, const GpuSpec& measured) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const AicDatabase>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  const std::string key = root + "|" + folder + "|" + serving_engine_name(engine);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  const AicPeaks peaks{measured.bf16_dense_tflops, measured.fp8_dense_tflops, measured.hbm_gb_per_s,
                       measured.nvlink_gb_per_s};
  auto db = std::make_shared<const AicDatabase>(root, folder, engine, peaks);
  cache.emplace(key, db);
  return db;
}

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

std::shared_ptr<const EngineCostModel> make_engine_cost(const ModelSpec& model, const GpuSpec& gpu,
                                                        const std::vector<GpuSpec>& gpus, int tensor_parallel,
                                                        WeightsDtype weights, ServingEngine engine,
                                                        const std::string& data_dir, bool fp8_kv_cache,
                                                        int expert_parallel, const KernelFamilyFactors& family_factors) {
  check_aic_engine(serving_engine_in_aic(engine), serving_engine_name(engine));
  std::vector<std::string> measured_names;
  for (const GpuSpec& g : gpus)
    if (!aic_gpu_folder(g.name).empty()) measured_names.push_back(g.name);
  const std::string measured_gpu = profile_gpu_for(gpu, gpus, measured_names);
  const GpuSpec* measured_spec = nullptr;
  for (const GpuSpec& g : gpus)
    if (g.name == measured_gpu) measured_spec = &g;
  if (!measured_spec) throw_error("no GPU with AIConfigurator tables in the GPU catalog");
  return std::make_shared<EngineCostModel>(
      model, gpu, tensor_parallel, weights,
      cached_database(data_dir + "/aiconfigurator", aic_gpu_folder(measured_gpu), engine, *measured_spec),
      *measured_spec, fp8_kv_cache, expert_parallel, family_factors);
}

ServingEngine aic_engine_parse(const std::string& name) {
  const std::optional<ServingEngine> engine = kServingEngines.parse(name);
  check_aic_engine(engine && serving_engine_in_aic(*engine), name);
  return *engine;
}

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
  if (serving_engine_in_aic(choice.engine)) {
    const std::string engine = serving_engine_name(choice.engine);
    if (model.sliding_window > 0)
      return fallback("engine " + engine + ": grouped-query and MLA layers (dense or MoE) are "
                      "composed from its tables, not " + model.name + "'s sliding windows");
    const std::string mla = engine_mla_not_covered(model, choice.engine);
    if (!mla.empty()) return fallback("engine " + engine + ": " + mla);
    if (tensor_parallel != 1 && tensor_parallel != 2 && tensor_parallel != 4 && tensor_parallel != 8)
      return fallback("engine " + engine + ": all-reduces are measured on 2, 4 and 8 GPUs, not tp " +
                      std::to_string(tensor_parallel));
    const std::string root = data_dir + "/aiconfigurator";
    if (!std::filesystem::exists(root))
      return fallback("no AIConfigurator tables at " + root + " (set --data-dir or LYNX_DATA_DIR; scripts/get-data.sh fetches them)");
    return make_engine_cost(model, gpu, gpus, tensor_parallel, choice.weights, choice.engine, data_dir,
                            choice.fp8_kv_cache, static_cast<int>(moe.expert_parallel), choice.kernel_family_factors);
  }
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
