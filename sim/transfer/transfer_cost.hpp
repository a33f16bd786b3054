// What moving KV with a real transfer engine costs beyond an ideal fluid flow, as three terms that each map onto
// the simulator exactly:
//   - a fixed cost per transfer (one request's stream): setup_us before its first byte (metadata exchange,
//     descriptor preparation) and notify_us after its last byte has arrived (the completion notification);
//   - a per-message cost: the engine posts one RDMA write per contiguous piece of paged KV (a block of block_tokens
//     tokens of one layer, one of its KV tensors, one GPU pair's head slice; contiguous blocks coalesced up to
//     max_message_bytes when that is set), and each costs per_message_us (post + completion) whether or not the
//     link is shared: a delay before the flow that carries the pieces;
//   - the achieved rate: a NIC's capacity is efficiency x its line rate (protocol headers, PCIe, the engine's
//     limits), so flows share that capacity max-min as before.
// One transfer of `bytes` bytes in n messages on an idle NIC of line rate B therefore takes exactly
//   setup + n x per_message + bytes / (efficiency x B) + latency + notify,
// and a transfer's achieved rate against its piece size comes out of these terms (no fitted curve of its own):
// with pieces of b bytes, b / (per_message + b / (efficiency x B)). The terms are additive, not overlapped: the
// published sweeps the presets come from are fitted by that form at the piece sizes KV is cut into (1 KiB to 256
// KiB), and a closed form per term can be checked. Presets (`transfer.engine`) come only from the engines'
// published micro-benchmarks; each number's source is beside it in transfer_cost.cpp.
#pragma once
#include <cstdint>

#include "common/enum_names.hpp"
#include "models/arch/kv_replication.hpp"
#include "sim/network/network_config.hpp"

namespace lynx {

// The presets and their names (transfer.engine).
enum class TransferEngineKind { ideal, mooncake_rdma, nixl_ucx };
inline constexpr auto kTransferEngineNames = enum_names<TransferEngineKind>(
    {{TransferEngineKind::ideal, "ideal"}, {TransferEngineKind::mooncake_rdma, "mooncake-rdma"},
     {TransferEngineKind::nixl_ucx, "nixl-ucx"}});

struct TransferCost {
  double setup_us = 0;             // per transfer (request x stream), before its first byte
  double notify_us = 0;            // per transfer, after its last byte has arrived
  double per_message_us = 0;       // per message (post + completion)
  double efficiency = 1;           // achieved rate ceiling as a fraction of a NIC's line rate
  int64_t block_tokens = 16;       // tokens per paged KV block: the engine's piece
  int64_t max_message_bytes = 0;   // contiguous blocks coalesced up to this many bytes; 0: one message per block
  ReplicatedKv replicated_kv = ReplicatedKv::send_once;  // replicated heads under TP (models/arch/kv_replication.hpp)
};

// A preset's parameters (ideal: every cost 0, efficiency 1, heads sent once: a fluid flow at line rate).
TransferCost transfer_engine_preset(TransferEngineKind engine);

// Messages of one flow: `gpu_pairs` GPU pairs (nic_shares.hpp), each sending, for `layers` layers and
// `kv_tensors_per_layer` tensors per layer (K and V: 2), the blocks of `tokens_held` tokens, coalesced per the
// cost's max_message_bytes; `flow_bytes` is the flow's total, from which a block's bytes follow. 0 bytes: 0.
int64_t flow_messages(const TransferCost& cost, int64_t tokens_held, int64_t layers, int64_t kv_tensors_per_layer,
                      int64_t gpu_pairs, uint64_t flow_bytes);

// The closed form of one transfer on an idle NIC (seconds): setup + messages x per_message + bytes / (efficiency
// x line rate) + latency + notify. The simulator gives exactly this (tests/sim/test_transfer_engine.cpp);
// `lynxsim validate` predicts published measurements with it.
double idle_transfer_seconds(const TransferCost& cost, int64_t messages, double bytes, double line_bytes_per_s,
                             double latency_s);

// The network the simulator builds for a configuration: each NIC's capacity is efficiency x nic_gbps; a
// leaf-spine uplink keeps its line-rate capacity (the ceiling is the endpoints', not the switches').
NetworkConfig engine_network(const NetworkConfig& network, const TransferCost& cost, int max_nics_per_node);

}  // namespace lynx
