#include "sim/input_checks.hpp"

#include <algorithm>
#include <cstdio>
#include <string>

#include "common/error.hpp"
#include "models/kv_size.hpp"

namespace lynx {

namespace {
// Steady-state bytes per token are measured over this many tokens, so that KIVI's fp16 tail and fp8's per-tensor
// scale are amortised away.
constexpr int64_t kPerTokenSample = 1 << 16;

// Bytes per weight in the configured weights_dtype (bf16 2, fp8 1).
double bytes_per_param(const SimulationInputs& in) { return in.config.weights_dtype == "fp8" ? 1.0 : 2.0; }

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

void check_weights_fit(const SimulationInputs& in, const PoolConfig& pool, const GpuSpec& gpu, const char* path,
                       double reserve_fraction) {
  const double weights = bytes_per_param(in) * static_cast<double>(in.model.params);
  const double usable = gpu.hbm_gb * 1e9 * pool.tensor_parallel * (1 - reserve_fraction);
  if (weights >= usable)
    throw_error("%s: %s: the weights of %s (%.1f GB in %s) do not fit in %d x %s (%.0f GB each, %.0f%% reserved); "
                "raise tp or choose a larger GPU",
                in.config.origin.c_str(), path, in.model.name.c_str(), weights / 1e9, in.config.weights_dtype.c_str(), pool.tensor_parallel,
                gpu.name.c_str(), gpu.hbm_gb, reserve_fraction * 100);
}
}  // namespace

double decode_kv_capacity_bytes(const SimulationInputs& in) {
  const double hbm_bytes = in.decode_gpu.hbm_gb * 1e9 * in.config.decode.tensor_parallel;
  return hbm_bytes * (1 - in.config.decode.memory_reserve_fraction) -
         bytes_per_param(in) * static_cast<double>(in.model.params);
}

double prefill_kv_capacity_bytes(const SimulationInputs& in) {
  const double hbm_bytes = in.prefill_gpu.hbm_gb * 1e9 * in.config.prefill.tensor_parallel;
  return hbm_bytes * (1 - in.config.prefill.memory_reserve_fraction) -
         bytes_per_param(in) * static_cast<double>(in.model.params);
}

double prefill_kv_bytes(const SimulationInputs& in, int64_t prompt_tokens) {
  static const KvFormat kBf16 = kv_format_parse("bf16");
  return static_cast<double>(model_kv_bytes(in.model, kBf16, prompt_tokens).total());
}

KvBytesPerToken kv_bytes_per_token(const SimulationInputs& in) {
  const KvStreamBytes sample = model_kv_bytes(in.model, in.format, kPerTokenSample);
  return {static_cast<double>(sample.total()) / kPerTokenSample, static_cast<double>(sample.anchor) / kPerTokenSample};
}

void apply_over_context(SimulationInputs& in, const std::string& policy) {
  if (policy == "error") return;
  const int64_t context = in.model.context_tokens;
  std::vector<Request> kept;
  kept.reserve(in.requests.size());
  for (Request& r : in.requests) {
    if (r.input_tokens + r.output_tokens <= context) {
      kept.push_back(std::move(r));
      continue;
    }
    if (policy == "skip") {
      ++in.over_context_skipped;
      continue;
    }
    ++in.over_context_truncated;
    const int64_t input = std::max<int64_t>(1, context - r.output_tokens);
    r.output_tokens = std::min(r.output_tokens, context - input);
    // The kept tokens are the prompt's last ones: its leading prefix blocks no longer apply.
    r.prefix_block_hashes.clear();
    r.input_tokens = input;
    kept.push_back(std::move(r));
  }
  for (size_t i = 0; i < kept.size(); ++i) kept[i].id = static_cast<int64_t>(i);
  in.requests = std::move(kept);
}

void check_simulation_inputs(const SimulationInputs& in) {
  check_weights_fit(in, in.config.prefill, in.prefill_gpu, "$.cluster.prefill",
                    in.config.prefill.memory_reserve_fraction);
  check_weights_fit(in, in.config.decode, in.decode_gpu, "$.cluster.decode", in.config.decode.memory_reserve_fraction);
  for (const Request& r : in.requests) check_request(in, r);
}

void check_request(const SimulationInputs& in, const Request& r) {
  const double prefill_capacity = prefill_kv_capacity_bytes(in);
  const double capacity = decode_kv_capacity_bytes(in);
  const double per_token = kv_bytes_per_token(in).full;
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
                  "(%.2f GB after weights and the %.0f%% reserve)",
                  where(in, r).c_str(), prompt_bytes / 1e9, static_cast<long long>(r.input_tokens),
                  prefill_capacity / 1e9, in.config.prefill.memory_reserve_fraction * 100);
    const double bytes = per_token * static_cast<double>(tokens);
    if (bytes > capacity)
      throw_error("%s: needs %.2f GB of KV memory (%lld tokens in %s), more than a decode instance holds (%.2f GB "
                  "after weights and the %.0f%% reserve)",
                  where(in, r).c_str(), bytes / 1e9, static_cast<long long>(tokens), in.format.name.c_str(),
                  capacity / 1e9, in.config.decode.memory_reserve_fraction * 100);
  }
}

}  // namespace lynx
