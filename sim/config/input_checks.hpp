// What can be checked before a simulation starts is checked before it starts, so that no error is ever raised
// inside SimGrid's engine for something the input already decided: the model's weights fit on both pools' GPUs
// (checked while the inputs are set up), and every request is positive, fits the model's context and fits (its whole KV cache) in one decode instance's
// memory (the arithmetic: capacity.hpp). Errors name the workload's file and line (or the synthetic request's index)
// and the limit.
#pragma once
#include "sim/cluster/capacity.hpp"
#include "sim/config/simulation_inputs.hpp"
#include "traces/workload_spec.hpp"

namespace lynx {

// workload.over_context "skip" or "truncate": drops, or cuts the prompt of, each request longer than the model's
// context (truncation keeps the prompt's last tokens: context - output of them, at least 1, and the output then
// fills the rest), renumbers the requests and counts both in `in`. "error" leaves them to check_simulation_inputs.
void apply_over_context(SimulationInputs& in, OverContextPolicy policy);

// The model's weights fit on `pool`'s GPUs (`path` its JSON path): a vidur-2024 pool's HBM less its reserve, a named
// engine's GPUs as CUDA reports them. simulation_inputs calls it as soon as the model and GPUs are known, before any
// table is read or a named engine sizes its KV cache (whose own error is for a rule that leaves nothing after
// weights that do fit).
void check_weights_fit(const SimulationInputs& in, const PoolConfig& pool, const GpuSpec& gpu, const char* path);
// Throws LynxError for the first request the simulation could not serve.
void check_simulation_inputs(const SimulationInputs& in);
// The per-request part of it, for a request read as it is needed (SimulationInputs::request_source).
void check_request(const SimulationInputs& in, const Request& r);

}  // namespace lynx
