// The transfer group of `lynxsim validate` (sim/transfer/transfer_validation.hpp) and the presets' rate-vs-size
// curves: the calibration rows reproduce what each preset took from them, the MAPE is the held-out rows' mean error,
// and a transfer's achieved rate at a message size comes out of the terms (no curve of its own).
#include <doctest/doctest.h>

#include <cmath>

#include "sim/transfer/transfer_cost.hpp"
#include "sim/transfer/transfer_validation.hpp"

using namespace lynx;

namespace {
// Achieved rate (GB/s) of one transfer of `bytes` in `messages` ops on an idle NIC of `gbps`.
double rate_gbytes(const TransferCost& cost, double bytes, int64_t messages, double gbps) {
  return bytes / idle_transfer_seconds(cost, messages, 1, bytes, gbps * 1e9 / 8, 0) / 1e9;
}
// Steady-state rate (GB/s) of one NIC with ops of `op_bytes` outstanding up to the window.
double steady_gbytes(const TransferCost& cost, double op_bytes, double gbps) {
  const double line = gbps * 1e9 / 8;
  return std::min(cost.efficiency * line, flow_rate_bound(cost, 1 << 30, 1, op_bytes * (1 << 30), line)) / 1e9;
}
}  // namespace

TEST_CASE("NIXL over UCX: the calibration rows come back, and 4 KiB descriptors collapse the rate as the sweep says") {
  const TransferCost c = transfer_preset(TransferConnector::vllm_nixl, TransferTransport::rdma);
  const double MiB = 1 << 20;
  CHECK(rate_gbytes(c, 16 * MiB, 1, 100) == doctest::Approx(12.159).epsilon(1e-3));
  CHECK(rate_gbytes(c, 64 * MiB, 1, 100) == doctest::Approx(12.227).epsilon(1e-3));
  CHECK(rate_gbytes(c, MiB, 256, 100) == doctest::Approx(4.688).epsilon(1e-3));
  // One 1 MiB descriptor: 10.918 GB/s measured (held out); as 256 of 4 KiB, 2.3x slower.
  const double one = rate_gbytes(c, MiB, 1, 100), pieces = rate_gbytes(c, MiB, 256, 100);
  CHECK(one == doctest::Approx(10.918).epsilon(0.01));
  CHECK(one / pieces == doctest::Approx(10.918 / 4.688).epsilon(0.01));
}

TEST_CASE("Mooncake over RDMA: 87% of line rate on 40 GB, 13.04 GB/s of 4 KiB ops, 64 KiB slices") {
  const TransferCost c = transfer_preset(TransferConnector::vllm_mooncake, TransferTransport::rdma);
  CHECK(40e9 / 4 / (c.efficiency * 25e9) == doctest::Approx(40e9 / 87e9).epsilon(1e-9));
  CHECK(steady_gbytes(c, 4096, 200) == doctest::Approx(13.04).epsilon(2e-3));
  CHECK(c.slice_bytes == 65536);
}

TEST_CASE("Mooncake over EFA: the block-size sweep's knee from a window of 4 ops (64 KiB, 256 KiB, 2 MiB fitted)") {
  const TransferCost c = transfer_preset(TransferConnector::sglang_mooncake, TransferTransport::efa);
  const double KiB = 1024;
  CHECK(16 * steady_gbytes(c, 64 * KiB, 200) == doctest::Approx(97.11).epsilon(0.01));
  CHECK(16 * steady_gbytes(c, 256 * KiB, 200) == doctest::Approx(324.90).epsilon(0.01));
  CHECK(16 * steady_gbytes(c, 2048 * KiB, 200) == doctest::Approx(366.87).epsilon(0.01));
  // Held out: 128 KiB (190.82) and 512 KiB (357.62) within 5%.
  CHECK(16 * steady_gbytes(c, 128 * KiB, 200) == doctest::Approx(190.82).epsilon(0.05));
  CHECK(16 * steady_gbytes(c, 512 * KiB, 200) == doctest::Approx(357.62).epsilon(0.05));
}

TEST_CASE("NIXL over TCPXO: 4 ops of 602.6 us in flight, and pairs without a measurement are refused by name") {
  const TransferCost c = transfer_preset(TransferConnector::lmcache, TransferTransport::tcpxo);
  CHECK(steady_gbytes(c, 4096, 200) == doctest::Approx(0.027182).epsilon(1e-3));
  CHECK(steady_gbytes(c, 64 << 20, 200) == doctest::Approx(23.58).epsilon(1e-3));
  const auto missing = transfer_preset_missing(TransferConnector::vllm_nixl, TransferTransport::efa);
  REQUIRE(missing);
  CHECK(missing->find("NIXL") != std::string::npos);
  CHECK(missing->find("measured: rdma, tcpxo") != std::string::npos);
  CHECK(transfer_preset_missing(TransferConnector::vllm_mooncake, TransferTransport::tcpxo));
  CHECK(!transfer_preset_missing(TransferConnector::ideal, TransferTransport::tcpxo));
}

TEST_CASE("the transfer group: every row cited, calibration and not-expressed rows excluded, MAPE of the rest") {
  ValidationReport report;
  add_transfer_validation(report);
  REQUIRE(report.groups.size() == 4);
  for (const ValidationGroup& g : report.groups) {
    CAPTURE(g.group);
    double sum = 0;
    int n = 0, calibration = 0;
    for (const ValidationRow& r : report.rows) {
      if (r.group != g.group) continue;
      CHECK(!r.source.empty());
      CHECK(r.measured_ms > 0);
      CHECK(r.predicted_ms > 0);
      if (!r.excluded.empty()) {
        calibration += r.excluded.rfind("calibration", 0) == 0;
        continue;
      }
      sum += std::fabs(r.predicted_ms / r.measured_ms - 1);
      ++n;
    }
    CHECK(calibration >= 2);
    CHECK(n == g.rows);
    CHECK(n >= 3);
    CHECK(g.mape_percent == doctest::Approx(100 * sum / n));
  }
  for (const ValidationRow& r : report.rows)
    if (r.condition == "IOV 1 x 1 MiB; 1 rail") CHECK(r.predicted_ms / r.measured_ms == doctest::Approx(1).epsilon(0.01));
}
