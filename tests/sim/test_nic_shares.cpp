// NIC-pair shares of a KV transfer between tensor-parallel instances (sim/transfer/nic_shares.hpp), against hand counts.
#include <doctest/doctest.h>

#include <cstddef>
#include <numeric>
#include <utility>

#include "sim/transfer/nic_shares.hpp"

using namespace lynx;

TEST_CASE("NIC-pair shares: equal tp pairs GPU i with GPU i, unequal tp splits by overlapping head ranges") {
  auto shares = nic_flow_shares(2, 2, 2, 2);
  REQUIRE(shares.size() == 2);
  CHECK(shares[0].src_nic == 0);
  CHECK(shares[0].dst_nic == 0);
  CHECK(shares[1].src_nic == 1);
  CHECK(shares[1].dst_nic == 1);
  CHECK(shares[0].fraction == 0.5);

  shares = nic_flow_shares(2, 2, 4, 4);  // source GPU 0 holds what decode GPUs 0 and 1 need
  REQUIRE(shares.size() == 4);
  for (int k = 0; k < 4; ++k) {
    CHECK(shares[static_cast<size_t>(k)].src_nic == k / 2);
    CHECK(shares[static_cast<size_t>(k)].dst_nic == k);
    CHECK(shares[static_cast<size_t>(k)].fraction == 0.25);
  }
  shares = nic_flow_shares(3, 3, 2, 2);  // [0,1/3),[1/3,2/3),[2/3,1) against [0,1/2),[1/2,1)
  REQUIRE(shares.size() == 4);
  CHECK(shares[1].fraction == doctest::Approx(1.0 / 6));
  shares = nic_flow_shares(8, 1, 8, 1);  // one NIC per instance: every GPU pair merges into one flow
  REQUIRE(shares.size() == 1);
  CHECK(shares[0].fraction == doctest::Approx(1.0));
}

TEST_CASE("bytes split over the shares add up exactly") {
  for (auto [s, d] : {std::pair{3, 2}, std::pair{4, 4}, std::pair{1, 8}, std::pair{7, 5}}) {
    const auto shares = nic_flow_shares(s, s, d, d);
    for (uint64_t bytes : {uint64_t{1}, uint64_t{7}, uint64_t{1000003}, uint64_t{123456789012345}}) {
      const auto parts = split_bytes(bytes, shares);
      CHECK(std::accumulate(parts.begin(), parts.end(), uint64_t{0}) == bytes);
    }
  }
}

TEST_CASE("replicated heads: 4 KV heads at tp 8 live on two GPUs each, send_all sends both copies, send_once one") {
  auto shares = kv_flow_shares(4, 8, 8, 8, 8, ReplicatedKv::send_all);  // GPU g pairs with GPU g, 1/4 each
  REQUIRE(shares.size() == 8);
  for (size_t k = 0; k < 8; ++k) {
    CHECK(shares[k].src_nic == static_cast<int>(k));
    CHECK(shares[k].dst_nic == static_cast<int>(k));
    CHECK(shares[k].fraction == 0.25);
    CHECK(shares[k].gpu_pairs == 1);
  }
  shares = kv_flow_shares(4, 8, 8, 8, 8, ReplicatedKv::send_once);  // only each head's first decode copy
  REQUIRE(shares.size() == 4);
  for (size_t k = 0; k < 4; ++k) {
    CHECK(shares[k].src_nic == static_cast<int>(2 * k));
    CHECK(shares[k].dst_nic == static_cast<int>(2 * k));
  }
  // Mixed tp: prefill tp 2 (two heads per GPU) to decode tp 8: decode GPU j needs head j / 2 from prefill GPU j / 4.
  shares = kv_flow_shares(4, 2, 2, 8, 8, ReplicatedKv::send_all);
  REQUIRE(shares.size() == 8);
  for (size_t k = 0; k < 8; ++k) CHECK(shares[k].src_nic == static_cast<int>(k / 4));
  // Decode tp 2 from prefill tp 8: each decode GPU's two heads come from one copy of each, two GPU pairs.
  shares = kv_flow_shares(4, 8, 1, 2, 1, ReplicatedKv::send_all);
  REQUIRE(shares.size() == 1);
  CHECK(shares[0].gpu_pairs == 4);
  CHECK(shares[0].fraction == 1.0);
  const auto parts = split_bytes(1001, kv_flow_shares(4, 8, 8, 8, 8, ReplicatedKv::send_all));
  CHECK(std::accumulate(parts.begin(), parts.end(), uint64_t{0}) == 2002);
}

TEST_CASE("heads at or above tp: the head-slice shares equal the fractional split the simulator used before") {
  for (auto [s, d] : {std::pair{3, 2}, std::pair{4, 4}, std::pair{1, 8}, std::pair{8, 2}}) {
    const auto a = kv_flow_shares(8, s, s, d, d, ReplicatedKv::send_all);
    const auto b = kv_flow_shares(8, s, s, d, d, ReplicatedKv::send_once);
    REQUIRE(a.size() == b.size());
    double sum = 0;
    for (size_t k = 0; k < a.size(); ++k) {
      CHECK(a[k].fraction == b[k].fraction);
      sum += a[k].fraction;
    }
    CHECK(sum == doctest::Approx(1.0));
  }
}
