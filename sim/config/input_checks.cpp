#include "sim/config/input_checks.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "common/error.hpp"
#include "sim/cluster/engine_serving.hpp"

namespace lynx {

namespace {
std::string where(const SimulationInputs& in, const Request& r) {
  char text[64];
  if (r.source_line > 0) {
    std::snprintf(text, sizeof text, ":%lld: request %lld", static_cast<long long>(r.source_line),
                  static_cast<long long>(r.id));
    return in.workload_source + text;
  }
  std::snprintf(text, sizeof text, "request %lld", static_cast<long long>(r.id));
  return in.workload_source.empty() ? std::string(text) : in.workload_source + ": " + text;
}

// Where a pool's KV capacity comes from, for a message: vidur-2024's reserve, or the named engine's memory rule.
std::string capacity_words(const PoolConfig& pool, const std::optional<EngineServing>& serving) {
  char text[64];
  std::snprintf(text, sizeof text, "after weights and the %.0f%% reserve", pool.memory_reserve_fraction * 100);
  if (!serving) return text;
  return std::string("the KV cache ") + serving_engine_name(serving->engine) + " keeps by its rule: " +
         serving->memory_rule;
}
}  // namespace

void check_weights_fit(const SimulationInputs& in, const PoolConfig& pool, const GpuSpec& gpu, const char* path) {
  const double weights = weight_bytes(in);
  if (pool.engine != ServingEngine::vidur_2024) {
    // A named engine: the weights against what CUDA reports of the GPUs (the engine's own KV rule then takes its
    // share of the rest, engine_serving.hpp, and says so when nothing is left).
    const double total = cuda_total_bytes(gpu) * pool.tensor_parallel;
    if (weights >= total)
      throw_error("%s: %s: the weights of %s (%.1f GB in %s) do not fit in %d x %s (%.1f GiB each as CUDA reports "
                  "it); raise tp or choose a larger GPU",
                  in.config.origin.c_str(), path, in.model.name.c_str(), weights / 1e9,
                  weights_dtype_name(in.config.weights_dtype), pool.tensor_parallel, gpu.name.c_str(),
                  total / pool.tensor_parallel / (1024.0 * 1024 * 1024));
    return;
  }
  const double usable = pool_usable_bytes(gpu, pool);
  if (weights >= usable)
    throw_error("%s: %s: the weights of %s (%.1f GB in %s) do not fit in %d x %s (%.0f GB each, %.0f%% reserved); "
                "raise tp or choose a larger GPU",
                in.config.origin.c_str(), path, in.model.name.c_str(), weights / 1e9, weights_dtype_name(in.config.weights_dtype), pool.tensor_parallel,
                gpu.name.c_str(), gpu.hbm_gb, pool.memory_reserve_fraction * 100);
}

void apply_over_context(SimulationInputs& in, OverContextPolicy policy) {
  if (policy == OverContextPolicy::error) return;
  const int64_t context = in.model.context_tokens;
  std::vector<Request> kept;
  kept.reserve(in.requests.size());
  for (Request& r : in.requests) {
    if (r.input_tokens + r.output_tokens <= context) {
      kept.push_back(std::move(r));
      continue;
    }
    if (policy == OverContextPolicy::skip) {
      ++in.over_context_skipped;
      continue;
    }
    // "truncate" cuts the prompt, never the output (the tokens a request produces are what it is measured by): an
    // output that alone leaves no room for one prompt token cannot be served by cutting the prompt.
    if (r.output_tokens >= context)
      throw_error("%s: %lld output tokens alone fill the %lld-token context of %s: workload.over_context "
                  "\"truncate\" cuts prompts only (a prompt keeps at least 1 token); \"skip\" leaves such requests "
                  "out",
                  where(in, r).c_str(), static_cast<long long>(r.output_tokens), static_cast<long long>(context),
                  in.model.name.c_str());
    ++in.over_context_truncated;
    const int64_t input = context - r.output_tokens;
    // The kept tokens are the prompt's last ones: its leading prefix blocks no longer apply.
    r.prefix_block_hashes.clear();
    r.input_tokens = input;
    kept.push_back(std::move(r));
  }
  for (size_t i = 0; i < kept.size(); ++i) kept[i].id = static_cast<int64_t>(i);
  in.requests = std::move(kept);
}

void check_simulation_inputs(const SimulationInputs& in) {
  for (const Request& r : in.requests) check_request(in, r);
}

void check_request(const SimulationInputs& in, const Request& r) {
  const double prefill_capacity = prefill_kv_capacity_bytes(in);
  const double capacity = decode_kv_capacity_bytes(in);
  // Under the adaptive format policy the request must fit in whichever candidate it is given: the largest.
  const KvFormat* format = &in.run_format.format;
  double per_token = kv_bytes_per_token(in).full;
  for (const FormatInputs& f : in.adaptive_candidates) {
    const double candidate = kv_bytes_per_token(in, f.format).full;
    if (candidate > per_token) per_token = candidate, format = &f.format;
  }
  {
    if (r.input_tokens <= 0)
      throw_error("%s: %lld input tokens (expected at least 1)", where(in, r).c_str(),
                  static_cast<long long>(r.input_tokens));
    if (r.output_tokens <= 0)
      throw_error("%s: %lld output tokens (a failed row kept by keep_failed?); the simulator serves requests that "
                  "produce at least 1 token",
                  where(in, r).c_str(), static_cast<long long>(r.output_tokens));
    const int64_t tokens = r.input_tokens + r.output_tokens;
    if (tokens > in.model.context_tokens)
      throw_error("%s: %lld input + %lld output tokens exceed the %lld-token context of %s (workload.over_context "
                  "\"skip\" or \"truncate\" serves such traces)",
                  where(in, r).c_str(),
                  static_cast<long long>(r.input_tokens), static_cast<long long>(r.output_tokens),
                  static_cast<long long>(in.model.context_tokens), in.model.name.c_str());
    const double prompt_bytes = prefill_kv_bytes(in, r.input_tokens);
    if (prompt_bytes > prefill_capacity)
      throw_error("%s: its prompt's KV (%.2f GB in bf16, %lld tokens) does not fit in a prefill instance's memory "
                  "(%.2f GB, %s)",
                  where(in, r).c_str(), prompt_bytes / 1e9, static_cast<long long>(r.input_tokens),
                  prefill_capacity / 1e9, capacity_words(in.config.prefill, in.prefill_serving).c_str());
    const double bytes = decode_reservation_bytes(per_token, r.input_tokens, r.output_tokens);
    if (bytes > capacity)
      throw_error("%s: needs %.2f GB of KV memory (%lld tokens in %s), more than a decode instance holds (%.2f GB, "
                  "%s)",
                  where(in, r).c_str(), bytes / 1e9, static_cast<long long>(tokens), format->name.c_str(),
                  capacity / 1e9, capacity_words(in.config.decode, in.decode_serving).c_str());
  }
}

}  // namespace lynx
