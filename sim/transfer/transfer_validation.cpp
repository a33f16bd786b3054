#include "sim/transfer/transfer_validation.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "sim/transfer/transfer_cost.hpp"

namespace lynx {

namespace {
struct PublishedTransfer {
  TransferLibrary library;
  TransferTransport transport;
  const char* condition;
  double bytes;             // one transfer's bytes (steady state: one op's)
  double ops;               // its ops (steady state: unused)
  int nics;                 // NICs it is striped over
  double nic_gbps;          // each NIC's line rate
  bool steady_state;        // many ops in flight: setup overlapped (see the header)
  double measured_gbytes_per_s;
  const char* excluded;     // "" = held out; else "calibration: ..." or "not expressed: ..."
  const char* source;
};

constexpr double KiB = 1024, MiB = 1024 * 1024;
constexpr auto kMc = TransferLibrary::mooncake, kNixl = TransferLibrary::nixl;
constexpr auto kRdma = TransferTransport::rdma, kEfa = TransferTransport::efa, kTcpxo = TransferTransport::tcpxo;

// Mooncake's EFA document (kvcache-ai/Mooncake docs/source/design/transfer-engine/efa_transport.md at 3b5a5941),
// GPU-to-GPU unless said; transcribed in the data folder's mooncake_efa_transfer_engine_bench.csv.
constexpr const char* kEfaDoc = "Mooncake efa_transport.md (3b5a5941)";
constexpr const char* kReads = "not expressed: reads (the Mooncake connectors write from the prefill side; the "
                               "preset is fitted on writes)";
// LMCache PR #4161 rows: NIXL + UCX, one rail (taken as 100 Gbps), one transfer outstanding, host DRAM READ;
// "IOV n" = n descriptors of S / n bytes in one transfer.
constexpr const char* kLmcache = "LMCache/LMCache PR #4161 (NIXL/UCX S)";
constexpr const char* kTcpxoPr = "ai-dynamo/nixl PR #2276";

const PublishedTransfer kRows[] = {
    // NIXL over UCX (RDMA).
    {kNixl, kRdma, "IOV 1 x 16 MiB; 1 rail", 16 * MiB, 1, 1, 100, false, 12.159, "calibration: rate + intercept", kLmcache},
    {kNixl, kRdma, "IOV 1 x 64 MiB; 1 rail", 64 * MiB, 1, 1, 100, false, 12.227, "calibration: rate + intercept", kLmcache},
    {kNixl, kRdma, "IOV 256 x 4 KiB; 1 rail", MiB, 256, 1, 100, false, 4.688, "calibration: window", kLmcache},
    {kNixl, kRdma, "IOV 256 x 16 KiB; 1 rail", 4 * MiB, 256, 1, 100, false, 11.667, "calibration: window", kLmcache},
    {kNixl, kRdma, "IOV 1 x 256 KiB; 1 rail", 256 * KiB, 1, 1, 100, false, 8.375, "", kLmcache},
    {kNixl, kRdma, "IOV 1 x 1 MiB; 1 rail", MiB, 1, 1, 100, false, 10.918, "", kLmcache},
    {kNixl, kRdma, "IOV 1 x 4 MiB; 1 rail", 4 * MiB, 1, 1, 100, false, 11.892, "", kLmcache},
    {kNixl, kRdma, "IOV 256 x 1 KiB; 1 rail", 256 * KiB, 256, 1, 100, false, 0.715, "", kLmcache},
    {kNixl, kRdma, "IOV 256 x 64 KiB; 1 rail", 16 * MiB, 256, 1, 100, false, 12.091, "", kLmcache},
    {kNixl, kRdma, "IOV 256 x 256 KiB; 1 rail", 64 * MiB, 256, 1, 100, false, 12.157, "", kLmcache},
    // Another NIC: AMD AINIC 400 Gb/s RoCE v2, nixlbench UCX backend, DRAM, 16 MB blocks: 341 Gb/s.
    {kNixl, kRdma, "nixlbench 16 MiB; 400 Gbps AINIC", 16 * MiB, 1, 1, 400, false, 42.6, "", "ai-dynamo/nixl PR #1647"},
    // NIXL over GCP GPUDirect-TCPXO: nixlbench, VRAM to VRAM, 4 threads, batch 1, one 200 Gbps NIC.
    {kNixl, kTcpxo, "READ 4 KiB; 4 threads; batch 1", 4 * KiB, 1, 1, 200, true, 0.027182, "calibration: op latency", kTcpxoPr},
    {kNixl, kTcpxo, "WRITE 64 MiB; 4 threads", 64 * MiB, 1, 1, 200, true, 23.58, "calibration: efficiency", kTcpxoPr},
    {kNixl, kTcpxo, "READ 8 KiB; 4 threads; batch 1", 8 * KiB, 1, 1, 200, true, 0.050828, "", kTcpxoPr},
    {kNixl, kTcpxo, "READ 16 KiB; 4 threads; batch 1", 16 * KiB, 1, 1, 200, true, 0.105219, "", kTcpxoPr},
    {kNixl, kTcpxo, "READ 32 KiB; 4 threads; batch 1", 32 * KiB, 1, 1, 200, true, 0.206504, "", kTcpxoPr},
    {kNixl, kTcpxo, "READ 64 MiB; 4 threads", 64 * MiB, 1, 1, 200, true, 22.96, "", kTcpxoPr},
    // Mooncake Transfer Engine over RDMA.
    {kMc, kRdma, "40 GB over 4 x 200 Gbps RoCE", 40e9, 40e9 / 65536, 4, 200, false, 87, "calibration: efficiency",
     "Mooncake README (Performance)"},
    {kMc, kRdma, "4 KiB blocks; batch 128; 8 threads; 1 x 200 Gbps", 4 * KiB, 1, 1, 200, true, 13.04,
     "calibration: per message", "kvcache-ai/Mooncake issue #1096"},
    {kMc, kRdma, "one 1 KiB write", KiB, 1, 1, 200, false, 0.04, "calibration: setup (median of 4)", "uccl-project/uccl PR #265"},
    {kMc, kRdma, "one 4 KiB write", 4 * KiB, 1, 1, 200, false, 0.05, "calibration: setup (median of 4)", "uccl-project/uccl PR #265"},
    {kMc, kRdma, "one 16 KiB write", 16 * KiB, 1, 1, 200, false, 0.32, "calibration: setup (median of 4)", "uccl-project/uccl PR #265"},
    {kMc, kRdma, "one 64 KiB write", 64 * KiB, 1, 1, 200, false, 0.60, "calibration: setup (median of 4)", "uccl-project/uccl PR #265"},
    {kMc, kRdma, "64 KiB blocks; batch 128; 12 threads; 8 x 200 Gbps", 64 * KiB, 1, 8, 200, true, 186.55, "",
     "kvcache-ai/Mooncake issue #1158"},
    {kMc, kRdma, "64 KiB blocks; batch 128 (defaults); 1 x 100 Gbps", 64 * KiB, 1, 1, 100, true, 6.56, "",
     "kvcache-ai/Mooncake issue #39"},
    {kMc, kRdma, "40 GB over 8 x 400 Gbps RoCE", 40e9, 40e9 / 65536, 8, 400, false, 190, "", "Mooncake README (Performance)"},
    // Mooncake Transfer Engine over EFA: p5en (16 x 200 Gbps) block-size sweep, threads 16, batch 128.
    {kMc, kEfa, "p5en write 64 KiB; threads 16; batch 128", 64 * KiB, 1, 16, 200, true, 97.11, "calibration: window", kEfaDoc},
    {kMc, kEfa, "p5en write 128 KiB; threads 16; batch 128", 128 * KiB, 1, 16, 200, true, 190.82, "", kEfaDoc},
    {kMc, kEfa, "p5en write 256 KiB; threads 16; batch 128", 256 * KiB, 1, 16, 200, true, 324.90, "calibration: window", kEfaDoc},
    {kMc, kEfa, "p5en write 512 KiB; threads 16; batch 128", 512 * KiB, 1, 16, 200, true, 357.62, "", kEfaDoc},
    {kMc, kEfa, "p5en write 1 MiB; threads 16; batch 128", MiB, 1, 16, 200, true, 352.59, "", kEfaDoc},
    {kMc, kEfa, "p5en write 2 MiB; threads 16; batch 128", 2 * MiB, 1, 16, 200, true, 366.87, "calibration: efficiency", kEfaDoc},
    // The same host at other thread and batch counts (the preset has neither: how far they move it).
    {kMc, kEfa, "p5en write 1 MiB; threads 8; batch 128", MiB, 1, 16, 200, true, 318.71, "", kEfaDoc},
    {kMc, kEfa, "p5en write 1 MiB; threads 16; batch 32", MiB, 1, 16, 200, true, 297.23, "", kEfaDoc},
    {kMc, kEfa, "p5en write 1 MiB; threads 32; batch 64", MiB, 1, 16, 200, true, 357.12, "", kEfaDoc},
    {kMc, kEfa, "p5en write 1 MiB; threads 32; batch 128", MiB, 1, 16, 200, true, 364.21, "", kEfaDoc},
    {kMc, kEfa, "p5en write 1 MiB; threads 48; batch 64", MiB, 1, 16, 200, true, 363.47, "", kEfaDoc},
    // Other hosts: p5 (32 x 100 Gbps) and p6-b300 (16 x 400 Gbps).
    {kMc, kEfa, "p5 write 1 MiB; threads 8; batch 128", MiB, 1, 32, 100, true, 335.11, "", kEfaDoc},
    {kMc, kEfa, "p5 write 1 MiB; threads 16; batch 128", MiB, 1, 32, 100, true, 388.52, "", kEfaDoc},
    {kMc, kEfa, "p5 write 1 MiB; threads 32; batch 128", MiB, 1, 32, 100, true, 388.90, "", kEfaDoc},
    {kMc, kEfa, "p6-b300 write 1 MiB; threads 16; batch 128", MiB, 1, 16, 400, true, 758.88, "", kEfaDoc},
    {kMc, kEfa, "p6-b300 write 1 MiB; threads 32; batch 32", MiB, 1, 16, 400, true, 780.33, "", kEfaDoc},
    {kMc, kEfa, "p6-b200 write 1 MiB; threads 16; batch 128", MiB, 1, 8, 400, true, 302,
     "not expressed: measured before the SRD shared-endpoint change (#1944), which the document calls a lower bound",
     kEfaDoc},
    {kMc, kEfa, "p5en read 64 KiB; threads 16; batch 128", 64 * KiB, 1, 16, 200, true, 96.87, kReads, kEfaDoc},
    {kMc, kEfa, "p5en read 256 KiB; threads 16; batch 128", 256 * KiB, 1, 16, 200, true, 296.19, kReads, kEfaDoc},
    {kMc, kEfa, "p5en read 1 MiB; threads 16; batch 128", MiB, 1, 16, 200, true, 301.14, kReads, kEfaDoc},
    {kMc, kEfa, "p5en CPU-to-CPU write 1 MiB; threads 16; batch 128", MiB, 1, 16, 200, true, 212.71,
     "not expressed: host memory (bounded by DRAM bandwidth, the document says); the presets move GPU memory",
     kEfaDoc},
};

std::string group_label(TransferLibrary library, TransferTransport transport) {
  return std::string("transfer: ") + (library == kMc ? "mooncake" : "nixl") + " over " +
         kTransferTransportNames.name(transport);
}

// A preset of the library over the transport (its connector's semantics do not enter these rows).
TransferCost library_preset(TransferLibrary library, TransferTransport transport) {
  return transfer_preset(library == kMc ? TransferConnector::vllm_mooncake : TransferConnector::vllm_nixl, transport);
}
}  // namespace

void add_transfer_validation(ValidationReport& report) {
  const std::pair<TransferLibrary, TransferTransport> groups[] = {
      {kNixl, kRdma}, {kNixl, kTcpxo}, {kMc, kRdma}, {kMc, kEfa}};
  for (const auto& [library, transport] : groups) {
    const TransferCost cost = library_preset(library, transport);
    const std::string label = group_label(library, transport);
    double error_sum = 0;
    int held_out = 0;
    for (const PublishedTransfer& p : kRows) {
      if (p.library != library || p.transport != transport) continue;
      const double line = p.nic_gbps * 1e9 / 8;
      double predicted_s, measured_s;
      if (p.steady_state) {
        // One op on its NIC with the window full: many ops of p.bytes each.
        constexpr double kOps = 1e9;
        const double rate = std::min(cost.efficiency * line,
                                      flow_rate_bound(cost, static_cast<int64_t>(kOps), 1, p.bytes * kOps, line));
        predicted_s = p.bytes / rate;
        measured_s = p.bytes / (p.measured_gbytes_per_s * 1e9 / p.nics);  // the aggregate's share of one NIC
      } else {
        // One transfer striped over k NICs: each carries bytes / k in ops / k, in parallel.
        const auto per_nic_ops = static_cast<int64_t>(std::ceil(p.ops / p.nics));
        predicted_s = idle_transfer_seconds(cost, per_nic_ops, 1, p.bytes / p.nics, line, 0);
        measured_s = p.bytes / (p.measured_gbytes_per_s * 1e9);
      }
      ValidationRow row;
      row.group = label;
      row.condition = p.condition;
      row.measured_ms = measured_s * 1e3;
      row.predicted_ms = predicted_s * 1e3;
      row.repeats = 1;
      row.excluded = p.excluded;
      row.source = p.source;
      if (row.excluded.empty()) {
        error_sum += std::fabs(row.predicted_ms / row.measured_ms - 1);
        ++held_out;
      }
      report.rows.push_back(row);
    }
    report.groups.push_back({label, held_out, held_out ? 100 * error_sum / held_out : 0.0});
  }
}

}  // namespace lynx
