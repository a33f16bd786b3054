#include "sim/cluster/engine_serving.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "common/error.hpp"
#include "models/validation/offline_bench.hpp"

namespace lynx {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
// An H100's memory as CUDA reports it (79.19 GiB, vLLM's log) and as nvidia-smi does (81,559 MiB), of its 80 GiB.
constexpr double kCudaShare = 79.19 / 80.0;
constexpr double kSmiShare = 81559.0 / (80.0 * 1024.0);

// Host and front-end terms fitted on the training runs (sim/validation/serving_validation.hpp; docs/engines.md gives the
// fit, its training and check rows and its error). Per engine: captured-step ms, eager-step ms, us per request in a
// step, front-end latency ms per request (in parallel), front-end ms per request served one at a time.
struct HostFit {
  double graph_step_ms, eager_step_ms, per_seq_us, frontend_ms, frontend_serial_ms;
  const char* source;
};
const HostFit& host_fit(ServingEngine engine) {
  // `lynxsim validate --serving --fit ENGINE` on the engine's GPUStack H100 training runs: each term the smallest
  // grid value within 1% of the lowest mean error of duration, TTFT and TPOT along its axis. A 0 here is what the
  // runs support: over the grid (host step 0-3 ms under an overlapping scheduler, 0-100 us per request) the error
  // moves by less than 1%.
  static const HostFit kVllm{0.5, 0.5, 0, 40, 10,
                             "fitted on 9 GPUStack H100 training runs of vLLM 0.11 (mean error 0.473 -> 0.345)"};
  static const HostFit kSglang{0, 0, 100, 0, 5,
                               "fitted on 4 GPUStack H100 training runs of SGLang 0.5.3-0.5.5 (mean error 0.324 -> 0.249)"};
  static const HostFit kTrtllm{0, 0, 0, 10, 20,
                               "fitted on 3 GPUStack H100 training runs of TensorRT-LLM 1.2.0rc1 (mean error 0.405 -> 0.304)"};
  return engine == ServingEngine::vllm ? kVllm : engine == ServingEngine::sglang ? kSglang : kTrtllm;
}

std::vector<int64_t> vllm_graph_sizes(int64_t max_num_seqs, int64_t max_batched_tokens) {
  // vllm/config/vllm.py _set_cudagraph_sizes: [1, 2, 4] + range(8, 256, 8) + range(256, max + 1, 16), max =
  // min(2 x max_num_seqs, 512), at most max_num_batched_tokens.
  const int64_t max = std::min(std::min<int64_t>(2 * max_num_seqs, 512), max_batched_tokens);
  std::vector<int64_t> sizes;
  for (int64_t s : {1, 2, 4})
    if (s <= max) sizes.push_back(s);
  for (int64_t s = 8; s < 256 && s <= max; s += 8) sizes.push_back(s);
  for (int64_t s = 256; s <= max; s += 16) sizes.push_back(s);
  return sizes;
}

std::vector<int64_t> sglang_graph_sizes(int64_t max_bs) {
  // server_args.py _generate_cuda_graph_batch_sizes (no speculative decoding).
  std::vector<int64_t> sizes = {1, 2, 4, 8, 12};
  for (int64_t s = 16; s <= 256; s += 8) sizes.push_back(s);
  for (int64_t s = 272; s < 512; s += 16) sizes.push_back(s);
  for (int64_t s = 512; s <= max_bs; s += 32) sizes.push_back(s);
  sizes.erase(std::remove_if(sizes.begin(), sizes.end(), [max_bs](int64_t s) { return s > max_bs; }), sizes.end());
  return sizes;
}

std::vector<int64_t> trtllm_graph_sizes() {
  // CudaGraphConfig's default batch sizes without padding: 1..31, 32, 64, 128 (enable_padding false).
  std::vector<int64_t> sizes;
  for (int64_t s = 1; s <= 32; ++s) sizes.push_back(s);
  sizes.push_back(64);
  sizes.push_back(128);
  return sizes;
}

bool large_memory_gpu(const GpuSpec& gpu) {
  // vLLM's larger defaults: at least 70 GiB and not an A100 (arg_utils.py get_batch_defaults, PR #17885).
  return cuda_total_bytes(gpu) >= 70 * kGiB && gpu.name.find("a100") == std::string::npos;
}
}  // namespace

double cuda_total_bytes(const GpuSpec& gpu) { return gpu.hbm_gb * kGiB * kCudaShare; }

int64_t EngineServing::graph_tokens(int64_t tokens, bool decode_only) const {
  const auto& sizes = graph_token_sizes;
  if (sizes.empty() || tokens > sizes.back() || !(decode_only || graphs_for_mixed_steps)) return 0;
  const int64_t size = *std::lower_bound(sizes.begin(), sizes.end(), tokens);
  if (!graph_padding && size != tokens) return 0;
  return size;
}

double ServingHost::exposed_s(double gpu_s, int64_t seqs, bool captured) const {
  const double host_s = ((captured ? graph_step_ms : eager_step_ms) + per_seq_us * 1e-3 * static_cast<double>(seqs)) * 1e-3;
  return overlapped ? std::max(0.0, host_s - gpu_s) : host_s;
}

