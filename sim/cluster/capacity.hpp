// The GPU memory arithmetic of the two pools, in one place: what an instance has for KV once its weights are
// loaded, what a request holds on each side, and the format's bytes per token. The instances reserve and release
// against these numbers (prefill: the prompt's bf16 KV until it has left; decode: the whole KV of prompt and output
// in the wire format, reserved FIFO before the transfer); input_checks.hpp refuses, before the run, a request
// that could never fit. Bytes are decimal (an HBM of 141 GB is 141e9 bytes, as datasheets count it).
#pragma once
#include <cstdint>

#include "models/arch/catalog.hpp"
#include "sim/config/sim_config.hpp"
#include "sim/config/simulation_inputs.hpp"

namespace lynx {

// Bytes of one model replica's weights in the configured weights_dtype (model_weight_bytes: bf16 2 per parameter;
// fp8 1 per parameter of the decoder blocks, 2 of the embedding table and LM head).
double weight_bytes(const SimulationInputs& in);

// A pool's replica memory before the weights (vidur-2024): its tp GPUs' HBM less the reserved fraction. A pool on a
// named engine has the KV cache its engine sizes (EngineServing::kv_bytes_per_gpu on each GPU).
double pool_usable_bytes(const GpuSpec& gpu, const PoolConfig& pool);

// A prefill step's token budget: the pool's engine's where it chunks (vLLM max_num_batched_tokens, SGLang
// chunked_prefill_size, TRT-LLM max_num_tokens with chunked prefill on), vidur-2024's chunked_prefill_tokens; 0:
// whole prompts, one a step.
int64_t prefill_token_budget(const SimulationInputs& in);

// Bytes of one decode instance's GPU memory left for KV caches: pool_usable_bytes less the weights, counted in the
// model's KV bytes (each head once): when the decode tp exceeds the model's KV heads every head is held on
// tp / kv_heads GPUs (models/arch/kv_replication.hpp), so the memory holds that many times fewer of the model's bytes
// (whatever transfer.replicated_kv sends: the decode GPUs hold every copy).
double decode_kv_capacity_bytes(const SimulationInputs& in);
// Bytes of one prefill instance's GPU memory left for the KV it computes and has not yet sent (and, with prefix
// caching, cached prefixes): likewise.
double prefill_kv_capacity_bytes(const SimulationInputs& in);

// The KV a request's prefill holds on the prefill GPU until it is sent: its prompt's KV in bf16, the format the
// prefill computes (it is quantized into wire chunks as it leaves).
double prefill_kv_bytes(const SimulationInputs& in, int64_t prompt_tokens);

// Steady-state KV bytes per token of the run's format (whole cache, and its anchor stream alone), measured over
// 65,536 tokens so that KIVI's fp16 tail and fp8's per-tensor scale are amortised away.
struct KvBytesPerToken {
  double full = 0;
  double anchor = 0;
};
KvBytesPerToken kv_bytes_per_token(const SimulationInputs& in);
// The same for `format` (a candidate of the adaptive format policy).
KvBytesPerToken kv_bytes_per_token(const SimulationInputs& in, const KvFormat& format);

// What a request reserves on its decode instance: its whole KV, prompt and output, at `full_bytes_per_token`.
double decode_reservation_bytes(double full_bytes_per_token, int64_t input_tokens, int64_t output_tokens);

}  // namespace lynx
