#include "sim/acceptance/published_acceptance.hpp"

#include <cstdio>

namespace lynx {

const PublishedAcceptance* published_acceptance(const std::string& name) {
  for (const PublishedAcceptance& e : kPublishedAcceptances)
    if (name == e.name) return &e;
  return nullptr;
}

std::string published_acceptance_source(const PublishedAcceptance& e, int64_t params, const std::string& model) {
  std::string s = std::string("published: ") + e.citation + ": " + e.conditions;
  if (params < e.min_params || params > e.max_params) {
    char size[64];
    std::snprintf(size, sizeof size, "%.1fB", static_cast<double>(params) * 1e-9);
    s += "; applied to " + model + " (" + size + " parameters) outside the published model sizes";
  }
  return s;
}

}  // namespace lynx
