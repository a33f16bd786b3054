// An offline maximum-throughput benchmark of one aggregated engine instance (TensorRT-LLM's `trtllm-bench
// throughput`: every request queued at time 0, identical prompts and outputs), simulated iteration by iteration
// with the engine's own kernel costs (EngineCostModel::iteration_seconds). It predicts the published
// end-to-end throughput rows of that benchmark (models/validation/*_published.tsv, kind trtllm_bench_throughput).
//
// The scheduler is TensorRT-LLM's default in-flight batching, as its documentation describes it:
//   - capacity: a request is admitted only when the KV blocks of its whole prompt and output fit beside those of
//     every running request (GUARANTEED_NO_EVICT, the default policy), in blocks of tokens_per_block tokens, and
//     at most max_batch_size requests run at once;
//   - each iteration runs one token of every request in generation plus, first come first served, whole prompts
//     (chunked prefill is off by default) while the iteration's tokens stay within max_num_tokens;
//   - a request's context iteration yields its first output token; it then takes osl - 1 generation iterations;
//   - a generation-only iteration runs as the smallest captured CUDA-graph batch size at least its size
//     (cuda_graph_config enable_padding, the published runs' options), or unpadded beyond the largest; the engine
//     keeps the sizes up to min(max_batch_size, max_num_tokens) and, where a larger one was listed, that bound
//     itself (PyTorchModelEngine's _filter_cuda_graph_batch_sizes).
// max_batch_size and max_num_tokens are trtllm-bench's own heuristic (trtllm_bench_limits below, restated from
// tensorrt_llm/bench/build/tuning.py); the KV capacity is kv_cache_free_gpu_mem_fraction of each GPU's memory after
// its weight shard and the engine's activation, NCCL and CUDA-context memory (trtllm_runtime_bytes_per_gpu below;
// `lynxsim validate`'s breakdown gives every group at a KV fraction of 0.90 beside the headline's 0.95, and with
// AIConfigurator's 3.5 GiB safety figure for the CUDA context).
#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "models/arch/catalog.hpp"
#include "models/cost/engine/engine_cost.hpp"

namespace lynx {

struct OfflineBench {
  int64_t requests = 0, isl = 0, osl = 0;
  int64_t max_batch_size = 0, max_num_tokens = 0;
  int64_t kv_capacity_tokens = 0;  // KV-cache tokens the whole instance holds
  int64_t tokens_per_block = 32;   // TensorRT-LLM's KvCacheConfig default
  std::vector<int64_t> graph_batch_sizes;  // ascending; empty: no padding
};

struct OfflineBenchResult {
  double seconds = 0;             // first iteration's start to the last request's end
  int64_t iterations = 0;
  int64_t peak_running = 0;       // most requests running at once
  double output_tokens_per_s = 0;  // requests x osl / seconds (trtllm-bench's "Total Output Throughput")
};

// Seconds of one iteration: its context pieces, its generation batch, and the tokens that batch runs as (padded).
using IterationSeconds =
    std::function<double(const std::vector<PrefillPiece>& context, const DecodeWork& generation, int64_t tokens)>;
OfflineBenchResult run_offline_bench(const IterationSeconds& iteration, const OfflineBench& bench);
// With the engine's kernels (EngineCostModel::iteration_seconds).
OfflineBenchResult run_offline_bench(const EngineCostModel& step, const OfflineBench& bench);

// trtllm-bench's max_batch_size and max_num_tokens for a dataset of isl/osl requests (the PyTorch flow without
// user limits: tensorrt_llm/bench/benchmark/utils/general.py get_settings, build/tuning.py calc_engine_setting): the
// requests whose KV (bf16 unless the checkpoint quantizes it; KV heads at least tp) fits in kv_fraction (the
// run's kv_cache_free_gpu_mem_fraction) of the GPUs' memory in GiB less the weights (params x bytes per weight),
// capped at 4096 and rounded up to 32 (at least 64) / 128 / 256; tokens = that batch x (1 + isl / osl), capped at
// 32768, rounded up to 256 (at least 2048) / 512 / 1024, and at least isl + max_batch_size (no chunked prefill).
struct TrtllmBenchLimits {
  int64_t max_batch_size = 0, max_num_tokens = 0;
};
TrtllmBenchLimits trtllm_bench_limits(const ModelSpec& model, const GpuSpec& gpu, int tp, double weight_bytes_per_param,
                                      double kv_bytes_per_value, int64_t isl, int64_t osl, double kv_fraction);

// TensorRT-LLM's memory per GPU besides the weights and the KV cache at the peak of its start-up profiling pass,
// which sizes the KV cache as kv_fraction x (memory - that peak) (PyTorch flow, tensorrt_llm/_torch/pyexecutor/
// _util.py, KvCacheCreator: one forward of max_num_tokens dummy prompt tokens). Restated from AIConfigurator's
// model of that engine's memory (src/aiconfigurator/sdk/backends/trtllm_backend.py, `_get_memory_usage`, and the
// `misc` block of the data folder's calibration/aiconfigurator/systems/{h100,h200,b200}_sxm.yaml, the same in all
// three):
//   - activations: 2 x max_num_tokens x heads x head_dim x c(tp) bytes, c = 11, 6.5, 5, 5 at TP 1, 2, 4, 8 (and 5
//     beyond; its LLAMA family), at least 70 MiB;
//   - NCCL buffers: 0, 342, 392, 392 MiB at TP 1, 2, 4, 8 (and 392 beyond);
//   - CUDA context, cuBLAS and the rest: `other_bytes`. The YAML files say 3.5 GiB, raised "from 551MB ... for safer
//     deployment"; 551 MiB is the observed figure and the one this model uses (kTrtllmOtherBytes); `lynxsim validate`
//     shows the groups at 3.5 GiB beside it (kTrtllmOtherBytesSafe).
constexpr double kTrtllmOtherBytes = 551.0 * 1024 * 1024;
constexpr double kTrtllmOtherBytesSafe = 3.5 * 1024 * 1024 * 1024;
double trtllm_runtime_bytes_per_gpu(const ModelSpec& model, int tp, int64_t max_num_tokens, double other_bytes);

// KV tokens an instance of tp GPUs holds: kv_fraction x (memory - weights / tp - runtime_bytes_per_gpu) per GPU over
// the KV bytes per token each GPU keeps (its KV heads, replicated when tp > kv heads). Memory is hbm_gb read as GiB
// (HBM stacks come in binary sizes: an "80 GB" H100 reports 79.6 GiB; AIConfigurator's mem_capacity is 80 GiB too).
int64_t instance_kv_tokens(const ModelSpec& model, const GpuSpec& gpu, int tp, double weight_bytes, double kv_bytes_per_value,
                           double kv_fraction, double runtime_bytes_per_gpu);

// The CUDA-graph batch sizes of the published trtllm-bench runs' llm_options.yml.
std::vector<int64_t> trtllm_bench_graph_sizes();

}  // namespace lynx
