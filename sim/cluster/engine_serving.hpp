// Each named serving engine as it serves, beyond its kernels: its scheduler's defaults, how it sizes its KV cache,
// which steps it runs as captured CUDA graphs, and the host and front-end time it adds. Every default is the
// engine's own for the version its kernel tables are of, with its source beside it (docs/engines.md, "As they
// serve"); the host and front-end terms, which no component measurement gives, are fitted on a declared training
// part of the GPUStack H100 runs (sim/validation/serving_validation.hpp) and checked on the rest.
//
// KV cache per GPU, as each engine computes it at start-up:
//   vllm    gpu_memory_utilization (0.9) x the GPU's total - weights - the start-up profile's peak of activations,
//           NCCL and CUDA-context memory (vllm/v1/worker/gpu_worker.py determine_available_memory)
//   sglang  mem_fraction_static x the GPU's total - weights; mem_fraction_static from the memory nvidia-smi reports
//           less a reserve for activations and CUDA graphs (server_args.py: (total - max(512 + 1.5 x
//           max(chunked_prefill_size, 2048) + 2 x cuda_graph_max_bs + 1024 x tp / 8 MiB, 10 GiB)) / total)
//   trtllm  free_gpu_memory_fraction (0.9) x (the GPU's total - the start-up profile's peak: weights, activations
//           of max_num_tokens, NCCL, CUDA context) (tensorrt_llm/_torch/pyexecutor/_util.py KvCacheCreator)
// The profile's peak besides the weights is AIConfigurator's model of TensorRT-LLM's memory, which AIConfigurator
// also uses for vLLM (sdk/backends/vllm_backend.py _get_memory_usage): trtllm_runtime_bytes_per_gpu. Against vLLM
// 0.10.2's own start-up log on one H100 (Mistral-7B, 16,384 batched tokens: 1.97 GiB of activations and 0.07 GiB
// outside torch) it gives 1.91 GiB for the 2.04.
// "The GPU's total" is what CUDA reports: 79.19 GiB of an H100's 80 GiB (vLLM 0.10.2's start-up log,
// "Free memory on device (78.66/79.19 GiB)"; nvidia-smi's 81,559 MiB for SGLang's formula); other GPUs are taken
// at the same share of their catalog memory (an assumption until their own figure is read).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <memory>

#include "models/arch/catalog.hpp"
#include "models/cost/step_cost.hpp"
#include "models/cost/serving_engine.hpp"
#include "sim/cluster/engine_scheduler.hpp"