ServingTermDefaults serving_term_defaults(ServingEngine engine) {
  if (engine == ServingEngine::vidur_2024) throw_internal_error("vidur-2024 has no serving terms");
  const HostFit& f = host_fit(engine);
  return {f.graph_step_ms, f.eager_step_ms, f.per_seq_us, f.frontend_ms, f.frontend_serial_ms, f.source};
}

EngineServing engine_serving(ServingEngine engine, const ModelSpec& model, const GpuSpec& gpu, int tp, double weight_bytes,
                             double kv_bytes_per_token_per_gpu, const EngineOptions& o) {
  EngineServing e;
  e.engine = engine;
  SchedulerLimits& l = e.limits;
  const double total = cuda_total_bytes(gpu);
  const double weights = weight_bytes / tp;
  const std::string name = serving_engine_name(engine);
  std::string memory_rule;
  switch (engine) {
    case ServingEngine::vidur_2024:
      throw_error("vidur-2024 is a set of 2024 kernel measurements, not a serving engine: a co-located pool needs a "
                  "named engine (vllm-0.24, sglang-0.5.14, trtllm-1.3) for its scheduler and memory rule");
    case ServingEngine::vllm: {
      l.policy = SchedulerPolicy::vllm;
      const bool large = large_memory_gpu(gpu);
      l.max_batched_tokens = o.max_num_batched_tokens > 0 ? o.max_num_batched_tokens : large ? 8192 : 2048;
      l.max_seqs = o.max_num_seqs > 0 ? o.max_num_seqs : std::min<int64_t>(large ? 1024 : 256, l.max_batched_tokens);
      l.max_prefill_tokens = l.max_batched_tokens;
      l.chunked_prefill = true;
      l.block_tokens = 16;
      e.memory_fraction = o.memory_fraction > 0 ? o.memory_fraction : 0.9;
      e.kv_bytes_per_gpu =
          e.memory_fraction * total - weights - trtllm_runtime_bytes_per_gpu(model, tp, l.max_batched_tokens, kTrtllmOtherBytes);
      e.graph_token_sizes = vllm_graph_sizes(l.max_seqs, l.max_batched_tokens);
      e.graphs_for_mixed_steps = true;
      e.host.overlapped = o.overlap_scheduling >= 0 ? o.overlap_scheduling != 0 : true;
      memory_rule = "gpu_memory_utilization " + std::to_string(e.memory_fraction).substr(0, 5) +
                    " x CUDA total - weights - start-up peak (activations of max_num_batched_tokens, NCCL, context)";
      break;
    }
    case ServingEngine::sglang: {
      l.policy = SchedulerPolicy::sglang;
      l.max_batched_tokens = o.max_num_batched_tokens > 0 ? o.max_num_batched_tokens : 8192;
      l.max_prefill_tokens = 16384;
      l.chunked_prefill = true;
      l.block_tokens = 1;
      const int64_t graph_max_bs = tp < 4 ? 256 : 512;
      const double smi_mib = gpu.hbm_gb * 1024.0 * kSmiShare;
      const double reserved_mib = std::max(
          512 + 1.5 * static_cast<double>(std::max<int64_t>(l.max_batched_tokens, 2048)) + 2.0 * static_cast<double>(graph_max_bs) + tp / 8.0 * 1024,
          smi_mib > 60 * 1024 ? 10240.0 : 0.0);
      e.memory_fraction = o.memory_fraction > 0 ? o.memory_fraction : std::round((smi_mib - reserved_mib) / smi_mib * 1000) / 1000;
      e.kv_bytes_per_gpu = e.memory_fraction * total - weights;
      e.graph_token_sizes = sglang_graph_sizes(graph_max_bs);
      e.host.overlapped = o.overlap_scheduling >= 0 ? o.overlap_scheduling != 0 : true;
      char rule[200];
      std::snprintf(rule, sizeof rule, "mem_fraction_static %.3f x CUDA total - weights", e.memory_fraction);
      memory_rule = rule;
      break;
    }
    case ServingEngine::trtllm: {
      l.policy = SchedulerPolicy::trtllm;
      l.max_batched_tokens = o.max_num_batched_tokens > 0 ? o.max_num_batched_tokens : 8192;
      l.max_seqs = o.max_num_seqs > 0 ? o.max_num_seqs : 2048;
      l.max_prefill_tokens = l.max_batched_tokens;
      l.chunked_prefill = o.chunked_prefill >= 0 ? o.chunked_prefill != 0 : false;
      l.block_tokens = 32;
      e.memory_fraction = o.memory_fraction > 0 ? o.memory_fraction : 0.9;
      e.kv_bytes_per_gpu =
          e.memory_fraction * (total - weights - trtllm_runtime_bytes_per_gpu(model, tp, l.max_batched_tokens, kTrtllmOtherBytes));
      e.graph_token_sizes = trtllm_graph_sizes();
      e.graph_padding = false;
      e.host.overlapped = o.overlap_scheduling >= 0 ? o.overlap_scheduling != 0 : true;
      memory_rule = "free_gpu_memory_fraction " + std::to_string(e.memory_fraction).substr(0, 4) +
                    " x (CUDA total - start-up peak: weights, activations of max_num_tokens, NCCL, context)";
      break;
    }
  }
  e.memory_rule = memory_rule;
  if (!(e.kv_bytes_per_gpu > 0) || !(kv_bytes_per_token_per_gpu > 0))
    throw_error("%s on %s x%d: no memory is left for the KV cache (%.2f GiB per GPU after the weights' %.2f GiB, by "
                "the engine's rule: %s); raise tp or memory_fraction, or choose a larger GPU",
                name.c_str(), gpu.name.c_str(), tp, e.kv_bytes_per_gpu / kGiB, weights / kGiB, memory_rule.c_str());
  const int64_t blocks = static_cast<int64_t>(e.kv_bytes_per_gpu / kv_bytes_per_token_per_gpu) / l.block_tokens;
  if (blocks < 1)
    throw_error("%s on %s x%d: the KV cache holds no block of %lld tokens", name.c_str(), gpu.name.c_str(), tp,
                static_cast<long long>(l.block_tokens));
  e.kv_tokens = blocks * l.block_tokens;
  if (engine == ServingEngine::sglang) {
    // max_running_requests: min(KV tokens / 2, the request pool: KV tokens / context x 512 within [2048, 4096])
    const double pool = std::clamp(std::floor(static_cast<double>(e.kv_tokens) / static_cast<double>(model.context_tokens) * 512),
                                   2048.0, 4096.0);
    l.max_seqs = o.max_num_seqs > 0 ? o.max_num_seqs : std::max<int64_t>(1, std::min<int64_t>(e.kv_tokens / 2, static_cast<int64_t>(pool)));
  }
  const HostFit& fit = host_fit(engine);
  e.host.graph_step_ms = o.host_step_ms >= 0 ? o.host_step_ms : fit.graph_step_ms;
  e.host.eager_step_ms = o.host_step_ms >= 0 ? o.host_step_ms : fit.eager_step_ms;
  e.host.per_seq_us = o.host_per_seq_us >= 0 ? o.host_per_seq_us : fit.per_seq_us;
  e.frontend_ms = o.frontend_ms >= 0 ? o.frontend_ms : fit.frontend_ms;
  e.frontend_serial_ms = o.frontend_serial_ms >= 0 ? o.frontend_serial_ms : fit.frontend_serial_ms;
  e.kernel_time_factor = o.kernel_time_factor;
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "%s as it serves: %s scheduler (%lld tokens per step, %lld requests, %s prefill, %lld-token KV "
                "blocks); KV cache %lld tokens (%.2f GiB per GPU: %s); %s; host %.2f ms per captured step, %.2f ms "
                "per eager step, %.1f us per request, %s; front end %.2f ms per request and %.2f ms one request at a time (%s); "
                "kernel time x %.3f",
                name.c_str(), name.c_str(), static_cast<long long>(l.max_batched_tokens), static_cast<long long>(l.max_seqs),
                l.chunked_prefill ? "chunked" : "whole", static_cast<long long>(l.block_tokens),
                static_cast<long long>(e.kv_tokens), e.kv_bytes_per_gpu / kGiB, memory_rule.c_str(),
                e.graph_token_sizes.empty() ? "no CUDA graphs"
                : e.graphs_for_mixed_steps   ? "CUDA graphs up to the largest captured size, mixed steps too"
                                             : "CUDA graphs for decode-only steps",
                e.host.graph_step_ms, e.host.eager_step_ms, e.host.per_seq_us,
                e.host.overlapped ? "overlapped with the GPU" : "exposed", e.frontend_ms, e.frontend_serial_ms, fit.source,
                e.kernel_time_factor);
  e.source = buf;
  return e;
}

