#include "models/validation/offline_bench.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"
#include "models/arch/kv_replication.hpp"

namespace lynx {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

struct Cohort {  // requests admitted in the same iteration: they advance together
  int64_t count = 0;
  int64_t generated = 0;  // output tokens so far
};

int64_t blocks(int64_t tokens, int64_t per_block) { return (tokens + per_block - 1) / per_block; }

int64_t padded_batch(int64_t sequences, const std::vector<int64_t>& sizes) {
  for (int64_t s : sizes)
    if (s >= sequences) return s;
  return sequences;
}
}  // namespace

OfflineBenchResult run_offline_bench(const EngineCostModel& step, const OfflineBench& bench) {
  return run_offline_bench(
      [&step](const std::vector<PrefillPiece>& context, const DecodeWork& generation, int64_t tokens) {
        return step.iteration_seconds(context, generation, tokens);
      },
      bench);
}

OfflineBenchResult run_offline_bench(const IterationSeconds& iteration, const OfflineBench& b) {
  if (b.requests <= 0 || b.isl <= 0 || b.osl <= 0 || b.max_batch_size <= 0 || b.max_num_tokens <= 0 ||
      b.tokens_per_block <= 0)
    throw_error("offline benchmark: requests, isl, osl, max_batch_size, max_num_tokens and tokens_per_block must be "
                "positive");
  const int64_t request_blocks = blocks(b.isl + b.osl, b.tokens_per_block);
  const int64_t capacity_blocks = b.kv_capacity_tokens / b.tokens_per_block;
  if (request_blocks > capacity_blocks)
    throw_error("offline benchmark: one request's KV (%lld + %lld tokens) exceeds the instance's KV capacity (%lld "
                "tokens)", static_cast<long long>(b.isl), static_cast<long long>(b.osl),
                static_cast<long long>(b.kv_capacity_tokens));
  if (b.isl > b.max_num_tokens)
    throw_error("offline benchmark: a %lld-token prompt exceeds max_num_tokens %lld (no chunked prefill)",
                static_cast<long long>(b.isl), static_cast<long long>(b.max_num_tokens));
  // The captured sizes the engine keeps: those up to the largest pure-generation batch, min(max_batch_size,
  // max_num_tokens), plus that batch itself when a larger size was asked for (padding to it is then allowed).
  const int64_t graph_cap = std::min(b.max_batch_size, b.max_num_tokens);
  std::vector<int64_t> graph_sizes;
  for (int64_t size : b.graph_batch_sizes) {
    if (size <= graph_cap) {
      graph_sizes.push_back(size);
    } else {
      if (graph_sizes.empty() || graph_sizes.back() != graph_cap) graph_sizes.push_back(graph_cap);
      break;
    }
  }
  OfflineBenchResult r;
  std::vector<Cohort> cohorts;
  int64_t waiting = b.requests, running = 0;
  std::vector<PrefillPiece> context;
  while (waiting > 0 || running > 0) {
    const int64_t generating = running;  // every running request has its first token: it is in generation
    int64_t admit = std::min(waiting, b.max_batch_size - running);
    admit = std::min(admit, (b.max_num_tokens - generating) / b.isl);
    admit = std::min(admit, (capacity_blocks - running * request_blocks) / request_blocks);
    admit = std::max<int64_t>(0, admit);
    DecodeWork generation;
    generation.query_tokens = generating;
    generation.sequences = generating;
    for (const Cohort& c : cohorts)
      generation.attention_kv_tokens += static_cast<double>(c.count) * static_cast<double>(b.isl + c.generated);
    context.assign(static_cast<size_t>(admit), PrefillPiece{b.isl, 0});
    const int64_t run_tokens = admit == 0 ? padded_batch(generating, graph_sizes) : generating;
    r.seconds += iteration(context, generation, run_tokens);
    r.iterations++;
    for (Cohort& c : cohorts) c.generated++;
    if (admit > 0) cohorts.push_back({admit, 1});
    waiting -= admit;
    running += admit;
    r.peak_running = std::max(r.peak_running, running);
    for (const Cohort& c : cohorts)
      if (c.generated >= b.osl) running -= c.count;
    cohorts.erase(std::remove_if(cohorts.begin(), cohorts.end(), [&](const Cohort& c) { return c.generated >= b.osl; }),
                  cohorts.end());
  }
  r.output_tokens_per_s = static_cast<double>(b.requests) * static_cast<double>(b.osl) / r.seconds;
  return r;
}

