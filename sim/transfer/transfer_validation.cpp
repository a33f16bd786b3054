#include "sim/transfer/transfer_validation.hpp"

#include <cmath>
#include <cstdio>
#include <string>

#include "sim/transfer/transfer_cost.hpp"

namespace lynx {

namespace {
struct PublishedTransfer {
  TransferEngineKind engine;
  const char* condition;
  double bytes;             // one transfer's bytes (steady state: one block's)
  double messages;          // its messages (steady state: 1)
  int nics;                 // NICs it is striped over
  double nic_gbps;          // each NIC's line rate
  bool steady_state;        // many transfers in flight: setup overlapped (see the header)
  double measured_gbytes_per_s;
  const char* calibration;  // "" = held out; else what the preset took from it
  const char* source;
};

constexpr double KiB = 1024, MiB = 1024 * 1024;

// Published engine micro-benchmarks. LMCache PR #4161 rows: NIXL + UCX, one rail (taken as 100 Gbps), one transfer
// outstanding, host DRAM READ; "IOV n" = n descriptors of S / n bytes in one transfer.
const PublishedTransfer kRows[] = {
    {TransferEngineKind::nixl_ucx, "IOV 1 x 16 MiB; 1 rail", 16 * MiB, 1, 1, 100, false, 12.159, "rate + intercept",
     "LMCache/LMCache PR #4161 (NIXL/UCX S)"},
    {TransferEngineKind::nixl_ucx, "IOV 1 x 64 MiB; 1 rail", 64 * MiB, 1, 1, 100, false, 12.227, "rate + intercept",
     "LMCache/LMCache PR #4161 (NIXL/UCX S)"},
    {TransferEngineKind::nixl_ucx, "IOV 256 x 4 KiB; 1 rail", MiB, 256, 1, 100, false, 4.688, "per message",
     "LMCache/LMCache PR #4161 (NIXL/UCX S)"},
    {TransferEngineKind::nixl_ucx, "IOV 1 x 256 KiB; 1 rail", 256 * KiB, 1, 1, 100, false, 8.375, "",
     "LMCache/LMCache PR #4161 (NIXL/UCX S)"},
    {TransferEngineKind::nixl_ucx, "IOV 1 x 1 MiB; 1 rail", MiB, 1, 1, 100, false, 10.918, "",
     "LMCache/LMCache PR #4161 (NIXL/UCX S)"},
    {TransferEngineKind::nixl_ucx, "IOV 1 x 4 MiB; 1 rail", 4 * MiB, 1, 1, 100, false, 11.892, "",
     "LMCache/LMCache PR #4161 (NIXL/UCX S)"},
    {TransferEngineKind::nixl_ucx, "IOV 256 x 1 KiB; 1 rail", 256 * KiB, 256, 1, 100, false, 0.715, "",
     "LMCache/LMCache PR #4161 (NIXL/UCX S)"},
    {TransferEngineKind::nixl_ucx, "IOV 256 x 16 KiB; 1 rail", 4 * MiB, 256, 1, 100, false, 11.667, "",
     "LMCache/LMCache PR #4161 (NIXL/UCX S)"},
    {TransferEngineKind::nixl_ucx, "IOV 256 x 64 KiB; 1 rail", 16 * MiB, 256, 1, 100, false, 12.091, "",
     "LMCache/LMCache PR #4161 (NIXL/UCX S)"},
    {TransferEngineKind::nixl_ucx, "IOV 256 x 256 KiB; 1 rail", 64 * MiB, 256, 1, 100, false, 12.157, "",
     "LMCache/LMCache PR #4161 (NIXL/UCX S)"},
    // Another NIC: AMD AINIC 400 Gb/s RoCE v2, nixlbench UCX backend, DRAM, 16 MB blocks (batch 1): 341 Gb/s.
    {TransferEngineKind::nixl_ucx, "nixlbench 16 MiB; 400 Gbps AINIC", 16 * MiB, 1, 1, 400, false, 42.6, "",
     "ai-dynamo/nixl PR #1647"},
    // Mooncake Transfer Engine.
    {TransferEngineKind::mooncake_rdma, "40 GB over 4 x 200 Gbps RoCE", 40e9, 0, 4, 200, false, 87, "efficiency",
     "Mooncake README (Performance)"},
    {TransferEngineKind::mooncake_rdma, "4 KiB blocks; batch 128; 8 threads; 1 x 200 Gbps", 4 * KiB, 1, 1, 200, true,
     13.04, "per message", "kvcache-ai/Mooncake issue #1096"},
    {TransferEngineKind::mooncake_rdma, "one 1 KiB write", KiB, 1, 1, 200, false, 0.04, "setup (median of 4)",
     "uccl-project/uccl PR #265"},
    {TransferEngineKind::mooncake_rdma, "one 4 KiB write", 4 * KiB, 1, 1, 200, false, 0.05, "setup (median of 4)",
     "uccl-project/uccl PR #265"},
    {TransferEngineKind::mooncake_rdma, "one 16 KiB write", 16 * KiB, 1, 1, 200, false, 0.32, "setup (median of 4)",
     "uccl-project/uccl PR #265"},
    {TransferEngineKind::mooncake_rdma, "one 64 KiB write", 64 * KiB, 1, 1, 200, false, 0.60, "setup (median of 4)",
     "uccl-project/uccl PR #265"},
    {TransferEngineKind::mooncake_rdma, "64 KiB blocks; batch 128; 12 threads; 8 x 200 Gbps", 64 * KiB, 1, 8, 200,
     true, 186.55, "", "kvcache-ai/Mooncake issue #1158"},
    {TransferEngineKind::mooncake_rdma, "64 KiB blocks; batch 128 (defaults); 1 x 100 Gbps", 64 * KiB, 1, 1, 100,
     true, 6.56, "", "kvcache-ai/Mooncake issue #39"},
    {TransferEngineKind::mooncake_rdma, "40 GB over 8 x 400 Gbps RoCE", 40e9, 0, 8, 400, false, 190, "",
     "Mooncake README (Performance)"},
};

std::string engine_label(TransferEngineKind engine) {
  return std::string("transfer: ") + kTransferEngineNames.name(engine) + " micro-benchmarks";
}
}  // namespace

void add_transfer_validation(ValidationReport& report) {
  for (TransferEngineKind engine : {TransferEngineKind::nixl_ucx, TransferEngineKind::mooncake_rdma}) {
    const TransferCost preset = transfer_engine_preset(engine);
    double error_sum = 0;
    int held_out = 0;
    for (const PublishedTransfer& p : kRows) {
      if (p.engine != engine) continue;
      TransferCost cost = preset;
      if (p.steady_state) cost.setup_us = cost.notify_us = 0;
      const double line = p.nic_gbps * 1e9 / 8;
      // One transfer striped over k NICs: each carries bytes / k in messages / k, in parallel. Steady state: one
      // block on its NIC.
      const int stripes = p.steady_state ? 1 : p.nics;
      const auto per_nic_messages = static_cast<int64_t>(std::ceil(p.messages / stripes));
      const double predicted_s = idle_transfer_seconds(cost, per_nic_messages, p.bytes / stripes, line, 0);
      // Steady state: the measured aggregate rate over k NICs is each NIC's k-th.
      const double measured_s = p.bytes / (p.measured_gbytes_per_s * 1e9 / (p.steady_state ? p.nics : 1));
      ValidationRow row;
      row.group = engine_label(engine);
      row.condition = p.condition;
      row.measured_ms = measured_s * 1e3;
      row.predicted_ms = predicted_s * 1e3;
      row.repeats = 1;
      row.excluded = *p.calibration ? std::string("calibration: ") + p.calibration : "";
      row.source = p.source;
      row.tp = 0;
      row.batched_tokens = 0;
      if (row.excluded.empty()) {
        error_sum += std::fabs(row.predicted_ms / row.measured_ms - 1);
        ++held_out;
      }
      report.rows.push_back(row);
    }
    report.groups.push_back({engine_label(engine), held_out, held_out ? 100 * error_sum / held_out : 0.0});
  }
}

}  // namespace lynx
