#include "models/arch/moe.hpp"

#include <cmath>

#include "common/error.hpp"

namespace lynx {

double expected_distinct_experts(int64_t experts, int64_t top_k, double tokens) {
  if (experts <= 0 || tokens <= 0) return 0;
  const double e = static_cast<double>(experts), k = static_cast<double>(top_k);
  return e * (1 - std::pow(1 - k / e, tokens));
}

double params_read(const ModelSpec& m, double tokens) {
  const double total = static_cast<double>(m.params);
  if (!is_moe(m)) return total;
  const double per_layer_experts = expert_params(m);
  const double layers = static_cast<double>(moe_layer_count(m));
  const double all_experts = layers * static_cast<double>(m.n_experts) * per_layer_experts;
  return total - all_experts +
         layers * expected_distinct_experts(m.n_experts, m.experts_per_token, tokens) * per_layer_experts;
}

double moe_all_to_all_seconds(const ModelSpec& m, const MoeParallel& parallel, double tokens,
                              double nvlink_bytes_per_s) {
  if (!is_moe(m) || parallel.expert_parallel <= 1) return 0;
  const double ep = static_cast<double>(parallel.expert_parallel);
  const double bytes = tokens * static_cast<double>(m.experts_per_token) * static_cast<double>(m.hidden_size) * 2.0;
  return 2.0 * bytes * (ep - 1) / ep / ep / nvlink_bytes_per_s;
}

void check_moe_parallel(const ModelSpec& m, const MoeParallel& p, int64_t tensor_parallel, const std::string& where) {
  const long long ep = static_cast<long long>(p.expert_parallel);
  if (ep < 1 || tensor_parallel % p.expert_parallel != 0)
    throw_error("%s.ep: %lld does not divide tp %lld (expert parallelism splits the replica's GPUs into ep groups)",
                where.c_str(), ep, static_cast<long long>(tensor_parallel));
  if (ep > 1 && !is_moe(m))
    throw_error("%s.ep: %lld, but model %s has no experts (ep must be 1 for a dense model)", where.c_str(), ep,
                m.name.c_str());
  if (ep > 1 && m.n_experts % p.expert_parallel != 0)
    throw_error("%s.ep: %lld does not divide model %s's %lld routed experts", where.c_str(), ep, m.name.c_str(),
                static_cast<long long>(m.n_experts));
  if (!(p.load_imbalance >= 1))
    throw_error("%s.moe_load_imbalance: %g, expected >= 1 (busiest GPU's expert work over the mean)", where.c_str(),
                p.load_imbalance);
}

}  // namespace lynx