namespace {
int64_t round_up(double x, int64_t step) { return step * static_cast<int64_t>(std::ceil(x / static_cast<double>(step))); }

}  // namespace

TrtllmBenchLimits trtllm_bench_limits(const ModelSpec& model, const GpuSpec& gpu, int tp, double weight_bytes_per_param,
                                      double kv_bytes_per_value, int64_t isl, int64_t osl, double kv_fraction) {
  // KV heads of the whole instance, each replicated where tp exceeds them (the heuristic's max(tp, kv heads))
  const double kv_heads = static_cast<double>(model.n_kv_heads) * kv_head_copies(model.n_kv_heads, tp);
  const double gib_per_token = 2 * static_cast<double>(model.n_layers) * kv_heads *
                               static_cast<double>(model.head_dim) * kv_bytes_per_value / kGiB;
  const double engine_gib = static_cast<double>(model.params) * weight_bytes_per_param / kGiB;
  const double available_gib = gpu.hbm_gb * tp - engine_gib;
  const double max_requests = available_gib * kv_fraction / (gib_per_token * static_cast<double>(isl + osl));
  const double raw_batch = std::min(max_requests, 4096.0);
  const double raw_tokens = std::min(raw_batch * (1 + static_cast<double>(isl) / static_cast<double>(osl)), 32768.0);
  TrtllmBenchLimits l;
  if (raw_batch < 256)
    l.max_batch_size = std::max<int64_t>(64, round_up(raw_batch, 32));
  else if (raw_batch < 1024)
    l.max_batch_size = round_up(raw_batch, 128);
  else
    l.max_batch_size = round_up(raw_batch, 256);
  if (raw_tokens < 4096)
    l.max_num_tokens = std::max<int64_t>(2048, round_up(raw_tokens, 256));
  else if (raw_tokens < 8192)
    l.max_num_tokens = round_up(raw_tokens, 512);
  else
    l.max_num_tokens = round_up(raw_tokens, 1024);
  // without chunked prefill (the benchmark's default) the longest prompt must fit one iteration
  l.max_num_tokens = std::max(l.max_num_tokens, isl + l.max_batch_size);
  return l;
}

double trtllm_runtime_bytes_per_gpu(const ModelSpec& model, int tp, int64_t max_num_tokens, double other_bytes) {
  constexpr double kMiB = 1024.0 * 1024.0;
  const double activation_factor = tp <= 1 ? 11.0 : tp == 2 ? 6.5 : 5.0;
  const double nccl_bytes = tp <= 1 ? 0.0 : tp == 2 ? 342 * kMiB : 392 * kMiB;
  const double activations = std::max(70 * kMiB, 2.0 * static_cast<double>(max_num_tokens) *
                                                     static_cast<double>(model.n_heads * model.head_dim) *
                                                     activation_factor);
  return activations + nccl_bytes + other_bytes;
}

int64_t instance_kv_tokens(const ModelSpec& model, const GpuSpec& gpu, int tp, double weight_bytes,
                           double kv_bytes_per_value, double kv_fraction, double runtime_bytes_per_gpu) {
  const double free_bytes = gpu.hbm_gb * kGiB - weight_bytes / tp - runtime_bytes_per_gpu;
  const double bytes_per_token =
      2 * static_cast<double>(model.n_layers) * engine_shapes(model, tp).kv_heads * static_cast<double>(model.head_dim) *
      kv_bytes_per_value;
  if (free_bytes <= 0) return 0;
  return static_cast<int64_t>(kv_fraction * free_bytes / bytes_per_token);
}

std::vector<int64_t> trtllm_bench_graph_sizes() {
  return {1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024, 2048, 4096, 8192};
}

}  // namespace lynx
