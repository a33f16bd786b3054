// The transfer group of `lynxsim validate` (sim/transfer/transfer_validation.hpp) and the presets' rate-vs-size curve: the
// calibration rows reproduce what each preset took from them, the MAPE is the held-out rows' mean error, and a
// transfer's achieved rate at a piece size comes out of the three terms (no curve of its own).
#include <doctest/doctest.h>

#include <cmath>

#include "sim/transfer/transfer_cost.hpp"
#include "sim/transfer/transfer_validation.hpp"

using namespace lynx;

namespace {
// Achieved rate (GB/s) of one transfer of `bytes` in `messages` pieces on an idle NIC of `gbps`.
double rate_gbytes(TransferEngineKind engine, double bytes, int64_t messages, double gbps) {
  return bytes / idle_transfer_seconds(transfer_engine_preset(engine), messages, bytes, gbps * 1e9 / 8, 0) / 1e9;
}
}  // namespace

TEST_CASE("nixl-ucx: the calibration rows come back, and small pieces collapse the rate as the sweep reports") {
  const double MiB = 1 << 20;
  CHECK(rate_gbytes(TransferEngineKind::nixl_ucx, 16 * MiB, 1, 100) == doctest::Approx(12.159).epsilon(1e-3));
  CHECK(rate_gbytes(TransferEngineKind::nixl_ucx, 64 * MiB, 1, 100) == doctest::Approx(12.227).epsilon(1e-3));
  CHECK(rate_gbytes(TransferEngineKind::nixl_ucx, MiB, 256, 100) == doctest::Approx(4.688).epsilon(1e-3));
  // The same 16 MiB as 256 pieces of 64 KiB: 12.09 GB/s measured, the terms give 11.1; as 4 KiB pieces the 1 MiB
  // transfer falls to 4.7 GB/s, 2.6x below one 1 MiB descriptor (10.9 GB/s measured; 11.0 from the terms).
  const double one = rate_gbytes(TransferEngineKind::nixl_ucx, MiB, 1, 100);
  const double pieces = rate_gbytes(TransferEngineKind::nixl_ucx, MiB, 256, 100);
  CHECK(one == doctest::Approx(10.918).epsilon(0.01));
  CHECK(one / pieces == doctest::Approx(10.918 / 4.688).epsilon(0.01));
}

TEST_CASE("mooncake-rdma: 87% of line rate on 40 GB, 13.04 GB/s of 4 KiB blocks in steady state") {
  const TransferCost c = transfer_engine_preset(TransferEngineKind::mooncake_rdma);
  CHECK(40e9 / 4 / (c.efficiency * 25e9) == doctest::Approx(40e9 / 87e9).epsilon(1e-9));
  const double block_s = c.per_message_us * 1e-6 + 4096 / (c.efficiency * 25e9);
  CHECK(4096 / block_s / 1e9 == doctest::Approx(13.04).epsilon(2e-3));
}

TEST_CASE("the transfer group: every row cited, calibration rows excluded, MAPE = mean |ratio - 1| of the rest") {
  ValidationReport report;
  add_transfer_validation(report);
  REQUIRE(report.groups.size() == 2);
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
        ++calibration;
        continue;
      }
      sum += std::fabs(r.predicted_ms / r.measured_ms - 1);
      ++n;
    }
    CHECK(calibration >= 3);
    CHECK(n == g.rows);
    CHECK(g.mape_percent == doctest::Approx(100 * sum / n));
  }
  // The nixl-ucx fit holds out 8 rows; a single 1 MiB descriptor is predicted within 1%.
  CHECK(report.groups[0].rows == 8);
  for (const ValidationRow& r : report.rows)
    if (r.condition == "IOV 1 x 1 MiB; 1 rail") CHECK(r.predicted_ms / r.measured_ms == doctest::Approx(1).epsilon(0.01));
}
