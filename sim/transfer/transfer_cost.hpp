// What moving KV with a real connector costs beyond an ideal fluid flow. Two parts, each a preset users name:
//   - the connector (transfer.connector: vLLM's MooncakeConnector, vLLM's NixlConnector, SGLang with Mooncake,
//     LMCache) decides what one message is: a paged block of one layer and one of K or V per GPU pair, contiguous
//     blocks merged into one request or not, all layers of a block together or not, K and V together or not; and
//     its fixed costs per transfer (one request's stream): setup_us before the first byte (metadata, handshake),
//     notify_us after the last (the completion notification);
//   - the transport under it (transfer.transport: RDMA verbs over RoCE/InfiniBand, AWS EFA's SRD, GCP's
//     GPUDirect-TCPXO), with the transfer library the connector uses (Mooncake Transfer Engine or NIXL), decides
//     what a message costs on the wire: the library cuts a message into ops of at most slice_bytes; each GPU pair
//     keeps at most `inflight` ops outstanding, each taking op_latency_us plus its wire time; posting and reaping
//     ops is serial at per_message_us each; the NIC reaches efficiency x its line rate.
// So a flow of S bytes in n ops of mean size m = S / n over g GPU pairs on a NIC of line rate B runs at most at
//   bound = g x min(m / per_message, min(inflight, n / g) x m / (op_latency + m / (efficiency x B)))
// (a term with a zero cost drops out), and SimGrid shares the NIC's capacity efficiency x B max-min among flows,
// each capped by its bound (a per-flow rate bound, sim/engine/event_loop.hpp): the per-message costs overlap the wire
// instead of queueing before it, and the achieved rate against message size comes out of the terms. On an idle NIC
// one transfer's flow therefore arrives exactly at
//   setup + S / min(efficiency x B, bound) + latency + notify
// (idle_transfer_seconds; tests/sim/test_transfer_engine.cpp checks the simulator against it for every preset).
// Each number's source is beside it in transfer_cost.cpp; fitted terms name the rows they were fitted on and
// `lynxsim validate` shows the rest held out (transfer_validation.hpp).
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "common/enum_names.hpp"
#include "models/arch/kv_replication.hpp"
#include "sim/network/network_config.hpp"

namespace lynx {

// The connector presets (transfer.connector).
enum class TransferConnector { ideal, vllm_mooncake, vllm_nixl, sglang_mooncake, lmcache };
inline constexpr auto kTransferConnectorNames = enum_names<TransferConnector>(
    {{TransferConnector::ideal, "ideal"},
     {TransferConnector::vllm_mooncake, "vllm-mooncake"},
     {TransferConnector::vllm_nixl, "vllm-nixl"},
     {TransferConnector::sglang_mooncake, "sglang-mooncake"},
     {TransferConnector::lmcache, "lmcache"}});

// The transports (transfer.transport).
enum class TransferTransport { rdma, efa, tcpxo };
inline constexpr auto kTransferTransportNames = enum_names<TransferTransport>(
    {{TransferTransport::rdma, "rdma"}, {TransferTransport::efa, "efa"}, {TransferTransport::tcpxo, "tcpxo"}});

// The transfer library a connector moves KV with.
enum class TransferLibrary { none, mooncake, nixl };
TransferLibrary connector_library(TransferConnector connector);
const char* transfer_library_name(TransferLibrary library);

struct TransferCost {
  // Connector: fixed costs per transfer (one request's stream).
  double setup_us = 0;   // before its first byte
  double notify_us = 0;  // after its last byte has arrived
  // Connector: what one message is.
  int64_t block_tokens = 16;      // tokens per paged KV block: the connector's unit
  bool coalesce = false;          // contiguous blocks merged into one message
  int64_t max_message_bytes = 0;  // a merged message holds at most this many bytes (0: no cap)
  bool layers_together = false;   // one message holds a block's every layer of the chunk (else one layer)
  bool kv_together = false;       // one message holds K and V (else one of them)
  ReplicatedKv replicated_kv = ReplicatedKv::send_once;  // replicated heads under TP (models/arch/kv_replication.hpp)
  // Transport (with the connector's library): what a message costs.
  int64_t slice_bytes = 0;      // the library cuts a message into ops of at most this many bytes (0: one op)
  double per_message_us = 0;    // serial cost per op (post + completion): ops per second per GPU pair <= 1 / it
  int64_t inflight = 0;         // ops outstanding per GPU pair (0: no limit)
  double op_latency_us = 0;     // one op's round trip beyond its wire time (with inflight)
  double efficiency = 1;        // achieved rate ceiling as a fraction of a NIC's line rate
};

// A preset: the connector's semantics and fixed costs with the transport's terms for the connector's library.
// Throws LynxError naming both where no published measurement covers the pair (say which exist).
TransferCost transfer_preset(TransferConnector connector, TransferTransport transport);
// Whether the pair has a preset (its message if not); the transports the connector's library has, "a, b".
std::string transfer_transports_measured(TransferConnector connector);
std::optional<std::string> transfer_preset_missing(TransferConnector connector, TransferTransport transport);

// Ops of one flow: `gpu_pairs` GPU pairs (nic_shares.hpp), each sending, for `layers` layers and
// `kv_tensors_per_layer` tensors per layer (K and V: 2; MLA's latent: 1), the blocks of `tokens_held` tokens; the
// connector's messages (blocks, merged or not, per layer or not, per tensor or not), each cut into ops of at most
// slice_bytes; `flow_bytes` is the flow's total, from which a block's bytes follow. 0 bytes: 0.
int64_t flow_messages(const TransferCost& cost, int64_t tokens_held, int64_t layers, int64_t kv_tensors_per_layer,
                      int64_t gpu_pairs, uint64_t flow_bytes);

// The rate bound of one flow of `bytes` bytes in `messages` ops over `gpu_pairs` GPU pairs on a NIC of line rate
// `line_bytes_per_s` (bytes/s; +infinity when no term bounds it): the formula in the header comment.
double flow_rate_bound(const TransferCost& cost, int64_t messages, int64_t gpu_pairs, double bytes,
                       double line_bytes_per_s);

// The closed form of one transfer of one flow on an idle NIC (seconds): setup + bytes / min(efficiency x line
// rate, bound) + latency + notify. The simulator gives exactly this (tests/sim/test_transfer_engine.cpp);
// `lynxsim validate` predicts published measurements with it.
double idle_transfer_seconds(const TransferCost& cost, int64_t messages, int64_t gpu_pairs, double bytes,
                             double line_bytes_per_s, double latency_s);

// The network the simulator builds for a configuration: each NIC's capacity is efficiency x nic_gbps; a
// leaf-spine uplink keeps its line-rate capacity (the ceiling is the endpoints', not the switches').
NetworkConfig engine_network(const NetworkConfig& network, const TransferCost& cost, int max_nics_per_node);

}  // namespace lynx
