#include "sim/cluster/capacity.hpp"

#include "models/cost/roofline/cost_model.hpp"
#include "models/arch/kv_replication.hpp"
#include "models/arch/kv_size.hpp"

namespace lynx {

namespace {
constexpr int64_t kPerTokenSample = 1 << 16;
}  // namespace

double weight_bytes(const SimulationInputs& in) {
  return model_weight_bytes(in.model, in.config.weights_dtype);
}

double pool_usable_bytes(const GpuSpec& gpu, const PoolConfig& pool) {
  return gpu.hbm_gb * 1e9 * pool.tensor_parallel * (1 - pool.memory_reserve_fraction);
}

int64_t prefill_token_budget(const SimulationInputs& in) {
  if (!in.prefill_serving) return in.config.prefill.chunked_prefill_tokens;
  return in.prefill_serving->limits.chunked_prefill ? in.prefill_serving->limits.max_batched_tokens : 0;
}

double decode_kv_capacity_bytes(const SimulationInputs& in) {
  const double copies = kv_head_copies(kv_shard_heads(in.model), in.config.decode.tensor_parallel);
  if (in.decode_serving) return in.decode_serving->kv_bytes_per_gpu * in.config.decode.tensor_parallel / copies;
  return (pool_usable_bytes(in.decode_gpu, in.config.decode) - weight_bytes(in)) / copies;
}

double prefill_kv_capacity_bytes(const SimulationInputs& in) {
  if (in.prefill_serving) return in.prefill_serving->kv_bytes_per_gpu * in.config.prefill.tensor_parallel;
  return pool_usable_bytes(in.prefill_gpu, in.config.prefill) - weight_bytes(in);
}

double prefill_kv_bytes(const SimulationInputs& in, int64_t prompt_tokens) {
  static const KvFormat kBf16 = kv_format_parse("bf16");
  return static_cast<double>(model_kv_bytes(in.model, kBf16, prompt_tokens).total());
}

KvBytesPerToken kv_bytes_per_token(const SimulationInputs& in) { return kv_bytes_per_token(in, in.run_format.format); }

KvBytesPerToken kv_bytes_per_token(const SimulationInputs& in, const KvFormat& format) {
  const KvStreamBytes sample = model_kv_bytes(in.model, format, kPerTokenSample);
  return {static_cast<double>(sample.total()) / kPerTokenSample, static_cast<double>(sample.anchor) / kPerTokenSample};
}

double decode_reservation_bytes(double full_bytes_per_token, int64_t input_tokens, int64_t output_tokens) {
  return full_bytes_per_token * static_cast<double>(input_tokens + output_tokens);
}

}  // namespace lynx
