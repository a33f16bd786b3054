#include "sim/transfer/transfer_cost.hpp"

#include <algorithm>
#include <cmath>

#include "common/error.hpp"

namespace lynx {

namespace {

constexpr double kInf = INFINITY;

// The connector's part: what a message is, and its fixed costs beyond the library's.
TransferCost connector_semantics(TransferConnector connector) {
  TransferCost c;
  switch (connector) {
    case TransferConnector::ideal:
      return c;  // the fluid model: no fixed or per-message cost, line rate, each head sent once
    case TransferConnector::vllm_mooncake:
      // vLLM's paged block, 16 tokens (engine arguments, --block-size); the MooncakeConnector merges blocks that are
      // contiguous in both instances into one copy (vllm/distributed/kv_transfer/kv_connector/v1/mooncake/
      // mooncake_connector.py, _can_coalesce_block_transfers over contiguous block ids), one region per layer and per
      // K or V half (FlashAttention's layout keeps K and V apart).
      c.block_tokens = 16;
      c.coalesce = true;
      c.replicated_kv = ReplicatedKv::send_all;  // each decode rank gets its heads from a prefill rank
      return c;
    case TransferConnector::sglang_mooncake:
      // SGLang's KV page is one token (server arguments, --page-size 1); its Mooncake backend merges indices that are
      // contiguous in both pools (sglang/srt/disaggregation/mooncake/conn.py, group_concurrent_contiguous) and sends
      // each layer's K and V buffers separately (MHATokenToKVPool's k_buffer and v_buffer per layer).
      c.block_tokens = 1;
      c.coalesce = true;
      c.replicated_kv = ReplicatedKv::send_all;
      return c;
    case TransferConnector::vllm_nixl:
      // vLLM's NixlConnector registers one descriptor per block, layer and K or V half and reads them as they are
      // (vllm/distributed/kv_transfer/kv_connector/v1/nixl_connector.py: block descriptors, no merging); the
      // LMCache blog's Dynamo measurement shows the cost of that (7,500 tokens: 20 ms at page size 16, 8 ms at 128).
      c.block_tokens = 16;
      c.coalesce = false;
      c.replicated_kv = ReplicatedKv::send_all;  // each decode rank reads its heads from a prefill rank
      return c;
    case TransferConnector::lmcache:
      // LMCache moves KV in chunks of 256 tokens (its chunk_size default) held in one contiguous buffer per chunk
      // with every layer and both K and V (its KV_2LTD memory format): one message per chunk.
      c.block_tokens = 256;
      c.coalesce = false;
      c.layers_together = true;
      c.kv_together = true;
      c.replicated_kv = ReplicatedKv::send_all;
      return c;
  }
  throw_internal_error("connector_semantics: unknown connector %d", static_cast<int>(connector));
}

// The library's terms over a transport; false where no measurement covers the pair.
bool library_terms(TransferLibrary library, TransferTransport transport, TransferCost& c) {
  if (library == TransferLibrary::mooncake && transport == TransferTransport::rdma) {
    // Achieved rate: Mooncake README, "Performance": 40 GB moved at 87 GB/s over 4 x 200 Gbps RoCE (100 GB/s).
    c.efficiency = 0.87;
    // Ops: the RDMA transport cuts every request into slices of 64 KiB (mooncake-transfer-engine include/config.h,
    // GlobalConfig slice_size = 65536) and keeps 2 queue pairs per endpoint of 256 work requests each (the same file,
    // num_qp_per_ep = 2, max_wr = 256): 512 outstanding.
    c.slice_bytes = 65536;
    c.inflight = 512;
    // Posting: kvcache-ai/Mooncake issue #1096, transfer_engine_bench with 4 KiB blocks, batch 128, 8 threads on one
    // device: 13.04 GB/s, below the device's 0.87 x 25 GB/s: the op rate bounds it, 4096 B / 13.04 GB/s = 0.314 us.
    c.per_message_us = 0.314;
    // An op's round trip is inside setup_us (uccl's single writes below are whole transfers; they do not separate
    // it): with 512 outstanding it would bind only above 1.3 ms.
    c.op_latency_us = 0;
    // Fixed: uccl-project/uccl pull request #265, Mooncake TE single writes of 1, 4, 16 and 64 KiB at 0.04, 0.05,
    // 0.32 and 0.60 GB/s = 25.6, 81.9, 51.2 and 109.2 us (their wire time is under 3 us): the median, 66.6 us.
    c.setup_us = 66.6;
    c.notify_us = 0;  // inside the measured single-transfer time above (not separable)
    return true;
  }
  if (library == TransferLibrary::mooncake && transport == TransferTransport::efa) {
    // Mooncake TE's EFA transport posts each request as one fi_write of its whole size (efa_transport.md, "Note on
    // EFA slicing"): no slicing. Fitted by scripts/fit-transfer-terms.py on the p5en block-size sweep
    // (transfer-benchmarks/transcribed/mooncake_efa_transfer_engine_bench.csv; GPU-to-GPU writes, 16 x 200 Gbps,
    // threads 16, batch 128), training rows 64 KiB, 256 KiB and 2 MiB: efficiency 366.87 / 400 GB/s at 2 MiB; the
    // knee between 64 and 256 KiB gives 4 ops outstanding at 40.33 us each. The bench keeps 128 requests per NIC in
    // flight; 4 is the effective window its single CQ poller and per-NIC post lock leave (the same document). A
    // serial posting cost is not separate in the sweep (it would sharpen the knee the sweep shows smooth): 0.
    c.efficiency = 0.917;
    c.slice_bytes = 0;
    c.inflight = 4;
    c.op_latency_us = 40.33;
    c.per_message_us = 0;
    // No per-transfer figure is published for EFA: the library's software path as measured over RDMA (66.6 us,
    // uccl PR #265), an assumption.
    c.setup_us = 66.6;
    c.notify_us = 0;
    return true;
  }
  if (library == TransferLibrary::nixl && transport == TransferTransport::rdma) {
    // LMCache pull request #4161, NIXL with the UCX backend, one rail, one transfer outstanding (O1), host DRAM
    // READ; the rail's line rate taken as 100 Gbps (12.5 GB/s: the dual-rail column reaches 24.4 GB/s). One
    // descriptor per transfer (IOV 1), 16 MiB at 12.159 GB/s and 64 MiB at 12.227 GB/s: a line through both has
    // slope 1 / 12.25 GB/s (efficiency 0.98) and intercept 10.23 us (setup + one op's latency). IOV 256 of 4 KiB
    // (1 MiB at 4.688 GB/s) and of 16 KiB (4 MiB at 11.667 GB/s) give the window: 2 descriptors outstanding of 1.344
    // us each (1 or 4 miss the 16 KiB row by +34% and -3%), so setup 10.23 - 1.344 = 8.89 us.
    c.efficiency = 0.98;
    c.slice_bytes = 0;  // one op per descriptor
    c.inflight = 2;
    c.op_latency_us = 1.344;
    c.per_message_us = 0;  // inside the window's round trip (the sweep does not separate a serial part)
    c.setup_us = 8.89;
    c.notify_us = 0;  // inside the intercept (not separable)
    return true;
  }
  if (library == TransferLibrary::nixl && transport == TransferTransport::tcpxo) {
    // ai-dynamo/nixl PR #2276: nixlbench on GCP A3-Mega with the GPUDirect-TCPXO plugin, VRAM to VRAM, 4 threads,
    // batch 1 (4 ops outstanding), one GPU's 200 Gbps NIC taken as the pair's line. Fitted by
    // scripts/fit-transfer-terms.py on 4 KiB READ (27.18 MB/s: 602.6 us per op) and 64 MiB WRITE (23.58 GB/s:
    // efficiency 0.943); the window is the bench's, the only measurement.
    c.efficiency = 0.943;
    c.slice_bytes = 0;
    c.inflight = 4;
    c.op_latency_us = 602.6;
    c.per_message_us = 0;  // inside the op's latency (the bench does not separate a serial part)
    // The bench's transfer preparation per iteration (Avg Prep 492.5, 389.2, 852.0 and 1,098.8 us at 4 to 32 KiB):
    // their median.
    c.setup_us = 672.3;
    c.notify_us = 0;  // the bench's Post and Tx times are inside the op's latency
    return true;
  }
  return false;
}

}  // namespace

TransferLibrary connector_library(TransferConnector connector) {
  switch (connector) {
    case TransferConnector::ideal: return TransferLibrary::none;
    case TransferConnector::vllm_mooncake:
    case TransferConnector::sglang_mooncake: return TransferLibrary::mooncake;
    case TransferConnector::vllm_nixl:
    case TransferConnector::lmcache: return TransferLibrary::nixl;
  }
  throw_internal_error("connector_library: unknown connector %d", static_cast<int>(connector));
}

const char* transfer_library_name(TransferLibrary library) {
  switch (library) {
    case TransferLibrary::none: return "none";
    case TransferLibrary::mooncake: return "Mooncake Transfer Engine";
    case TransferLibrary::nixl: return "NIXL";
  }
  return "?";
}

std::string transfer_transports_measured(TransferConnector connector) {
  const TransferLibrary library = connector_library(connector);
  TransferCost scratch;
  std::string have;
  for (TransferTransport t : {TransferTransport::rdma, TransferTransport::efa, TransferTransport::tcpxo})
    if (library == TransferLibrary::none || library_terms(library, t, scratch))
      have += std::string(have.empty() ? "" : ", ") + kTransferTransportNames.name(t);
  return have;
}

std::optional<std::string> transfer_preset_missing(TransferConnector connector, TransferTransport transport) {
  const TransferLibrary library = connector_library(connector);
  if (library == TransferLibrary::none) return std::nullopt;
  TransferCost scratch;
  if (library_terms(library, transport, scratch)) return std::nullopt;
  return std::string(kTransferConnectorNames.name(connector)) + " moves KV with " + transfer_library_name(library) +
         ", which no published micro-benchmark measures over " + kTransferTransportNames.name(transport) +
         " (measured: " + transfer_transports_measured(connector) + ")";
}

TransferCost transfer_preset(TransferConnector connector, TransferTransport transport) {
  if (const auto missing = transfer_preset_missing(connector, transport)) throw_error("%s", missing->c_str());
  TransferCost c = connector_semantics(connector);
  const TransferLibrary library = connector_library(connector);
  if (library != TransferLibrary::none) library_terms(library, transport, c);
  return c;
}

int64_t flow_messages(const TransferCost& cost, int64_t tokens_held, int64_t layers, int64_t kv_tensors_per_layer,
                      int64_t gpu_pairs, uint64_t flow_bytes) {
  if (flow_bytes == 0 || tokens_held <= 0) return 0;
  const int64_t blocks = (tokens_held + cost.block_tokens - 1) / cost.block_tokens;
  // Units: runs of `blocks` blocks that no message spans (a layer unless layers go together, a tensor unless K and
  // V go together, a GPU pair).
  const int64_t units = (cost.layers_together ? 1 : layers) * (cost.kv_together ? 1 : kv_tensors_per_layer) * gpu_pairs;
  const double block_bytes = static_cast<double>(flow_bytes) / static_cast<double>(units * blocks);
  // Messages of a unit: its blocks, merged up to max_message_bytes when the connector merges contiguous ones.
  int64_t blocks_per_message = 1;
  if (cost.coalesce) {
    blocks_per_message = blocks;
    if (cost.max_message_bytes > 0)
      blocks_per_message = std::clamp<int64_t>(
          static_cast<int64_t>(std::floor(static_cast<double>(cost.max_message_bytes) / block_bytes)), 1, blocks);
  }
  const int64_t full = blocks / blocks_per_message, rest = blocks % blocks_per_message;
  // Ops of a message of b blocks: ceil(b x block_bytes / slice_bytes), one when the library does not slice.
  auto ops = [&](int64_t b) -> int64_t {
    if (b == 0) return 0;
    if (cost.slice_bytes <= 0) return 1;
    return std::max<int64_t>(
        1, static_cast<int64_t>(std::ceil(static_cast<double>(b) * block_bytes / static_cast<double>(cost.slice_bytes))));
  };
  return units * (full * ops(blocks_per_message) + ops(rest));
}

double flow_rate_bound(const TransferCost& cost, int64_t messages, int64_t gpu_pairs, double bytes,
                       double line_bytes_per_s) {
  if (messages <= 0 || bytes <= 0) return kInf;
  const double m = bytes / static_cast<double>(messages);
  const double g = static_cast<double>(std::max<int64_t>(1, gpu_pairs));
  double bound = kInf;
  if (cost.per_message_us > 0) bound = std::min(bound, g * m / (cost.per_message_us * 1e-6));
  if (cost.inflight > 0 && cost.op_latency_us > 0) {
    // The window of each GPU pair: at most its own ops outstanding.
    const double window = std::min(static_cast<double>(cost.inflight), static_cast<double>(messages) / g);
    bound = std::min(bound, g * window * m / (cost.op_latency_us * 1e-6 + m / (cost.efficiency * line_bytes_per_s)));
  }
  return bound;
}

double idle_transfer_seconds(const TransferCost& cost, int64_t messages, int64_t gpu_pairs, double bytes,
                             double line_bytes_per_s, double latency_s) {
  const double rate =
      std::min(cost.efficiency * line_bytes_per_s, flow_rate_bound(cost, messages, gpu_pairs, bytes, line_bytes_per_s));
  return cost.setup_us * 1e-6 + bytes / rate + latency_s + cost.notify_us * 1e-6;
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
