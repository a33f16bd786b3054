// The shipped model and GPU catalogs (models/catalog/), loaded once per test binary.
#pragma once
#include <string>
#include <vector>

#include "models/arch/catalog.hpp"

namespace lynx::test {

inline const std::vector<ModelSpec>& shipped_models() {
  static const auto m = load_model_catalog(std::string(LYNX_SOURCE_DIR) + "/models/catalog/models.json");
  return m;
}
inline const std::vector<GpuSpec>& shipped_gpus() {
  static const auto g = load_gpu_catalog(std::string(LYNX_SOURCE_DIR) + "/models/catalog/gpus.json");
  return g;
}

}  // namespace lynx::test