namespace lynx {

// The host (CPU) time of one step that the GPU does not hide: the engine's scheduling, input preparation, kernel
// launches and output processing: a base per step (larger for a step that is not a captured CUDA graph, whose
// kernels the host launches one by one) plus a part per request in the step. With an overlapping scheduler (vLLM's
// async scheduling, SGLang's and TensorRT-LLM's overlap schedulers) the host prepares step n + 1 during step n, so a
// step exposes max(0, host - GPU time); without, all of it.
struct ServingHost {
  double graph_step_ms = 0;
  double eager_step_ms = 0;
  double per_seq_us = 0;
  bool overlapped = false;
  double exposed_s(double gpu_s, int64_t seqs, bool captured) const;
};

// A pool's engine options as configured (negative or NaN: the engine's default).
struct EngineOptions {
  int64_t max_num_batched_tokens = -1;  // vLLM; SGLang chunked_prefill_size; TRT-LLM max_num_tokens
  int64_t max_num_seqs = -1;            // vLLM; SGLang max_running_requests; TRT-LLM max_batch_size
  double memory_fraction = -1;          // vLLM gpu_memory_utilization; SGLang mem_fraction_static;
                                        // TRT-LLM free_gpu_memory_fraction
  int chunked_prefill = -1;             // 0/1: TRT-LLM enable_chunked_prefill (the others always chunk)
  int overlap_scheduling = -1;          // 0/1: vLLM async scheduling, SGLang / TRT-LLM overlap scheduler
  double host_step_ms = -1;             // exposed host time terms (ServingHost), per step and per request in it
  double host_per_seq_us = -1;
  double frontend_ms = -1;              // per request, its way to and from the engine (HTTP, IPC, streaming), in parallel
  double frontend_serial_ms = -1;       // per request, the front end's one-at-a-time part (chat template, tokenization)
  double kernel_time_factor = 1;        // the step kernels' time over the tables' on this deployment
};

// The host and front-end terms an engine is given when a pool does not set them (fitted: docs/engines.md), with the
// fit's source. `engine`: a named serving engine (not vidur-2024).
struct ServingTermDefaults {
  double host_step_ms, host_eager_step_ms, host_per_request_us, frontend_ms, frontend_serial_ms;
  std::string source;
};
ServingTermDefaults serving_term_defaults(ServingEngine engine);

// What one instance of the engine does, resolved for a model, GPU and TP.
struct EngineServing {
  ServingEngine engine = ServingEngine::vllm;
  SchedulerLimits limits;
  int64_t kv_tokens = 0;                     // the instance's KV cache
  double kv_bytes_per_gpu = 0;               // the KV cache's memory on each GPU
  double memory_fraction = 0;
  std::string memory_rule;                   // how the engine sized kv_bytes_per_gpu, in its settings' words
  std::vector<int64_t> graph_token_sizes;    // captured CUDA-graph sizes
  bool graph_padding = true;                 // steps padded to the next captured size (TRT-LLM: only exact sizes)
  bool graphs_for_mixed_steps = false;
  // A step of `tokens` tokens (`decode_only`: every request in it decodes) runs as a captured graph of the returned
  // size (padded), or eagerly (0).
  int64_t graph_tokens(int64_t tokens, bool decode_only) const;
  ServingHost host;
  double frontend_ms = 0;         // each request's latency through the front end, requests in parallel
  double frontend_serial_ms = 0;  // each request's time in the front end's one-at-a-time part
  double kernel_time_factor = 1;
  std::string source;                        // the summary's one-line account of the above
};

// The CUDA-visible memory of one GPU, in bytes (see above).
double cuda_total_bytes(const GpuSpec& gpu);

// The engine's defaults and KV cache for `model` on `tp` GPUs of `gpu`, with `weight_bytes` of weights in all and
// `kv_bytes_per_token_per_gpu` of KV per token on each GPU; `options` override the defaults. A KV cache of no token
// (the weights do not leave room) is a LynxError naming the engine, the GPU and the memory.
EngineServing engine_serving(ServingEngine engine, const ModelSpec& model, const GpuSpec& gpu, int tp,
                             double weight_bytes, double kv_bytes_per_token_per_gpu, const EngineOptions& options);

// A pool's step costs as its engine runs the steps: the kernels' time (`base`) at the token count the step runs as
// (a step the engine captures in a CUDA graph padded to the next captured size), plus the host time the step exposes
// (EngineServing::host). Every step a pool on a named engine runs, disaggregated or co-located, is costed through it.
class ServingStepCost : public StepCostModel {
 public:
  ServingStepCost(std::shared_ptr<const StepCostModel> base, EngineServing serving)
      : base_(std::move(base)), serving_(std::move(serving)) {}
  double prefill_seconds(const std::vector<PrefillPiece>& pieces) const override;
  double decode_seconds(const DecodeWork& work) const override;
  // (decode_run_ends: the base class's, one decode_seconds per iteration)
  double mixed_seconds(const std::vector<PrefillPiece>& pieces, const DecodeWork& work,
                       int64_t run_tokens) const override;
  double weight_bytes() const override { return base_->weight_bytes(); }
  std::string source() const override { return base_->source() + "; " + serving_.source; }
  bool extrapolated() const override { return base_->extrapolated(); }
  void preload_tables() const override { base_->preload_tables(); }
  void load_tables() const override { base_->load_tables(); }
  const EngineServing& serving() const { return serving_; }

 private:
  std::shared_ptr<const StepCostModel> base_;
  EngineServing serving_;
};

}  // namespace lynx
