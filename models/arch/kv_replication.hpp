// KV replication under tensor parallelism: which KV heads each GPU of a tensor-parallel replica holds, and how many
// copies of each head a pool keeps. A replica of tp GPUs splits a layer's kv_heads among its GPUs; when tp exceeds
// kv_heads a head cannot be split (its head_dim is one attention head's), so every head lives whole on
// tp / kv_heads GPUs (vLLM and SGLang replicate it so; they require tp to be a multiple of kv_heads there).
// The head count is an argument, not read from a model, so that a model whose KV is one shared latent per layer
// (MLA: held whole on every rank) is the call kv_heads = 1.
#pragma once
#include <cstdint>

#include "common/enum_names.hpp"

namespace lynx {

// Copies of each KV head a tp-GPU replica holds: tp / kv_heads when tp > kv_heads, else 1. A tp above kv_heads that
// is not a multiple of it holds some heads on more GPUs than others; the count is then the mean, tp / kv_heads as a
// fraction, so that bytes stay exact in total.
double kv_head_copies(int64_t kv_heads, int64_t tp);

// The head interval GPU `rank` of a tp-GPU replica holds, in heads: [first, last). With tp <= kv_heads the
// ranks split the heads evenly ([rank * kv_heads / tp, (rank + 1) * kv_heads / tp), fractional where tp does not
// divide kv_heads, as the byte shares of sim/transfer/nic_shares.hpp count them); with tp > kv_heads rank r holds head
// floor(r * kv_heads / tp) whole.
struct HeadSlice {
  double first = 0, last = 0;
};
HeadSlice rank_heads(int64_t kv_heads, int64_t tp, int64_t rank);
// Which copy of its head rank `rank` holds: 0 for the first GPU holding that head, 1 for the next, ...; always 0
// when tp <= kv_heads.
int64_t rank_replica(int64_t kv_heads, int64_t tp, int64_t rank);

// How a transfer engine moves replicated heads. send_all: every decode GPU receives every head it holds from
// the prefill side (bytes on the wire = the model's KV x the decode pool's copies); send_once: each head crosses
// once, to its first decode copy (the other copies are filled inside the decode replica, which is not modelled).
enum class ReplicatedKv { send_all, send_once };
inline constexpr auto kReplicatedKvNames =
    enum_names<ReplicatedKv>({{ReplicatedKv::send_all, "send_all"}, {ReplicatedKv::send_once, "send_once"}});

// Bytes on the wire per byte of the model's KV (every head once): kv_head_copies(kv_heads, decode_tp) with
// send_all, 1 with send_once.
double wire_copies(int64_t kv_heads, int64_t decode_tp, ReplicatedKv mode);

}  // namespace lynx
