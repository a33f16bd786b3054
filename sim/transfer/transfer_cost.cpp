#include "sim/transfer/transfer_cost.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"

namespace lynx {

TransferCost transfer_engine_preset(TransferEngineKind engine) {
  TransferCost c;
  switch (engine) {
    case TransferEngineKind::ideal:
      return c;  // the fluid model: no fixed or per-message cost, line rate, each head sent once
    case TransferEngineKind::mooncake_rdma:
      // Achieved rate: Mooncake README, "Performance": 40 GB moved at 87 GB/s over 4 x 200 Gbps RoCE (100 GB/s).
      c.efficiency = 0.87;
      // Per message: kvcache-ai/Mooncake issue #1096, transfer_engine_bench with 4 KiB blocks, batch 128, 8 threads
      // on one device: 13.04 GB/s; the device taken as 200 Gbps (25 GB/s: the same reporter's 8 devices in issue
      // #1158, where the maintainers say they measure on 200 GbE x 8): 4096 B / 13.04 GB/s - 4096 B / (0.87 x 25
      // GB/s) = 0.314 - 0.188 us.
      c.per_message_us = 0.126;
      // Fixed: uccl-project/uccl pull request #265, Mooncake TE single writes of 1, 4, 16 and 64 KiB at 0.04, 0.05,
      // 0.32 and 0.60 GB/s = 25.6, 81.9, 51.2 and 109.2 us (their wire time is under 3 us): the median, 66.6 us.
      c.setup_us = 66.6;
      c.notify_us = 0;  // inside the measured single-transfer time above (not separable)
      // Pieces: vLLM's default paged block of 16 tokens (vLLM engine arguments, --block-size); one message per
      // block, layer and K or V, as the connectors register and post them.
      c.block_tokens = 16;
      c.max_message_bytes = 0;
      // Replicated heads: each decode rank pulls its heads from a prefill rank, replicas included (a published
      // deployment, TP 8 on both sides, moved exactly twice the model's KV with 4 KV heads).
      c.replicated_kv = ReplicatedKv::send_all;
      return c;
    case TransferEngineKind::nixl_ucx:
      // LMCache pull request #4161, NIXL with the UCX backend, one rail, one transfer outstanding (O1), host DRAM
      // READ; the rail's line rate taken as 100 Gbps (12.5 GB/s: the dual-rail column reaches 24.4 GB/s). One
      // descriptor per transfer (IOV 1), 16 MiB at 12.159 GB/s and 64 MiB at 12.227 GB/s: a line through both has
      // slope 1 / 12.25 GB/s (efficiency 12.25 / 12.5 = 0.98) and intercept 10.23 us (setup + one message).
      c.efficiency = 0.98;
      // IOV 256 of 4 KiB (1 MiB at 4.688 GB/s): 223.7 us = 10.23 + 255 more messages + 1 MiB / 12.25 GB/s.
      c.per_message_us = 0.501;
      c.setup_us = 9.73;  // 10.23 us less one message
      c.notify_us = 0;    // inside the intercept (not separable)
      c.block_tokens = 16;  // vLLM's default block (vLLM engine arguments, --block-size)
      c.max_message_bytes = 0;  // vLLM's NIXL connector registers one descriptor per block, layer and K or V
      c.replicated_kv = ReplicatedKv::send_all;  // each decode rank reads its heads from a prefill rank
      return c;
  }
  throw_internal_error("transfer_engine_preset: unknown engine %d", static_cast<int>(engine));
}

int64_t flow_messages(const TransferCost& cost, int64_t tokens_held, int64_t layers, int64_t kv_tensors_per_layer,
                      int64_t gpu_pairs, uint64_t flow_bytes) {
  if (flow_bytes == 0 || tokens_held <= 0) return 0;
  const int64_t blocks = (tokens_held + cost.block_tokens - 1) / cost.block_tokens;
  const int64_t slices = layers * kv_tensors_per_layer * gpu_pairs;  // each a run of `blocks` blocks
  int64_t per_slice = blocks;
  if (cost.max_message_bytes > 0) {
    const double block_bytes = static_cast<double>(flow_bytes) / static_cast<double>(slices * blocks);
    const auto blocks_per_message =
        std::max<int64_t>(1, static_cast<int64_t>(std::floor(static_cast<double>(cost.max_message_bytes) / block_bytes)));
    per_slice = (blocks + blocks_per_message - 1) / blocks_per_message;
  }
  return slices * per_slice;
}

double idle_transfer_seconds(const TransferCost& cost, int64_t messages, double bytes, double line_bytes_per_s,
                             double latency_s) {
  return cost.setup_us * 1e-6 + static_cast<double>(messages) * cost.per_message_us * 1e-6 +
         bytes / (cost.efficiency * line_bytes_per_s) + latency_s + cost.notify_us * 1e-6;
}

NetworkConfig engine_network(const NetworkConfig& network, const TransferCost& cost, int max_nics_per_node) {
  NetworkConfig n = network;
  if (cost.efficiency == 1.0) return n;
  if (n.topology == Topology::leaf_spine && n.uplink_gbps <= 0)
    n.uplink_gbps = n.hosts_per_rack * max_nics_per_node * n.nic_gbps / n.oversubscription;  // platform.cpp's rule
  for (SiteConfig& site : n.sites.sites)  // the same for each leaf-spine site; site links keep their capacity
    if (site.topology == SiteTopology::leaf_spine && site.uplink_gbps <= 0)
      site.uplink_gbps = site.hosts_per_rack * max_nics_per_node * n.nic_gbps / site.oversubscription;
  n.nic_gbps *= cost.efficiency;
  return n;
}

}  // namespace lynx