double ServingStepCost::prefill_seconds(const std::vector<PrefillPiece>& pieces) const {
  return mixed_seconds(pieces, DecodeWork{}, 0);
}

double ServingStepCost::decode_seconds(const DecodeWork& work) const { return mixed_seconds({}, work, 0); }

double ServingStepCost::mixed_seconds(const std::vector<PrefillPiece>& pieces, const DecodeWork& work,
                                      int64_t /*run_tokens*/) const {
  int64_t tokens = work.query_tokens;
  for (const PrefillPiece& p : pieces) tokens += p.new_tokens;
  if (tokens <= 0) return 0;
  const int64_t graph = serving_.graph_tokens(tokens, pieces.empty());
  double gpu_s;
  if (pieces.empty()) {
    DecodeWork padded = work;
    if (graph > padded.query_tokens) padded.query_tokens = graph;
    gpu_s = base_->decode_seconds(padded);
  } else if (work.query_tokens <= 0) {
    gpu_s = base_->prefill_seconds(pieces);
  } else {
    gpu_s = base_->mixed_seconds(pieces, work, graph > 0 ? graph : tokens);
  }
  gpu_s *= serving_.kernel_time_factor;
  const int64_t requests = static_cast<int64_t>(pieces.size()) + work.sequences;
  return gpu_s + serving_.host.exposed_s(gpu_s, requests, graph > 0);
}

}  // namespace lynx
