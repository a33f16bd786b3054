// How a request's KV crosses between two tensor-parallel instances, NIC by NIC. Each GPU of a tp-GPU replica holds
// a slice of each layer's KV heads (models/arch/kv_replication.hpp: an even share of them, or, when tp exceeds the head
// count, one head whole, replicated on tp / kv_heads GPUs); each destination GPU needs the heads it holds. The bytes
// of the heads source GPU i holds and destination GPU j needs go from i's NIC to j's NIC, as a tensor-parallel
// deployment sends them (each GPU sends its heads' slice straight to the GPU that will use them). Where several
// source GPUs hold the same head (replicas), destination copy c takes it from source copy c mod (source copies).
// With ReplicatedKv::send_all every destination GPU receives all it holds (the fractions sum to the destination's
// copies per head); with send_once only each head's first destination copy does (they sum to 1). GPU g of an
// instance with n NICs uses NIC floor(g * n / tp). The result merges GPU pairs that share a NIC pair and counts
// them: each GPU pair is its own stream of pieces (one per block, layer and K or V), so the engine's message count
// per flow is gpu_pairs times a pair's (sim/transfer/transfer_cost.hpp), which is how mixed tp (prefill tp != decode tp)
// cuts pieces by head slices.
#pragma once
#include <cstdint>
#include <vector>

#include "models/arch/kv_replication.hpp"

namespace lynx {

struct NicFlowShare {
  int src_nic = 0, dst_nic = 0;
  double fraction = 0;  // of the model's KV bytes (each head once)
  int gpu_pairs = 0;    // source-destination GPU pairs merged into this NIC pair
};

// Shares for a model with `kv_heads` KV heads per layer (callers pass model.n_kv_heads).
std::vector<NicFlowShare> kv_flow_shares(int64_t kv_heads, int src_tp, int src_nics, int dst_tp, int dst_nics,
                                         ReplicatedKv mode);
// Heads divided without replication (as many heads as either side's GPUs): the fractions sum to 1.
std::vector<NicFlowShare> nic_flow_shares(int src_tp, int src_nics, int dst_tp, int dst_nics);

// `bytes` (the model's KV, each head once) split by the shares' fractions into whole bytes that add up to exactly
// round(bytes x the fractions' sum) (the rounding remainder goes to the last share).
std::vector<uint64_t> split_bytes(uint64_t bytes, const std::vector<NicFlowShare>& shares);
// The same into `out` (its storage reused: the transfer engine splits every chunk it plans).
void split_bytes(uint64_t bytes, const std::vector<NicFlowShare>& shares, std::vector<uint64_t>& out);

}  // namespace lynx
