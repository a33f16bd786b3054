// Mixture-of-experts arithmetic for the roofline: which expert weights a pass reads and what expert parallelism
// sends. A pass of B tokens, each routed to top-k of E experts, reads the weights of the distinct experts the batch
// touches. Under uniform, independent routing an expert is missed by one token with probability 1 - k/E, so the
// expected number touched is E x (1 - (1 - k/E)^B) (one token: k; B -> infinity: E). Why this form: it is the
// closed form the roofline needs (weights read = attention and dense weights + touched experts), and it bounds the
// bytes from above for skewed routing, which touches fewer distinct experts.
// Load imbalance (MoeParallel::load_imbalance, >= 1): with experts split over ep GPUs the step waits for the busiest
// one; the factor is that GPU's expert work over the mean (1 = uniform routing, the closed form's own assumption;
// a user enters a measured max/mean, e.g. from a routing trace). It scales the expert FLOPs and bytes, and only
// with ep > 1: tensor-parallel experts (ep 1) put a slice of every expert on every GPU, so routing cannot unbalance
// them.
// Expert parallelism (ep, dividing tp): attention and dense layers are tensor-parallel over the replica's tp GPUs;
// each MoE layer's experts are split over ep groups of tp/ep GPUs. A MoE layer then sends each token's hidden
// vector (bf16) to its k experts' GPUs and back (all-to-all dispatch and combine) in place of its all-reduce: of
// the B x k expert inputs, (ep - 1)/ep leave their GPU, spread over the ep GPUs' links, so each direction takes
// B x k x hidden x 2 B x (ep - 1)/ep / ep / NVLink bandwidth.
#pragma once
#include <cstdint>

#include "models/arch/catalog.hpp"

namespace lynx {

struct MoeParallel {
  int64_t expert_parallel = 1;  // ep: GPU groups the experts are split over (1: experts tensor-parallel)
  double load_imbalance = 1;    // busiest expert-parallel GPU's expert work over the mean, >= 1
};

// Expected distinct experts touched by `tokens` tokens routed top-k of E, uniform routing: E (1 - (1 - k/E)^B).
double expected_distinct_experts(int64_t experts, int64_t top_k, double tokens);

// Parameters a pass over `tokens` tokens reads: every non-expert parameter (the embedding table included) plus, per
// MoE layer, expected_distinct_experts routed experts. The total for a dense model.
double params_read(const ModelSpec& model, double tokens);

// Seconds of one MoE layer's all-to-all (dispatch + combine) for `tokens` tokens at `nvlink_bytes_per_s` per GPU;
// 0 when ep is 1 or the model is dense.
double moe_all_to_all_seconds(const ModelSpec& model, const MoeParallel& parallel, double tokens,
                              double nvlink_bytes_per_s);

// Throws a LynxError unless ep divides tp and the routed experts, and load_imbalance >= 1; `where` names the
// configuration (e.g. "cluster.decode").
void check_moe_parallel(const ModelSpec& model, const MoeParallel& parallel, int64_t tensor_parallel,
                        const std::string& where);

}  // namespace lynx
