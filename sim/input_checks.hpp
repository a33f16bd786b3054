// What can be checked before a simulation starts is checked before it starts, so that no error is ever raised
// inside SimGrid's engine for something the input already decided: the model's weights fit on both pools' GPUs,
// and every request is positive, fits the model's context and fits (its whole KV cache) in one decode instance's
// memory. Errors name the workload's file and line (or the synthetic request's index) and the limit.
#pragma once
#include "sim/simulation.hpp"

namespace lynx {

// Bytes of one decode instance's GPU memory left for KV caches: tp GPUs' HBM, less the reserved fraction, less
// the bf16 weights of the replica.
double decode_kv_capacity_bytes(const SimulationInputs& in);

// Bytes of one prefill instance's GPU memory left for the KV it computes and has not yet sent (and, with prefix
// caching, cached prefixes): likewise HBM less reserve less weights.
double prefill_kv_capacity_bytes(const SimulationInputs& in);
// The KV a request's prefill holds on the prefill GPU until it is sent: its prompt's KV in bf16, the format the
// prefill computes (it is quantized into wire chunks as it leaves).
double prefill_kv_bytes(const SimulationInputs& in, int64_t prompt_tokens);

// Steady-state KV bytes per token of the run's format (whole cache, and its anchor stream alone).
struct KvBytesPerToken {
  double full = 0;
  double anchor = 0;
};
KvBytesPerToken kv_bytes_per_token(const SimulationInputs& in);

// workload.over_context "skip" or "truncate": drops, or cuts the prompt of, each request longer than the model's
// context (truncation keeps the prompt's last tokens: context - output of them, at least 1, and the output then
// fills the rest), renumbers the requests and counts both in `in`. "error" leaves them to check_simulation_inputs.
void apply_over_context(SimulationInputs& in, const std::string& policy);

// Throws LynxError for the first input the simulation could not serve.
void check_simulation_inputs(const SimulationInputs& in);
// The per-request part of it, for a request read as it is needed (SimulationInputs::request_source).
void check_request(const SimulationInputs& in, const Request& r);

}  // namespace lynx
